package dev.kubeproxy.proxy;

import io.kubernetes.client.openapi.models.DiscoveryV1EndpointPort;
import io.kubernetes.client.openapi.models.V1Endpoint;
import io.kubernetes.client.openapi.models.V1EndpointConditions;
import io.kubernetes.client.openapi.models.V1EndpointHints;
import io.kubernetes.client.openapi.models.V1EndpointSlice;
import io.kubernetes.client.openapi.models.V1ForZone;
import io.kubernetes.client.openapi.models.V1LoadBalancerIngress;
import io.kubernetes.client.openapi.models.V1LoadBalancerStatus;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1Service;
import io.kubernetes.client.openapi.models.V1ServicePort;
import io.kubernetes.client.openapi.models.V1ServiceSpec;
import io.kubernetes.client.openapi.models.V1ServiceStatus;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;

/** Small builders for the client-java objects the model reads. */
final class TestObjects {
  private TestObjects() {}

  /** A ClusterIP Service with the given single-stack IP. */
  static V1Service service(String ns, String name, String clusterIP, V1ServicePort... ports) {
    V1ServiceSpec spec = new V1ServiceSpec().type("ClusterIP").clusterIP(clusterIP)
        .clusterIPs(new ArrayList<>(List.of(clusterIP)))
        .ipFamilies(new ArrayList<>(List.of(IpFamily.ofText(clusterIP).name())))
        .ports(new ArrayList<>(List.of(ports)));
    return new V1Service().metadata(new V1ObjectMeta().namespace(ns).name(name)).spec(spec);
  }

  static V1ServicePort port(String name, int port, String protocol) {
    return new V1ServicePort().name(name).port(port).protocol(protocol);
  }

  static V1ServicePort nodePort(String name, int port, String protocol, int nodePort) {
    return port(name, port, protocol).nodePort(nodePort);
  }

  static V1Service withIngress(V1Service svc, V1LoadBalancerIngress... ingress) {
    return svc.status(new V1ServiceStatus().loadBalancer(new V1LoadBalancerStatus()
        .ingress(new ArrayList<>(List.of(ingress)))));
  }

  static V1LoadBalancerIngress ingress(String ip, String ipMode) {
    return new V1LoadBalancerIngress().ip(ip).ipMode(ipMode);
  }

  /** An EndpointSlice of the service, with ports and endpoints. */
  static V1EndpointSlice slice(String ns, String name, String service, String addressType,
      List<DiscoveryV1EndpointPort> ports, V1Endpoint... endpoints) {
    HashMap<String, String> labels = new HashMap<>();
    labels.put("kubernetes.io/service-name", service);
    return new V1EndpointSlice().addressType(addressType)
        .metadata(new V1ObjectMeta().namespace(ns).name(name).labels(labels))
        .ports(new ArrayList<>(ports))
        .endpoints(new ArrayList<>(List.of(endpoints)));
  }

  static DiscoveryV1EndpointPort slicePort(String name, Integer port, String protocol) {
    return new DiscoveryV1EndpointPort().name(name).port(port).protocol(protocol);
  }

  static V1Endpoint ep(String ip, String node) {
    return new V1Endpoint().addresses(new ArrayList<>(List.of(ip))).nodeName(node)
        .conditions(new V1EndpointConditions().ready(true).serving(true).terminating(false));
  }

  static V1Endpoint ep(String ip, String node, boolean ready, boolean serving, boolean terminating) {
    return new V1Endpoint().addresses(new ArrayList<>(List.of(ip))).nodeName(node)
        .conditions(new V1EndpointConditions().ready(ready).serving(serving).terminating(terminating));
  }

  static V1Endpoint withZoneHints(V1Endpoint ep, String... zones) {
    List<V1ForZone> forZones = new ArrayList<>();
    for (String z : zones) {
      forZones.add(new V1ForZone().name(z));
    }
    return ep.hints(new V1EndpointHints().forZones(forZones));
  }

  static Endpoint endpoint(String ip, int port, boolean local, boolean ready, boolean serving, boolean terminating,
      java.util.Set<String> hints) {
    return new Endpoint(ip, port, local, ready, serving, terminating, hints);
  }
}
