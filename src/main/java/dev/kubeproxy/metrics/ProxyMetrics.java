package dev.kubeproxy.metrics;

import java.time.Duration;
import java.time.Instant;

/**
 * The kubeproxy_* meters (observability.md §5). The verticle that owns a value updates it through
 * these methods; names, types, labels and buckets are upstream's. Skeleton: helper B registers them.
 */
public class ProxyMetrics {
  private static final ProxyMetrics GLOBAL = new ProxyMetrics();

  /** The process-wide instance that /metrics exposes. */
  public static ProxyMetrics global() {
    return GLOBAL;
  }

  public void observeSyncDuration(Duration d) {}

  public void observeFullSyncDuration(Duration d) {}

  public void observePartialSyncDuration(Duration d) {}

  public void setLastSyncTimestamp(Instant t) {}

  public void setLastQueuedTimestamp(Instant t) {}

  public void observeNetworkProgrammingLatency(Duration d) {}

  public void setEndpointChangesPending(int n) {}

  public void incEndpointChanges() {}

  public void setServiceChangesPending(int n) {}

  public void incServiceChanges() {}

  /** trafficPolicy: "internal" or "external". */
  public void setNoLocalEndpoints(String trafficPolicy, int n) {}

  public void incIptablesRestoreFailures() {}

  public void incIptablesPartialRestoreFailures() {}

  /** table: "filter" or "nat"; rules owned by kube-proxy after a successful sync. */
  public void setIptablesRulesTotal(String table, int n) {}

  /** table: "filter" or "nat"; rules written in the last sync. */
  public void setIptablesRulesLast(String table, int n) {}

  public void incNftablesSyncFailures() {}

  public void incNftablesCleanupFailures() {}

  public void incHealthz(int code) {}

  public void incLivez(int code) {}
}
