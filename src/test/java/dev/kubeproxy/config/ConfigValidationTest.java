package dev.kubeproxy.config;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.kubeproxy.testutil.tier.Unit;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

@Unit
class ConfigValidationTest {
  private static final FeatureGates DEFAULT_GATES = FeatureGates.apply(Map.of()).gates();

  /** A completed, valid configuration (flags-only defaults). */
  private static KubeProxyConfiguration valid() {
    KubeProxyConfiguration c = ConfigDefaults.defaulted();
    c.mode = "iptables";
    c.detectLocalMode = "ClusterCIDR";
    return c;
  }

  private static List<String> errors(Consumer<KubeProxyConfiguration> change) {
    KubeProxyConfiguration c = valid();
    change.accept(c);
    return ConfigValidation.validate(c, DEFAULT_GATES);
  }

  private static void assertError(String expected, Consumer<KubeProxyConfiguration> change) {
    assertEquals(List.of(expected), errors(change));
  }

  @Test
  void defaultsAreValid() {
    assertEquals(List.of(), errors(c -> { }));
    assertEquals(List.of(), errors(c -> {
      c.mode = "nftables";
      c.nodePortAddresses = List.of("primary");
    }));
  }

  @Test
  void iptablesMasqueradeBitInEveryMode() {
    assertError("KubeProxyConfiguration.KubeProxyIPTablesConfiguration.MasqueradeBit: Invalid value: 32: "
        + "must be within the range [0, 31]", c -> c.iptables.masqueradeBit = 32);
    assertError("KubeProxyConfiguration.KubeProxyIPTablesConfiguration.MasqueradeBit: Invalid value: -1: "
        + "must be within the range [0, 31]", c -> {
          c.mode = "nftables";
          c.iptables.masqueradeBit = -1;
        });
  }

  @Test
  void ipvsRulesOnlyInIpvsMode() {
    assertEquals(List.of(), errors(c -> c.ipvs.tcpTimeout = Duration.ofSeconds(-1)));
    assertEquals(List.of(
        "KubeProxyConfiguration.KubeProxyIPVSConfiguration.TCPTimeout: Invalid value: -1s: must be greater than or equal to 0",
        "KubeProxyConfiguration.KubeProxyIPVSConfiguration.TCPFinTimeout: Invalid value: -2s: must be greater than or equal to 0",
        "KubeProxyConfiguration.KubeProxyIPVSConfiguration.UDPTimeout: Invalid value: -3s: must be greater than or equal to 0",
        "KubeProxyConfiguration.KubeProxyIPVSConfiguration.ExcludeCidrs[1]: Invalid value: \"x\": must be a valid CIDR"),
        errors(c -> {
          c.mode = "ipvs";
          c.ipvs.tcpTimeout = Duration.ofSeconds(-1);
          c.ipvs.tcpFinTimeout = Duration.ofSeconds(-2);
          c.ipvs.udpTimeout = Duration.ofSeconds(-3);
          c.ipvs.excludeCIDRs = List.of("10.0.0.0/8", "x");
        }));
  }

  @Test
  void nftablesMasqueradeBitOnlyInNftablesMode() {
    assertEquals(List.of(), errors(c -> c.nftables.masqueradeBit = 40));
    assertError("KubeProxyConfiguration.KubeProxyNFTablesConfiguration.MasqueradeBit: Invalid value: 40: "
        + "must be within the range [0, 31]", c -> {
          c.mode = "nftables";
          c.nftables.masqueradeBit = 40;
        });
  }

  @Test
  void conntrackAndOomScore() {
    String ct = "KubeProxyConfiguration.KubeProxyLinuxConfiguration.KubeProxyConntrackConfiguration.";
    assertEquals(List.of(
        ct + "MaxPerCore: Invalid value: -1: must be greater than or equal to 0",
        ct + "Min: Invalid value: -2: must be greater than or equal to 0",
        ct + "TCPEstablishedTimeout: Invalid value: -1s: must be greater than or equal to 0",
        ct + "TCPCloseWaitTimeout: Invalid value: -1m0s: must be greater than or equal to 0",
        ct + "UDPTimeout: Invalid value: -500ms: must be greater than or equal to 0",
        ct + "UDPStreamTimeout: Invalid value: -1h0m0s: must be greater than or equal to 0",
        "KubeProxyConfiguration.KubeProxyLinuxConfiguration.OOMScoreAdj: Invalid value: 1001: "
            + "must be within the range [-1000, 1000]"),
        errors(c -> {
          c.conntrack.maxPerCore = -1;
          c.conntrack.min = -2;
          c.conntrack.tcpEstablishedTimeout = Duration.ofSeconds(-1);
          c.conntrack.tcpCloseWaitTimeout = Duration.ofMinutes(-1);
          c.conntrack.udpTimeout = Duration.ofMillis(-500);
          c.conntrack.udpStreamTimeout = Duration.ofHours(-1);
          c.oomScoreAdj = 1001;
        }));
  }

  @Test
  void mode() {
    assertError("KubeProxyConfiguration.Mode.ProxyMode: Invalid value: \"foo\": must be iptables, ipvs, nftables or "
        + "blank (blank means the best-available proxy [currently iptables])", c -> c.mode = "foo");
    KubeProxyConfiguration c = valid();
    c.mode = "ipvs";
    assertEquals(List.of("KubeProxyConfiguration.Mode.ProxyMode: Invalid value: \"ipvs\": must be iptables, "
        + "nftables or blank (blank means the best-available proxy [currently iptables])"),
        ConfigValidation.validate(c, FeatureGates.apply(Map.of("KubeProxyIPVS", false)).gates()));
    assertEquals(List.of(), ConfigValidation.validate(c, FeatureGates.apply(Map.of()).gates()));
  }

  @Test
  void clientAndPeriods() {
    assertError("KubeProxyConfiguration.ClientConnection.Burst: Invalid value: -1: must be greater than or equal to 0",
        c -> c.clientConnection.burst = -1);
    assertError("KubeProxyConfiguration.ConfigSyncPeriod: Invalid value: -1s: must be greater than 0",
        c -> c.configSyncPeriod = Duration.ofSeconds(-1));
    assertError("KubeProxyConfiguration.SyncPeriod: Invalid value: 0s: must be greater than 0", c -> {
      c.iptables.syncPeriod = Duration.ZERO;
      c.iptables.minSyncPeriod = Duration.ZERO;
    });
    assertError("KubeProxyConfiguration.MinSyncPeriod: Invalid value: -1s: must be greater than or equal to 0",
        c -> c.iptables.minSyncPeriod = Duration.ofSeconds(-1));
    assertError("KubeProxyConfiguration.SyncPeriod: Invalid value: 1m0s: must be greater than or equal to "
        + "KubeProxyConfiguration.MinSyncPeriod", c -> c.iptables.minSyncPeriod = Duration.ofMinutes(1));
  }

  @Test
  void syncPeriodsAreTheActiveModes() {
    assertEquals(List.of(), errors(c -> c.nftables.syncPeriod = Duration.ZERO));
    assertError("KubeProxyConfiguration.SyncPeriod: Invalid value: 0s: must be greater than 0", c -> {
      c.mode = "ipvs";
      c.ipvs.syncPeriod = Duration.ZERO;
    });
  }

  @Test
  void addresses() {
    assertError("KubeProxyConfiguration.BindAddress: Invalid value: \"x\": not a valid textual representation of "
        + "an IP address", c -> c.bindAddress = "x");
    assertEquals(List.of(), errors(c -> c.healthzBindAddress = ""));
    assertError("KubeProxyConfiguration.HealthzBindAddress: Invalid value: \"1.2.3.4\": must be IP:port",
        c -> c.healthzBindAddress = "1.2.3.4");
    assertError("KubeProxyConfiguration.HealthzBindAddress: Invalid value: \"foo\": must be a valid IP",
        c -> c.healthzBindAddress = "foo:1");
    assertError("KubeProxyConfiguration.HealthzBindAddress: Invalid value: \"0\": must be a valid port",
        c -> c.healthzBindAddress = "0.0.0.0:0");
    assertError("KubeProxyConfiguration.MetricsBindAddress: Invalid value: \"\": must be IP:port",
        c -> c.metricsBindAddress = "");
    assertEquals(List.of(
        "KubeProxyConfiguration.MetricsBindAddress: Invalid value: \"host\": must be a valid IP",
        "KubeProxyConfiguration.MetricsBindAddress: Invalid value: \"65536\": must be a valid port"),
        errors(c -> c.metricsBindAddress = "host:65536"));
    assertEquals(List.of(), errors(c -> c.metricsBindAddress = "[::1]:10249"));
  }

  @Test
  void nodePortAddresses() {
    assertError("KubeProxyConfiguration.NodePortAddresses[1]: Invalid value: \"x\": must be a valid CIDR or one of "
        + "the keywords 'primary', 'localhost', 'all'", c -> c.nodePortAddresses = List.of("10.0.0.0/8", "x"));
    // 1.37: the keywords mix with each other and with CIDRs; each may appear once
    assertEquals(List.of(), errors(c -> c.nodePortAddresses = List.of("10.0.0.0/8", "primary", "localhost", "all")));
    assertEquals(List.of(), errors(c -> c.nodePortAddresses = List.of("localhost")));
    assertEquals(List.of(
        "KubeProxyConfiguration.NodePortAddresses[2]: Duplicate value: \"primary\"",
        "KubeProxyConfiguration.NodePortAddresses[3]: Invalid value: \"loopback\": must be a valid CIDR or one of "
            + "the keywords 'primary', 'localhost', 'all'",
        "KubeProxyConfiguration.NodePortAddresses[4]: Invalid value: \"10.0.0.0/33\": must be a valid CIDR or one "
            + "of the keywords 'primary', 'localhost', 'all'"),
        errors(c -> c.nodePortAddresses = List.of("primary", "localhost", "primary", "loopback", "10.0.0.0/33")));
  }

  @Test
  void hiddenMetricsVersion() {
    assertEquals(List.of(), errors(c -> c.showHiddenMetricsForVersion = "1.30"));
    assertError("KubeProxyConfiguration.ShowHiddenMetricsForVersion: Invalid value: \"1.2\": "
        + "--show-hidden-metrics-for-version must be omitted or have the value '1.30'. Only the previous minor "
        + "version is allowed", c -> c.showHiddenMetricsForVersion = "1.2");
  }

  @Test
  void detectLocal() {
    assertError("KubeProxyConfiguration.DetectLocalMode: Unsupported value: \"foo\": supported values: "
        + "\"ClusterCIDR\", \"NodeCIDR\", \"BridgeInterface\", \"InterfaceNamePrefix\", \"\"",
        c -> c.detectLocalMode = "foo");
    assertError("KubeProxyConfiguration.DetectLocalConfiguration.InterfaceName: Invalid value: \"\": must not be "
        + "empty", c -> c.detectLocalMode = "BridgeInterface");
    assertError("KubeProxyConfiguration.DetectLocalConfiguration.InterfacePrefix: Invalid value: \"\": must not be "
        + "empty", c -> c.detectLocalMode = "InterfaceNamePrefix");
    assertEquals(List.of(), errors(c -> c.clusterCIDR = "10.244.0.0/16,fd00:10:244::/64"));
    assertError("KubeProxyConfiguration.DetectLocalConfiguration.ClusterCIDRs: Invalid value: "
        + "[]string{\"10.0.0.0/8\", \"10.1.0.0/16\"}: must be a either a single CIDR or dual-stack pair of CIDRs "
        + "(e.g. [10.100.0.0/16, fde4:8dba:82e1::/48]", c -> c.clusterCIDR = "10.0.0.0/8,10.1.0.0/16");
    assertError("KubeProxyConfiguration.DetectLocalConfiguration.ClusterCIDRs[0]: Invalid value: \"bad\": must be "
        + "a valid CIDR block (e.g. 10.100.0.0/16 or fde4:8dba:82e1::/48)", c -> c.clusterCIDR = "bad");
    assertEquals(List.of(), errors(c -> {
      c.detectLocalMode = "NodeCIDR";
      c.clusterCIDR = "bad";
    }), "cluster CIDRs are only checked in ClusterCIDR mode");
  }

  @Test
  void logging() {
    assertError("KubeProxyConfiguration.logging.flushFrequency: Invalid value: \"-1s\": must be positive",
        c -> c.logging.flushFrequency = Duration.ofSeconds(-1));
    assertError("KubeProxyConfiguration.logging.format: Unsupported value: \"xml\": supported values: \"json\", "
        + "\"text\"", c -> c.logging.format = "xml");
    assertError("KubeProxyConfiguration.logging.options.text.splitStream: Forbidden: Feature LoggingAlphaOptions is "
        + "disabled", c -> c.logging.options.text.splitStream = true);
  }

  @Test
  void allErrorsAreReportedTogether() {
    List<String> errs = errors(c -> {
      c.iptables.masqueradeBit = 32;
      c.bindAddress = "x";
      c.clientConnection.burst = -1;
    });
    assertEquals(3, errs.size());
    assertEquals("[KubeProxyConfiguration.KubeProxyIPTablesConfiguration.MasqueradeBit: Invalid value: 32: must be "
        + "within the range [0, 31], KubeProxyConfiguration.ClientConnection.Burst: Invalid value: -1: must be "
        + "greater than or equal to 0, KubeProxyConfiguration.BindAddress: Invalid value: \"x\": not a valid textual "
        + "representation of an IP address]", ConfigValidation.aggregate(errs));
    assertEquals("one", ConfigValidation.aggregate(List.of("one")));
  }
}
