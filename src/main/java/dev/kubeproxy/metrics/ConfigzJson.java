package dev.kubeproxy.metrics;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kubeproxy.config.KubeProxyConfiguration;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The /configz body (observability.md §6): one section, "kubeproxy.config.k8s.io", holding the
 * effective configuration in the shape of upstream's internal type marshalled by Go's
 * encoding/json — Go field names in struct order, durations as Go duration strings, unset
 * pointers as null, nil lists as null, the logging section with its camelCase JSON tags.
 */
public final class ConfigzJson {
  public static final String SECTION = "kubeproxy.config.k8s.io";
  private static final ObjectMapper JSON = new ObjectMapper().enable(JsonGenerator.Feature.WRITE_BIGDECIMAL_AS_PLAIN);

  private ConfigzJson() {}

  public static String of(KubeProxyConfiguration c) throws JsonProcessingException {
    Map<String, Object> root = new LinkedHashMap<>();
    root.put(SECTION, internal(c));
    return JSON.writeValueAsString(root);
  }

  static Map<String, Object> internal(KubeProxyConfiguration c) {
    Map<String, Object> m = new LinkedHashMap<>();
    Map<String, Object> conntrack = new LinkedHashMap<>();
    conntrack.put("MaxPerCore", c.conntrack.maxPerCore);
    conntrack.put("Min", c.conntrack.min);
    conntrack.put("TCPEstablishedTimeout", duration(c.conntrack.tcpEstablishedTimeout));
    conntrack.put("TCPCloseWaitTimeout", duration(c.conntrack.tcpCloseWaitTimeout));
    conntrack.put("TCPBeLiberal", c.conntrack.tcpBeLiberal);
    conntrack.put("UDPTimeout", durationOrZero(c.conntrack.udpTimeout));
    conntrack.put("UDPStreamTimeout", durationOrZero(c.conntrack.udpStreamTimeout));
    Map<String, Object> linux = new LinkedHashMap<>();
    linux.put("Conntrack", conntrack);
    linux.put("MasqueradeAll", c.masqueradeAll());
    linux.put("OOMScoreAdj", c.oomScoreAdj);
    m.put("Linux", linux);
    m.put("Windows", Map.of("RunAsService", c.windowsRunAsService));
    m.put("FeatureGates", c.featureGates == null ? Map.of() : new TreeMap<>(c.featureGates));

    Map<String, Object> client = new LinkedHashMap<>();
    client.put("Kubeconfig", c.clientConnection.kubeconfig);
    client.put("AcceptContentTypes", c.clientConnection.acceptContentTypes);
    client.put("ContentType", c.clientConnection.contentType);
    client.put("QPS", new BigDecimal(Float.toString(c.clientConnection.qps)).stripTrailingZeros());
    client.put("Burst", c.clientConnection.burst);
    m.put("ClientConnection", client);
    m.put("Logging", logging(c.logging));

    m.put("HostnameOverride", c.hostnameOverride);
    m.put("BindAddress", c.bindAddress);
    m.put("HealthzBindAddress", c.healthzBindAddress);
    m.put("MetricsBindAddress", c.metricsBindAddress);
    m.put("BindAddressHardFail", c.bindAddressHardFail);
    m.put("EnableProfiling", c.enableProfiling);
    m.put("ShowHiddenMetricsForVersion", c.showHiddenMetricsForVersion);
    m.put("Mode", c.effectiveMode());

    Map<String, Object> iptables = new LinkedHashMap<>();
    iptables.put("MasqueradeBit", c.iptables.masqueradeBit);
    iptables.put("LocalhostNodePorts", c.iptables.localhostNodePorts);
    m.put("IPTables", iptables);
    Map<String, Object> ipvs = new LinkedHashMap<>();
    ipvs.put("Scheduler", c.ipvs.scheduler);
    ipvs.put("ExcludeCIDRs", c.ipvs.excludeCIDRs);
    ipvs.put("StrictARP", c.ipvs.strictARP);
    ipvs.put("TCPTimeout", durationOrZero(c.ipvs.tcpTimeout));
    ipvs.put("TCPFinTimeout", durationOrZero(c.ipvs.tcpFinTimeout));
    ipvs.put("UDPTimeout", durationOrZero(c.ipvs.udpTimeout));
    m.put("IPVS", ipvs);
    Map<String, Object> winkernel = new LinkedHashMap<>();
    winkernel.put("NetworkName", c.winkernel.networkName);
    winkernel.put("SourceVip", c.winkernel.sourceVip);
    winkernel.put("EnableDSR", c.winkernel.enableDSR);
    winkernel.put("RootHnsEndpointName", c.winkernel.rootHnsEndpointName);
    winkernel.put("ForwardHealthCheckVip", c.winkernel.forwardHealthCheckVip);
    m.put("Winkernel", winkernel);
    Map<String, Object> nftables = new LinkedHashMap<>();
    nftables.put("MasqueradeBit", c.nftables.masqueradeBit);
    m.put("NFTables", nftables);

    m.put("DetectLocalMode", c.detectLocalMode);
    Map<String, Object> detectLocal = new LinkedHashMap<>();
    detectLocal.put("BridgeInterface", c.detectLocal.bridgeInterface);
    List<String> clusterCIDRs = c.clusterCIDRs();
    detectLocal.put("ClusterCIDRs", clusterCIDRs.isEmpty() ? null : clusterCIDRs);
    detectLocal.put("InterfaceNamePrefix", c.detectLocal.interfaceNamePrefix);
    m.put("DetectLocal", detectLocal);
    m.put("NodePortAddresses", c.nodePortAddresses == null ? null : new ArrayList<>(c.nodePortAddresses));
    m.put("SyncPeriod", durationOrZero(c.syncPeriod()));
    m.put("MinSyncPeriod", durationOrZero(c.minSyncPeriod()));
    m.put("ConfigSyncPeriod", durationOrZero(c.configSyncPeriod));
    return m;
  }

  private static Map<String, Object> logging(KubeProxyConfiguration.Logging l) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("format", l.format);
    m.put("flushFrequency", durationOrZero(l.flushFrequency));
    m.put("verbosity", l.verbosity);
    if (l.vmodule != null && !l.vmodule.isEmpty()) { // omitempty
      List<Map<String, Object>> items = new ArrayList<>();
      for (KubeProxyConfiguration.VModuleItem item : l.vmodule) {
        Map<String, Object> i = new LinkedHashMap<>();
        i.put("filePattern", item.filePattern);
        i.put("verbosity", item.verbosity);
        items.add(i);
      }
      m.put("vmodule", items);
    }
    Map<String, Object> options = new LinkedHashMap<>();
    options.put("text", stream(l.options == null ? null : l.options.text));
    options.put("json", stream(l.options == null ? null : l.options.json));
    m.put("options", options);
    return m;
  }

  private static Map<String, Object> stream(KubeProxyConfiguration.StreamOptions s) {
    Map<String, Object> m = new LinkedHashMap<>();
    if (s != null && s.splitStream) { // omitempty
      m.put("splitStream", true);
    }
    m.put("infoBufferSize", s == null || s.infoBufferSize == null ? "0" : s.infoBufferSize);
    return m;
  }

  private static String duration(Duration d) {
    return d == null ? null : GoFormat.duration(d);
  }

  private static String durationOrZero(Duration d) {
    return GoFormat.duration(d == null ? Duration.ZERO : d);
  }
}
