package dev.kubeproxy.config;

import dev.kubeproxy.net.HostPortText;
import dev.kubeproxy.net.IpAddresses;

import java.net.Inet4Address;
import java.time.Duration;
import java.util.TreeMap;

/**
 * The v1alpha1 defaulting function (pkg/proxy/apis/config/v1alpha1/defaults.go
 * SetDefaults_KubeProxyConfiguration): zero or absent means "take the default".
 */
public final class ConfigDefaults {
  private ConfigDefaults() {}

  public static final int HEALTHZ_PORT = 10256;
  public static final int METRICS_PORT = 10249;
  public static final int MASQUERADE_BIT = 14;

  /** A fully defaulted configuration, as the flags start from. */
  public static KubeProxyConfiguration defaulted() {
    KubeProxyConfiguration c = new KubeProxyConfiguration();
    apply(c);
    return c;
  }

  /**
   * The default of the field at a dotted v1alpha1 path as text, the way pflag prints a default:
   * durations in Go's form, numbers as Go prints them, an unset list as "[]", an unset map or string
   * as "", false. What --help, the -v=1 flag dump and an unset flag take.
   *
   * @throws IllegalArgumentException when the path names no field of the schema
   */
  public static String text(String path) {
    java.lang.reflect.Field field = ConfigFields.field(path);
    if (field == null) {
      throw new IllegalArgumentException("no field " + path + " in the configuration schema");
    }
    return ConfigFields.text(field, ConfigFields.get(defaulted(), path));
  }

  public static void apply(KubeProxyConfiguration c) {
    if (c.bindAddress == null || c.bindAddress.isEmpty()) {
      c.bindAddress = "0.0.0.0";
    }
    boolean v4 = IpAddresses.inetAddress(c.bindAddress) instanceof Inet4Address;
    String healthzHost = v4 ? "0.0.0.0" : "[::]";
    String metricsHost = v4 ? "127.0.0.1" : "[::1]";
    if (c.healthzBindAddress == null || c.healthzBindAddress.isEmpty()) {
      c.healthzBindAddress = healthzHost + ":" + HEALTHZ_PORT;
    } else {
      c.healthzBindAddress = HostPortText.appendPortIfNeeded(c.healthzBindAddress, HEALTHZ_PORT);
    }
    if (c.metricsBindAddress == null || c.metricsBindAddress.isEmpty()) {
      c.metricsBindAddress = metricsHost + ":" + METRICS_PORT;
    } else {
      c.metricsBindAddress = HostPortText.appendPortIfNeeded(c.metricsBindAddress, METRICS_PORT);
    }
    if (c.oomScoreAdj == null) {
      c.oomScoreAdj = -999;
    }
    if (isZero(c.iptables.syncPeriod)) {
      c.iptables.syncPeriod = SyncSettings.DEFAULT_SYNC_PERIOD;
    }
    if (isZero(c.iptables.minSyncPeriod)) {
      c.iptables.minSyncPeriod = SyncSettings.DEFAULT_MIN_SYNC_PERIOD;
    }
    if (c.iptables.localhostNodePorts == null) {
      c.iptables.localhostNodePorts = true;
    }
    if (isZero(c.ipvs.syncPeriod)) {
      c.ipvs.syncPeriod = SyncSettings.DEFAULT_SYNC_PERIOD;
    }
    if (isZero(c.nftables.syncPeriod)) {
      c.nftables.syncPeriod = SyncSettings.DEFAULT_SYNC_PERIOD;
    }
    if (isZero(c.nftables.minSyncPeriod)) {
      c.nftables.minSyncPeriod = SyncSettings.DEFAULT_MIN_SYNC_PERIOD;
    }
    if (c.conntrack.maxPerCore == null) {
      c.conntrack.maxPerCore = 32 * 1024;
    }
    if (c.conntrack.min == null) {
      c.conntrack.min = 128 * 1024;
    }
    if (c.iptables.masqueradeBit == null) {
      c.iptables.masqueradeBit = MASQUERADE_BIT;
    }
    if (c.nftables.masqueradeBit == null) {
      c.nftables.masqueradeBit = MASQUERADE_BIT;
    }
    if (c.conntrack.tcpEstablishedTimeout == null) {
      c.conntrack.tcpEstablishedTimeout = Duration.ofHours(24);
    }
    if (c.conntrack.tcpCloseWaitTimeout == null) {
      c.conntrack.tcpCloseWaitTimeout = Duration.ofHours(1);
    }
    if (isZero(c.configSyncPeriod)) {
      c.configSyncPeriod = Duration.ofMinutes(15);
    }
    if (c.clientConnection.contentType == null || c.clientConnection.contentType.isEmpty()) {
      c.clientConnection.contentType = "application/vnd.kubernetes.protobuf";
    }
    if (c.clientConnection.qps == 0.0f) {
      c.clientConnection.qps = 5.0f;
    }
    if (c.clientConnection.burst == 0) {
      c.clientConnection.burst = 10;
    }
    if (c.featureGates == null) {
      c.featureGates = new TreeMap<>();
    }
    // component-base's recommended logging configuration
    if (c.logging.format == null || c.logging.format.isEmpty()) {
      c.logging.format = "text";
    }
    if (isZero(c.logging.flushFrequency)) {
      c.logging.flushFrequency = Duration.ofSeconds(5);
    }
    if (c.logging.options.text.infoBufferSize == null || c.logging.options.text.infoBufferSize.isEmpty()) {
      c.logging.options.text.infoBufferSize = "0";
    }
    if (c.logging.options.json.infoBufferSize == null || c.logging.options.json.infoBufferSize.isEmpty()) {
      c.logging.options.json.infoBufferSize = "0";
    }
    // ipvs.minSyncPeriod has no default in v1alpha1 (stays 0s).
  }

  private static boolean isZero(Duration d) {
    return d == null || d.isZero();
  }
}
