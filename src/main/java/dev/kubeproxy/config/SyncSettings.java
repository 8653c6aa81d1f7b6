package dev.kubeproxy.config;

import dev.kubeproxy.gotext.GoDuration;

import java.time.Duration;
import java.util.Objects;

/**
 * The configured mode's sync timing, resolved once from the configuration: what the proxy layer's
 * sync runner and backends receive instead of reading durations and modes themselves.
 *
 * @param syncPeriod    upstream's internal SyncPeriod (the active mode's section): the period of full
 *                      syncs and of the rules check; positive
 * @param minSyncPeriod upstream's internal MinSyncPeriod: the least time between two syncs after the
 *                      burst; zero syncs on every change
 * @param maxInterval   the longest the sync runner waits without a change: an hour in iptables mode
 *                      (pkg/proxy/iptables/proxier.go NewProxier), syncPeriod in ipvs and nftables mode
 *                      (pkg/proxy/ipvs/proxier.go, pkg/proxy/nftables/proxier.go NewProxier)
 */
public record SyncSettings(Duration syncPeriod, Duration minSyncPeriod, Duration maxInterval) {
  /** The v1alpha1 default of every mode's syncPeriod (pkg/proxy/apis/config/v1alpha1 defaults.go). */
  public static final Duration DEFAULT_SYNC_PERIOD = Duration.ofSeconds(30);
  /** The v1alpha1 default of iptables.minSyncPeriod and nftables.minSyncPeriod. */
  public static final Duration DEFAULT_MIN_SYNC_PERIOD = Duration.ofSeconds(1);
  static final Duration IPTABLES_MAX_INTERVAL = Duration.ofHours(1);

  /** The defaults of iptables mode, for what runs without a configuration (the leftover cleanup). */
  public static final SyncSettings DEFAULTS =
      new SyncSettings(DEFAULT_SYNC_PERIOD, DEFAULT_MIN_SYNC_PERIOD, IPTABLES_MAX_INTERVAL);

  public SyncSettings {
    Objects.requireNonNull(syncPeriod, "syncPeriod");
    Objects.requireNonNull(minSyncPeriod, "minSyncPeriod");
    Objects.requireNonNull(maxInterval, "maxInterval");
    if (syncPeriod.isNegative() || syncPeriod.isZero()) {
      throw new IllegalArgumentException("syncPeriod must be greater than 0, got " + GoDuration.format(syncPeriod));
    }
    if (minSyncPeriod.isNegative()) {
      throw new IllegalArgumentException("minSyncPeriod must be greater than or equal to 0, got "
          + GoDuration.format(minSyncPeriod));
    }
  }

  /**
   * The settings of a mode. An unset (null or zero) syncPeriod takes the default; a negative period
   * is an error here as in validation ({@link ConfigValidation} reports it before the agent starts).
   */
  public static SyncSettings of(ProxyMode mode, Duration syncPeriod, Duration minSyncPeriod) {
    Duration sync = syncPeriod == null || syncPeriod.isZero() ? DEFAULT_SYNC_PERIOD : syncPeriod;
    Duration minSync = minSyncPeriod == null ? DEFAULT_MIN_SYNC_PERIOD : minSyncPeriod;
    return new SyncSettings(sync, minSync, mode == ProxyMode.IPTABLES ? IPTABLES_MAX_INTERVAL : sync);
  }

  /** The sync runner's minimum interval: minSyncPeriod, but never longer than maxInterval. */
  public Duration minInterval() {
    return minSyncPeriod.compareTo(maxInterval) > 0 ? maxInterval : minSyncPeriod;
  }

  /**
   * How long /healthz waits for a sync before it reports unhealthy: twice syncPeriod (cmd/kube-
   * proxy/app/server.go newProxyServer).
   */
  public Duration healthTimeout() {
    return syncPeriod.multipliedBy(2);
  }
}
