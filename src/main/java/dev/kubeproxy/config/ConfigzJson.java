package dev.kubeproxy.config;

import dev.kubeproxy.gotext.GoDuration;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The body of /configz (cmd/kube-proxy/app/server.go newProxyServer registers the internal
 * configuration with component-base/configz): one section, "kubeproxy.config.k8s.io", holding
 * upstream's internal configuration the way Go's encoding/json prints it: PascalCase field names in
 * struct order, durations as strings, nil slices as null, the logging section in camelCase.
 */
public final class ConfigzJson {
  private ConfigzJson() {}

  public static final String SECTION = "kubeproxy.config.k8s.io";

  /** {@code {"kubeproxy.config.k8s.io": {...}}}. */
  public static JsonObject of(KubeProxyConfiguration c) {
    return new JsonObject().put(SECTION, internal(c));
  }

  /** The single-line JSON text /configz answers with. */
  public static String encode(KubeProxyConfiguration c) {
    return of(c).encode();
  }

  /** The internal configuration object alone. */
  public static JsonObject internal(KubeProxyConfiguration c) {
    JsonObject conntrack = new JsonObject()
        .put("MaxPerCore", c.conntrack.maxPerCore)
        .put("Min", c.conntrack.min)
        .put("TCPEstablishedTimeout", duration(c.conntrack.tcpEstablishedTimeout))
        .put("TCPCloseWaitTimeout", duration(c.conntrack.tcpCloseWaitTimeout))
        .put("TCPBeLiberal", c.conntrack.tcpBeLiberal)
        .put("UDPTimeout", duration(c.conntrack.udpTimeout))
        .put("UDPStreamTimeout", duration(c.conntrack.udpStreamTimeout));
    JsonObject o = new JsonObject();
    o.put("Linux", new JsonObject()
        .put("Conntrack", conntrack)
        .put("MasqueradeAll", c.masqueradeAll())
        .put("OOMScoreAdj", c.oomScoreAdj));
    o.put("Windows", new JsonObject().put("RunAsService", c.windowsRunAsService));
    o.put("FeatureGates", new JsonObject(new TreeMap<String, Object>(
        c.featureGates == null ? Map.of() : c.featureGates)));
    o.put("ClientConnection", new JsonObject()
        .put("Kubeconfig", c.clientConnection.kubeconfig)
        .put("AcceptContentTypes", c.clientConnection.acceptContentTypes)
        .put("ContentType", c.clientConnection.contentType)
        .put("QPS", GoValues.float32Number(c.clientConnection.qps))
        .put("Burst", c.clientConnection.burst));
    o.put("Logging", logging(c.logging));
    o.put("HostnameOverride", c.hostnameOverride);
    o.put("BindAddress", c.bindAddress);
    o.put("HealthzBindAddress", c.healthzBindAddress);
    o.put("MetricsBindAddress", c.metricsBindAddress);
    o.put("BindAddressHardFail", c.bindAddressHardFail);
    o.put("EnableProfiling", c.enableProfiling);
    o.put("ShowHiddenMetricsForVersion", c.showHiddenMetricsForVersion);
    o.put("Mode", c.mode);
    o.put("IPTables", new JsonObject()
        .put("MasqueradeBit", c.iptables.masqueradeBit)
        .put("LocalhostNodePorts", c.iptables.localhostNodePorts));
    o.put("IPVS", new JsonObject()
        .put("Scheduler", c.ipvs.scheduler)
        .put("ExcludeCIDRs", list(c.ipvs.excludeCIDRs))
        .put("StrictARP", c.ipvs.strictARP)
        .put("TCPTimeout", duration(c.ipvs.tcpTimeout))
        .put("TCPFinTimeout", duration(c.ipvs.tcpFinTimeout))
        .put("UDPTimeout", duration(c.ipvs.udpTimeout)));
    o.put("Winkernel", new JsonObject()
        .put("NetworkName", c.winkernel.networkName)
        .put("SourceVip", c.winkernel.sourceVip)
        .put("EnableDSR", c.winkernel.enableDSR)
        .put("RootHnsEndpointName", c.winkernel.rootHnsEndpointName)
        .put("ForwardHealthCheckVip", c.winkernel.forwardHealthCheckVip));
    o.put("NFTables", new JsonObject().put("MasqueradeBit", c.nftables.masqueradeBit));
    o.put("DetectLocalMode", c.detectLocalMode);
    List<String> clusterCIDRs = c.clusterCIDRs();
    o.put("DetectLocal", new JsonObject()
        .put("BridgeInterface", c.detectLocal.bridgeInterface)
        .put("ClusterCIDRs", clusterCIDRs.isEmpty() ? null : new JsonArray(clusterCIDRs))
        .put("InterfaceNamePrefix", c.detectLocal.interfaceNamePrefix));
    o.put("NodePortAddresses", list(c.nodePortAddresses));
    o.put("SyncPeriod", duration(c.syncPeriod()));
    o.put("MinSyncPeriod", duration(c.minSyncPeriod()));
    o.put("ConfigSyncPeriod", duration(c.configSyncPeriod));
    return o;
  }

  /**
   * component-base's LoggingConfiguration: the same Go type in v1alpha1 and the internal
   * configuration, so its JSON is the schema's own, in struct order.
   */
  private static JsonObject logging(KubeProxyConfiguration.Logging l) {
    return new JsonObject(ConfigSchema.structOrderTree(l).toString());
  }

  private static String duration(Duration d) {
    return d == null ? null : GoDuration.format(d);
  }

  private static JsonArray list(List<String> l) {
    return l == null ? null : new JsonArray(List.copyOf(l));
  }
}
