package dev.kubeproxy.config;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.kubeproxy.testutil.tier.Unit;
import io.vertx.core.json.JsonObject;
import java.util.List;
import org.junit.jupiter.api.Test;

@Unit
class ConfigzJsonTest {
  @Test
  void flagsOnlyDefaultsInUpstreamsShapeAndOrder() {
    KubeProxyConfiguration c = ConfigDefaults.defaulted();
    c.mode = "iptables";
    c.detectLocalMode = "ClusterCIDR";
    String expected = "{\"kubeproxy.config.k8s.io\":{"
        + "\"Linux\":{\"Conntrack\":{\"MaxPerCore\":32768,\"Min\":131072,\"TCPEstablishedTimeout\":\"24h0m0s\","
        + "\"TCPCloseWaitTimeout\":\"1h0m0s\",\"TCPBeLiberal\":false,\"UDPTimeout\":\"0s\",\"UDPStreamTimeout\":\"0s\"},"
        + "\"MasqueradeAll\":false,\"OOMScoreAdj\":-999},"
        + "\"Windows\":{\"RunAsService\":false},"
        + "\"FeatureGates\":{},"
        + "\"ClientConnection\":{\"Kubeconfig\":\"\",\"AcceptContentTypes\":\"\",\"ContentType\":"
        + "\"application/vnd.kubernetes.protobuf\",\"QPS\":5,\"Burst\":10},"
        + "\"Logging\":{\"format\":\"text\",\"flushFrequency\":\"5s\",\"verbosity\":0,\"options\":{\"text\":"
        + "{\"infoBufferSize\":\"0\"},\"json\":{\"infoBufferSize\":\"0\"}}},"
        + "\"HostnameOverride\":\"\",\"BindAddress\":\"0.0.0.0\",\"HealthzBindAddress\":\"0.0.0.0:10256\","
        + "\"MetricsBindAddress\":\"127.0.0.1:10249\",\"BindAddressHardFail\":false,\"EnableProfiling\":false,"
        + "\"ShowHiddenMetricsForVersion\":\"\",\"Mode\":\"iptables\","
        + "\"IPTables\":{\"MasqueradeBit\":14,\"LocalhostNodePorts\":true},"
        + "\"IPVS\":{\"Scheduler\":\"\",\"ExcludeCIDRs\":null,\"StrictARP\":false,\"TCPTimeout\":\"0s\","
        + "\"TCPFinTimeout\":\"0s\",\"UDPTimeout\":\"0s\"},"
        + "\"Winkernel\":{\"NetworkName\":\"\",\"SourceVip\":\"\",\"EnableDSR\":false,\"RootHnsEndpointName\":\"\","
        + "\"ForwardHealthCheckVip\":false},"
        + "\"NFTables\":{\"MasqueradeBit\":14},"
        + "\"DetectLocalMode\":\"ClusterCIDR\","
        + "\"DetectLocal\":{\"BridgeInterface\":\"\",\"ClusterCIDRs\":null,\"InterfaceNamePrefix\":\"\"},"
        + "\"NodePortAddresses\":null,\"SyncPeriod\":\"30s\",\"MinSyncPeriod\":\"1s\",\"ConfigSyncPeriod\":\"15m0s\"}}";
    assertEquals(expected, ConfigzJson.encode(c));
  }

  @Test
  void internalValuesFollowTheMode() {
    KubeProxyConfiguration c = ConfigDefaults.defaulted();
    c.mode = "nftables";
    c.nftables.masqueradeAll = true;
    c.nftables.syncPeriod = java.time.Duration.ofSeconds(10);
    c.clusterCIDR = "10.244.0.0/16,fd00:10:244::/64";
    c.nodePortAddresses = List.of("primary");
    JsonObject o = ConfigzJson.internal(c);
    assertEquals(Boolean.TRUE, o.getJsonObject("Linux").getBoolean("MasqueradeAll"));
    assertEquals("10s", o.getString("SyncPeriod"));
    assertEquals(List.of("10.244.0.0/16", "fd00:10:244::/64"),
        o.getJsonObject("DetectLocal").getJsonArray("ClusterCIDRs").getList());
    assertEquals(List.of("primary"), o.getJsonArray("NodePortAddresses").getList());
  }

  @Test
  void loggingIsComponentBasesTypeInStructOrder() {
    KubeProxyConfiguration c = ConfigDefaults.defaulted();
    c.logging.verbosity = 4;
    c.logging.vmodule = List.of(new KubeProxyConfiguration.VModuleItem("proxy*", 5));
    c.logging.options.json.splitStream = true;
    assertEquals("{\"format\":\"text\",\"flushFrequency\":\"5s\",\"verbosity\":4,\"vmodule\":[{\"filePattern\":"
        + "\"proxy*\",\"verbosity\":5}],\"options\":{\"text\":{\"infoBufferSize\":\"0\"},\"json\":"
        + "{\"splitStream\":true,\"infoBufferSize\":\"0\"}}}", ConfigzJson.internal(c).getJsonObject("Logging").encode());
    c.logging.format = "";
    assertEquals(false, ConfigzJson.internal(c).getJsonObject("Logging").containsKey("format"), "omitempty");
  }
}
