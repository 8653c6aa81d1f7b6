package dev.kubeproxy.testutil;

import dev.kubeproxy.config.AgentOptions;
import dev.kubeproxy.config.KubeProxyConfiguration;
import java.time.Duration;
import java.util.function.Consumer;

/** Configurations with upstream's defaults for the fields the HTTP servers and platform setup read. */
public final class TestConfigs {
  private TestConfigs() {}

  public static KubeProxyConfiguration defaults() {
    KubeProxyConfiguration c = new KubeProxyConfiguration();
    c.mode = "iptables";
    c.bindAddress = "0.0.0.0";
    c.healthzBindAddress = "0.0.0.0:10256";
    c.metricsBindAddress = "127.0.0.1:10249";
    c.iptables.syncPeriod = Duration.ofSeconds(30);
    c.iptables.minSyncPeriod = Duration.ofSeconds(1);
    c.iptables.masqueradeBit = 14;
    c.iptables.localhostNodePorts = true;
    c.nftables.syncPeriod = Duration.ofSeconds(30);
    c.nftables.minSyncPeriod = Duration.ofSeconds(1);
    c.nftables.masqueradeBit = 14;
    c.ipvs.syncPeriod = Duration.ofSeconds(30);
    c.configSyncPeriod = Duration.ofMinutes(15);
    c.oomScoreAdj = -999;
    c.conntrack.maxPerCore = 32768;
    c.conntrack.min = 131072;
    c.conntrack.tcpEstablishedTimeout = Duration.ofHours(24);
    c.conntrack.tcpCloseWaitTimeout = Duration.ofHours(1);
    c.detectLocalMode = "ClusterCIDR";
    c.clientConnection.contentType = "application/vnd.kubernetes.protobuf";
    c.clientConnection.qps = 5;
    c.clientConnection.burst = 10;
    c.logging.format = "text";
    c.logging.flushFrequency = Duration.ofSeconds(5);
    return c;
  }

  public static AgentOptions options(Consumer<KubeProxyConfiguration> edit) {
    KubeProxyConfiguration c = defaults();
    edit.accept(c);
    return new AgentOptions(c, null, "node-1", null, false, false, false);
  }
}
