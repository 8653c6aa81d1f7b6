package dev.kubeproxy.backend.iptables;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kubeproxy.testutil.tier.Unit;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** iptables mode's periodic full restore follows upstream's hour, not syncPeriod; large clusters skip it. */
@Unit
class FullSyncCadenceTest {
  private final AtomicLong now = new AtomicLong(1_000_000_000L);
  private final FullSyncCadence cadence = new FullSyncCadence(now::get, Duration.ofSeconds(30));

  private void advance(Duration d) {
    now.addAndGet(d.toNanos());
  }

  @Test
  void aFullSyncAnHourAfterTheLastNotEverySyncPeriod() {
    assertTrue(cadence.periodicFullSyncDue(false), "nothing synced yet");
    cadence.fullSynced(now.get());
    advance(Duration.ofSeconds(31));
    assertFalse(cadence.periodicFullSyncDue(false), "one syncPeriod later the restore stays partial");
    advance(Duration.ofMinutes(59));
    assertFalse(cadence.periodicFullSyncDue(false));
    advance(Duration.ofSeconds(30));
    assertTrue(cadence.periodicFullSyncDue(false), "an hour after the last full sync");
  }

  @Test
  void largeClustersHaveNoPeriodicFullSyncButScanForStaleChainsOncePerSyncPeriod() {
    cadence.fullSynced(now.get());
    advance(Duration.ofHours(5));
    assertFalse(cadence.periodicFullSyncDue(true));
    assertTrue(cadence.staleScanDue(true));
    cadence.staleScanned();
    advance(Duration.ofSeconds(10));
    assertFalse(cadence.staleScanDue(true));
    assertTrue(cadence.staleScanDue(false), "smaller clusters scan at every partial sync");
    advance(Duration.ofSeconds(20));
    assertTrue(cadence.staleScanDue(true));
  }
}
