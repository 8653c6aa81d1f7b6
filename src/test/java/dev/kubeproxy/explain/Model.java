package dev.kubeproxy.explain;

import dev.kubeproxy.proxy.Endpoint;
import dev.kubeproxy.proxy.IpFamily;
import dev.kubeproxy.proxy.LocalTrafficDetector;
import dev.kubeproxy.proxy.NamespacedName;
import dev.kubeproxy.proxy.ProxierSettings;
import dev.kubeproxy.proxy.ServicePort;
import dev.kubeproxy.proxy.ServicePortName;
import java.time.Duration;
import java.util.List;
import java.util.Set;

/** Small builders of the proxy model for the explain tests. */
final class Model {
  static final String NODE_IP = "192.168.1.10";
  static final String CLUSTER_CIDR = "10.244.0.0/16";

  private Model() {}

  static ServicePortName name(String ns, String svc, String port) {
    return new ServicePortName(new NamespacedName(ns, svc), port, "TCP");
  }

  /** A TCP ClusterIP service port "ns/NAME:p80" with cluster IP 10.96.0.N, port 80. */
  static Builder service(String name, int n) {
    return new Builder(name(name.contains("/") ? name.split("/")[0] : "ns", name.contains("/") ? name.split("/")[1]
        : name, "p80"), "10.96.0." + n);
  }

  static final class Builder {
    final ServicePortName name;
    final String clusterIP;
    int nodePort;
    List<String> externalIPs = List.of();
    List<String> lbIPs = List.of();
    List<String> sourceRanges = List.of();
    boolean affinity;
    boolean etpLocal;
    boolean itpLocal;
    int hcnp;

    Builder(ServicePortName name, String clusterIP) {
      this.name = name;
      this.clusterIP = clusterIP;
    }

    Builder nodePort(int p) {
      nodePort = p;
      return this;
    }

    Builder externalIP(String ip) {
      externalIPs = List.of(ip);
      return this;
    }

    Builder loadBalancer(String ip, String... ranges) {
      lbIPs = List.of(ip);
      sourceRanges = List.of(ranges);
      return this;
    }

    Builder affinity() {
      affinity = true;
      return this;
    }

    Builder etpLocal() {
      etpLocal = true;
      hcnp = 32000;
      return this;
    }

    Builder itpLocal() {
      itpLocal = true;
      return this;
    }

    ServicePort build() {
      return new ServicePort(name, clusterIP, 80, "TCP", nodePort, externalIPs, lbIPs, sourceRanges, affinity,
          affinity ? 10800 : 0, etpLocal, itpLocal, etpLocal ? hcnp : 0, "");
    }
  }

  static Endpoint ready(String ip, boolean local) {
    return new Endpoint(ip, 8080, local, true, true, false, null, Endpoint.NodeHint.NONE, local ? "node-1" : "node-2",
        local ? "zone-a" : "zone-b");
  }

  static Endpoint terminating(String ip, boolean local) {
    return new Endpoint(ip, 8080, local, false, true, true, null, Endpoint.NodeHint.NONE, local ? "node-1" : "node-2",
        null);
  }

  static Endpoint zoned(String ip, boolean local, String zone) {
    return new Endpoint(ip, 8080, local, true, true, false, Set.of(zone), Endpoint.NodeHint.NONE, null, zone);
  }

  static ProxierSettings settings(LocalTrafficDetector detector, boolean masqueradeAll) {
    return new ProxierSettings(IpFamily.IPv4, "node-1", List.of(NODE_IP), List.of(), masqueradeAll, 14, true,
        detector, Duration.ofSeconds(30), Duration.ofSeconds(1), null);
  }

  static ProxierSettings settings() {
    return settings(new LocalTrafficDetector("ClusterCIDR", CLUSTER_CIDR), false);
  }
}
