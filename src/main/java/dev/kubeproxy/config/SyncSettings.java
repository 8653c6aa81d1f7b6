package dev.kubeproxy.config;

import dev.kubeproxy.gotext.GoDuration;

import java.time.Duration;
import java.util.Objects;

/**
 * The configured mode's sync timing, resolved once from the configuration: what the proxy layer's
 * sync runner and backends receive instead of reading durations and modes themselves.
 *
 * <p>Upstream since 1.34 (pkg/proxy/runner.go): the sync runner of iptables and nftables mode runs
 * at least once an hour even without a change, and their syncProxyRules rewrites everything when
 * the last full sync is more than {@link #FULL_SYNC_PERIOD} ago (iptables: not in large clusters,
 * 1.37); a failed sync is retried after syncPeriod. ipvs mode runs every syncPeriod again since 1.36.
 * syncPeriod itself paces the cheap checks between the full syncs: iptables' canary chains, nftables'
 * commit generation, and in large clusters iptables' stale-chain scan.
 *
 * @param syncPeriod    upstream's internal SyncPeriod (the active mode's section): the retry delay
 *                      after a failed sync and the period of the rules check; positive
 * @param minSyncPeriod upstream's internal MinSyncPeriod: the least time between two syncs after the
 *                      burst; zero syncs on every change
 * @param maxInterval   the longest the sync runner waits without a change: an hour in iptables and
 *                      nftables mode, syncPeriod in ipvs mode
 */
public record SyncSettings(Duration syncPeriod, Duration minSyncPeriod, Duration maxInterval) {
  /** The v1alpha1 default of every mode's syncPeriod (pkg/proxy/apis/config/v1alpha1 defaults.go). */
  public static final Duration DEFAULT_SYNC_PERIOD = Duration.ofSeconds(30);
  /** The v1alpha1 default of iptables.minSyncPeriod and nftables.minSyncPeriod. */
  public static final Duration DEFAULT_MIN_SYNC_PERIOD = Duration.ofSeconds(1);
  /** How often iptables and nftables mode rewrite (or read back) all their rules (pkg/proxy/util FullSyncPeriod). */
  public static final Duration FULL_SYNC_PERIOD = Duration.ofHours(1);
  static final Duration IPTABLES_MAX_INTERVAL = FULL_SYNC_PERIOD;

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
    return new SyncSettings(sync, minSync, mode == ProxyMode.IPVS ? sync : FULL_SYNC_PERIOD);
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
