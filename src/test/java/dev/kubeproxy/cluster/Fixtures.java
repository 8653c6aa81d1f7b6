package dev.kubeproxy.cluster;

import dev.kubeproxy.config.AgentOptions;
import dev.kubeproxy.config.KubeProxyConfiguration;
import io.kubernetes.client.openapi.models.DiscoveryV1EndpointPort;
import io.kubernetes.client.openapi.models.V1Endpoint;
import io.kubernetes.client.openapi.models.V1EndpointSlice;
import io.kubernetes.client.openapi.models.V1Node;
import io.kubernetes.client.openapi.models.V1NodeAddress;
import io.kubernetes.client.openapi.models.V1NodeSpec;
import io.kubernetes.client.openapi.models.V1NodeStatus;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1Service;
import io.kubernetes.client.openapi.models.V1ServicePort;
import io.kubernetes.client.openapi.models.V1ServiceSpec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Small builders for the objects the cluster tests need. */
final class Fixtures {
  private Fixtures() {}

  static AgentOptions options(String kubeconfig, String hostname) {
    KubeProxyConfiguration c = new KubeProxyConfiguration();
    c.clientConnection.kubeconfig = kubeconfig == null ? "" : kubeconfig;
    c.clientConnection.qps = 50;
    c.clientConnection.burst = 100;
    c.clientConnection.contentType = "application/vnd.kubernetes.protobuf";
    c.configSyncPeriod = Duration.ZERO;
    return new AgentOptions(c, null, hostname, null, false, false, false);
  }

  static AgentOptions withManifests(AgentOptions o, String dir) {
    return new AgentOptions(o.config(), o.master(), o.hostname(), dir, o.dryRun(), o.cleanup(), o.initOnly());
  }

  static V1Service service(String ns, String name, String clusterIP, Map<String, String> labels) {
    return new V1Service().apiVersion("v1").kind("Service")
        .metadata(new V1ObjectMeta().namespace(ns).name(name).labels(labels))
        .spec(new V1ServiceSpec().type("ClusterIP").clusterIP(clusterIP).clusterIPs(List.of(clusterIP))
            .ports(List.of(new V1ServicePort().name("http").port(80).protocol("TCP"))));
  }

  static V1EndpointSlice slice(String ns, String service, String name, int endpoints, String nodeName) {
    List<V1Endpoint> eps = new ArrayList<>();
    for (int i = 0; i < endpoints; i++) {
      eps.add(new V1Endpoint().addresses(List.of("10.244." + (i / 250) + "." + (i % 250 + 2))).nodeName(nodeName));
    }
    return new V1EndpointSlice().apiVersion("discovery.k8s.io/v1").kind("EndpointSlice")
        .metadata(new V1ObjectMeta().namespace(ns).name(name)
            .labels(Map.of("kubernetes.io/service-name", service)))
        .addressType("IPv4").endpoints(eps)
        .ports(List.of(new DiscoveryV1EndpointPort().name("http").port(8080).protocol("TCP")));
  }

  static V1Node node(String name, List<String> podCIDRs, List<V1NodeAddress> addresses) {
    return new V1Node().apiVersion("v1").kind("Node")
        .metadata(new V1ObjectMeta().name(name).labels(Map.of("topology.kubernetes.io/zone", "zone-a")))
        .spec(new V1NodeSpec().podCIDR(podCIDRs.isEmpty() ? null : podCIDRs.get(0)).podCIDRs(podCIDRs.isEmpty() ? null : podCIDRs))
        .status(new V1NodeStatus().addresses(addresses));
  }

  static V1NodeAddress address(String type, String ip) {
    return new V1NodeAddress().type(type).address(ip);
  }
}
