package dev.kubeproxy.backend.iptables;

import dev.kubeproxy.config.SyncSettings;
import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * When iptables mode rewrites every chain although nothing asked for it (pkg/proxy/iptables/proxier.go
 * syncProxyRules, doFullSync): once the last full sync is {@link SyncSettings#FULL_SYNC_PERIOD} ago,
 * and never in large clusters, where a full restore takes seconds. Between the full syncs the canary
 * check every syncPeriod ({@link RulesMonitor}) asks for one when the rules were disturbed, and in
 * large clusters the stale-chain scan runs at most once per syncPeriod (in practice, that check's
 * own read of nat is the scan, so a partial sync makes none while the check runs).
 */
final class FullSyncCadence {
  private static final long NEVER = Long.MIN_VALUE;

  private final LongSupplier nanoTime;
  private final Duration syncPeriod;
  private long lastFullSync = NEVER;
  private long lastStaleScan = NEVER;

  /** @param nanoTime a monotonic clock in nanoseconds (System::nanoTime; tests move one by hand) */
  FullSyncCadence(LongSupplier nanoTime, Duration syncPeriod) {
    this.nanoTime = nanoTime;
    this.syncPeriod = syncPeriod;
  }

  /** Whether the next sync is full for the period alone. */
  boolean periodicFullSyncDue(boolean largeCluster) {
    return !largeCluster && due(lastFullSync, SyncSettings.FULL_SYNC_PERIOD);
  }

  /** Whether a partial sync reads the nat table to find stale chains (always, but in large clusters). */
  boolean staleScanDue(boolean largeCluster) {
    return !largeCluster || due(lastStaleScan, syncPeriod);
  }

  void staleScanned() {
    lastStaleScan = nanoTime.getAsLong();
  }

  /** A full sync that started at this reading of the clock was applied. */
  void fullSynced(long startNanos) {
    lastFullSync = startNanos;
  }

  long now() {
    return nanoTime.getAsLong();
  }

  private boolean due(long last, Duration period) {
    return last == NEVER || nanoTime.getAsLong() - last >= period.toNanos();
  }
}
