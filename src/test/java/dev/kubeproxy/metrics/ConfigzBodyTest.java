package dev.kubeproxy.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.kubeproxy.config.ConfigzJson;
import dev.kubeproxy.config.KubeProxyConfiguration;
import dev.kubeproxy.testutil.TestConfigs;
import dev.kubeproxy.testutil.tier.Unit;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The /configz body this server answers with (built by config.ConfigzJson). */
@Unit
class ConfigzBodyTest {
  @Test
  void defaultsInUpstreamsInternalShape() throws Exception {
    KubeProxyConfiguration c = TestConfigs.defaults();
    assertEquals("{\"kubeproxy.config.k8s.io\":{"
        + "\"Linux\":{\"Conntrack\":{\"MaxPerCore\":32768,\"Min\":131072,\"TCPEstablishedTimeout\":\"24h0m0s\","
        + "\"TCPCloseWaitTimeout\":\"1h0m0s\",\"TCPBeLiberal\":false,\"UDPTimeout\":\"0s\",\"UDPStreamTimeout\":\"0s\"},"
        + "\"MasqueradeAll\":false,\"OOMScoreAdj\":-999},"
        + "\"Windows\":{\"RunAsService\":false},"
        + "\"FeatureGates\":{},"
        + "\"ClientConnection\":{\"Kubeconfig\":\"\",\"AcceptContentTypes\":\"\",\"ContentType\":\"application/vnd.kubernetes.protobuf\",\"QPS\":5,\"Burst\":10},"
        + "\"Logging\":{\"format\":\"text\",\"flushFrequency\":\"5s\",\"verbosity\":0,\"options\":{\"text\":{\"infoBufferSize\":\"0\"},\"json\":{\"infoBufferSize\":\"0\"}}},"
        + "\"HostnameOverride\":\"\",\"BindAddress\":\"0.0.0.0\",\"HealthzBindAddress\":\"0.0.0.0:10256\","
        + "\"MetricsBindAddress\":\"127.0.0.1:10249\",\"BindAddressHardFail\":false,\"EnableProfiling\":false,"
        + "\"ShowHiddenMetricsForVersion\":\"\",\"Mode\":\"iptables\","
        + "\"IPTables\":{\"MasqueradeBit\":14,\"LocalhostNodePorts\":true},"
        + "\"IPVS\":{\"Scheduler\":\"\",\"ExcludeCIDRs\":null,\"StrictARP\":false,\"TCPTimeout\":\"0s\",\"TCPFinTimeout\":\"0s\",\"UDPTimeout\":\"0s\"},"
        + "\"Winkernel\":{\"NetworkName\":\"\",\"SourceVip\":\"\",\"EnableDSR\":false,\"RootHnsEndpointName\":\"\",\"ForwardHealthCheckVip\":false},"
        + "\"NFTables\":{\"MasqueradeBit\":14},"
        + "\"DetectLocalMode\":\"ClusterCIDR\","
        + "\"DetectLocal\":{\"BridgeInterface\":\"\",\"ClusterCIDRs\":null,\"InterfaceNamePrefix\":\"\"},"
        + "\"NodePortAddresses\":null,\"SyncPeriod\":\"30s\",\"MinSyncPeriod\":\"1s\",\"ConfigSyncPeriod\":\"15m0s\"}}",
        ConfigzJson.encode(c));
  }

  @Test
  void setValuesAndModeSelectedPeriods() throws Exception {
    KubeProxyConfiguration c = TestConfigs.defaults();
    c.mode = "nftables";
    c.nftables.syncPeriod = java.time.Duration.ofSeconds(90);
    c.nftables.masqueradeAll = true;
    c.clusterCIDR = "10.244.0.0/16,fd00:10:244::/64";
    c.nodePortAddresses = List.of("192.168.200.10/32");
    c.clientConnection.qps = 0.5f;
    c.conntrack.maxPerCore = null;
    c.featureGates.put("NFTablesProxyMode", true);
    c.logging.vmodule = List.of(new KubeProxyConfiguration.VModuleItem("proxier*", 4));
    String json = ConfigzJson.encode(c);
    for (String part : List.of("\"Mode\":\"nftables\"", "\"SyncPeriod\":\"1m30s\"", "\"MasqueradeAll\":true",
        "\"ClusterCIDRs\":[\"10.244.0.0/16\",\"fd00:10:244::/64\"]", "\"NodePortAddresses\":[\"192.168.200.10/32\"]",
        "\"QPS\":0.5", "\"MaxPerCore\":null", "\"FeatureGates\":{\"NFTablesProxyMode\":true}",
        "\"verbosity\":0,\"vmodule\":[{\"filePattern\":\"proxier*\",\"verbosity\":4}],\"options\"")) {
      org.junit.jupiter.api.Assertions.assertTrue(json.contains(part), part + " in " + json);
    }
  }
}
