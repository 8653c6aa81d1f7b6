package dev.kubeproxy.testutil;

import dev.kubeproxy.metrics.ProxyMetrics;
import java.util.concurrent.atomic.AtomicInteger;

/** ProxyMetrics that counts what the change trackers and the nftables proxier report. */
public final class CountingMetrics extends ProxyMetrics {
  /** Service changes seen by the tracker, and the pending count it last set (-1: never set). */
  public int serviceChanges;
  public int servicePending = -1;
  /** EndpointSlice changes seen by the tracker, and the pending count it last set (-1: never set). */
  public int endpointChanges;
  public int endpointPending = -1;
  /** nftables syncs and cleanups that failed (counted from any thread). */
  public final AtomicInteger syncFailures = new AtomicInteger();
  public final AtomicInteger cleanupFailures = new AtomicInteger();

  @Override
  public void incServiceChanges() {
    serviceChanges++;
  }

  @Override
  public void setServiceChangesPending(int n) {
    servicePending = n;
  }

  @Override
  public void incEndpointChanges() {
    endpointChanges++;
  }

  @Override
  public void setEndpointChangesPending(int n) {
    endpointPending = n;
  }

  @Override
  public void incNftablesSyncFailures(String ipFamily) {
    syncFailures.incrementAndGet();
  }

  @Override
  public void incNftablesCleanupFailures(String ipFamily) {
    cleanupFailures.incrementAndGet();
  }
}
