package dev.kubeproxy.model;

import dev.kubeproxy.net.IpFamily;

import dev.kubeproxy.model.objects.ClusterObjects;
import dev.kubeproxy.model.objects.EndpointSlice;
import dev.kubeproxy.model.objects.Service;
import dev.kubeproxy.model.objects.ServiceBuilder;
import java.util.List;

/** Small builders for the cluster objects the model reads. */
public final class TestObjects {
  private TestObjects() {}

  /** A ClusterIP Service with the given single-stack IP. */
  public static Service service(String ns, String name, String clusterIP, Service.Port... ports) {
    return builder(ns, name, clusterIP, ports).build();
  }

  /** The same, to edit before building. */
  static ServiceBuilder builder(String ns, String name, String clusterIP, Service.Port... ports) {
    return new ServiceBuilder(ns, name).type("ClusterIP").clusterIP(clusterIP).clusterIPs(List.of(clusterIP))
        .ipFamilies(List.of(IpFamily.ofText(clusterIP).name())).ports(List.of(ports));
  }

  /** An edited copy of the Service. */
  public static ServiceBuilder edit(Service s) {
    return ServiceBuilder.from(s);
  }

  public static Service.Port port(String name, int port, String protocol) {
    return ServiceBuilder.port(name, port, protocol);
  }

  public static Service.Port nodePort(String name, int port, String protocol, int nodePort) {
    return ServiceBuilder.nodePort(name, port, protocol, nodePort);
  }

  static Service withIngress(Service svc, Service.Ingress... ingress) {
    return edit(svc).ingress(List.of(ingress)).build();
  }

  static Service.Ingress ingress(String ip, String ipMode) {
    return new Service.Ingress(ip, null, ipMode);
  }

  /** An EndpointSlice of the service, with ports and endpoints. */
  public static EndpointSlice slice(String ns, String name, String service, String addressType,
      List<EndpointSlice.Port> ports, EndpointSlice.Endpoint... endpoints) {
    return ClusterObjects.slice(ns, name, service, addressType, ports, List.of(endpoints));
  }

  public static EndpointSlice.Port slicePort(String name, Integer port, String protocol) {
    return ClusterObjects.slicePort(name, port, protocol);
  }

  public static EndpointSlice.Endpoint ep(String ip, String node) {
    return ClusterObjects.endpoint(ip, node, true, true, false);
  }

  public static EndpointSlice.Endpoint ep(String ip, String node, boolean ready, boolean serving, boolean terminating) {
    return ClusterObjects.endpoint(ip, node, ready, serving, terminating);
  }

  static EndpointSlice.Endpoint withZoneHints(EndpointSlice.Endpoint ep, String... zones) {
    return ClusterObjects.withZoneHints(ep, zones);
  }

  static Endpoint endpoint(String ip, int port, boolean local, boolean ready, boolean serving, boolean terminating,
      java.util.Set<String> hints) {
    return new Endpoint(ip, port, local, ready, serving, terminating, hints);
  }
}
