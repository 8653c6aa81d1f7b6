package dev.kubeproxy.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.kubeproxy.testutil.tier.Unit;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The sync timing resolved once from the configuration: defaults, the runner's intervals per mode. */
@Unit
class SyncSettingsTest {
  private static SyncSettings of(String mode, java.util.function.Consumer<KubeProxyConfiguration> edit) {
    KubeProxyConfiguration c = ConfigDefaults.defaulted();
    c.mode = mode;
    edit.accept(c);
    return c.syncSettings();
  }

  @Test
  void defaultsOfEveryMode() {
    for (String mode : new String[] {"", "iptables", "nftables"}) {
      SyncSettings s = of(mode, c -> { });
      assertEquals(Duration.ofSeconds(30), s.syncPeriod(), mode);
      assertEquals(Duration.ofSeconds(1), s.minSyncPeriod(), mode);
      assertEquals(Duration.ofSeconds(60), s.healthTimeout(), mode);
    }
    assertEquals(Duration.ZERO, of("ipvs", c -> { }).minSyncPeriod(), "ipvs.minSyncPeriod has no default");
  }

  @Test
  void iptablesAndNftablesWaitAnHourWithoutChangesIpvsOneSyncPeriod() {
    assertEquals(Duration.ofHours(1), of("iptables", c -> c.iptables.syncPeriod = Duration.ofSeconds(10)).maxInterval());
    assertEquals(Duration.ofHours(1), of("nftables", c -> c.nftables.syncPeriod = Duration.ofSeconds(10))
        .maxInterval());
    assertEquals(Duration.ofSeconds(10), of("ipvs", c -> c.ipvs.syncPeriod = Duration.ofSeconds(10)).maxInterval());
  }

  @Test
  void theActiveModesSectionCounts() {
    SyncSettings s = of("nftables", c -> {
      c.iptables.syncPeriod = Duration.ofSeconds(5);
      c.nftables.syncPeriod = Duration.ofSeconds(20);
      c.nftables.minSyncPeriod = Duration.ofSeconds(2);
    });
    assertEquals(Duration.ofSeconds(20), s.syncPeriod());
    assertEquals(Duration.ofSeconds(2), s.minSyncPeriod());
  }

  @Test
  void zeroMinSyncPeriodSyncsOnEveryChangeAndTheMinimumNeverExceedsTheMaximum() {
    assertEquals(Duration.ZERO, of("iptables", c -> c.iptables.minSyncPeriod = Duration.ZERO).minInterval());
    SyncSettings s = of("ipvs", c -> {
      c.ipvs.syncPeriod = Duration.ofSeconds(5);
      c.ipvs.minSyncPeriod = Duration.ofSeconds(8);
    });
    assertEquals(Duration.ofSeconds(5), s.minInterval());
    assertEquals(Duration.ofSeconds(8), of("nftables", c -> {
      c.nftables.syncPeriod = Duration.ofSeconds(5);
      c.nftables.minSyncPeriod = Duration.ofSeconds(8);
    }).minInterval());
  }

  @Test
  void unsetSyncPeriodTakesTheDefaultNegativePeriodsAreRefused() {
    assertEquals(Duration.ofSeconds(30), SyncSettings.of(ProxyMode.IPTABLES, Duration.ZERO, null).syncPeriod());
    assertEquals(Duration.ofSeconds(1), SyncSettings.of(ProxyMode.IPTABLES, null, null).minSyncPeriod());
    assertEquals("minSyncPeriod must be greater than or equal to 0, got -1s", assertThrows(IllegalArgumentException.class,
        () -> SyncSettings.of(ProxyMode.NFTABLES, Duration.ofSeconds(30), Duration.ofSeconds(-1))).getMessage());
    assertThrows(IllegalArgumentException.class, () -> SyncSettings.of(ProxyMode.NFTABLES, Duration.ofSeconds(-1), null));
  }

  @Test
  void anUnknownModeIsNotAMode() {
    KubeProxyConfiguration c = ConfigDefaults.defaulted();
    c.mode = "userspace";
    assertEquals("unknown proxy mode \"userspace\" (validation rejects it)",
        assertThrows(IllegalStateException.class, c::proxyMode).getMessage());
  }
}
