package dev.kubeproxy.model.objects;

import java.util.List;
import java.util.Map;

/** Tests: small builders for the lean objects that need no field-by-field editing. */
public final class ClusterObjects {
  private ClusterObjects() {}

  public static EndpointSlice slice(String ns, String name, String service, String addressType,
      List<EndpointSlice.Port> ports, List<EndpointSlice.Endpoint> endpoints) {
    return new EndpointSlice(ObjectMeta.of(ns, name).withLabels(Map.of("kubernetes.io/service-name", service)),
        addressType, endpoints, ports);
  }

  public static EndpointSlice withMetadata(EndpointSlice s, ObjectMeta meta) {
    return new EndpointSlice(meta, s.addressType(), s.endpoints(), s.ports());
  }

  public static EndpointSlice.Port slicePort(String name, Integer port, String protocol) {
    return new EndpointSlice.Port(name, protocol, port);
  }

  /** An endpoint with explicit conditions (null: absent). */
  public static EndpointSlice.Endpoint endpoint(String ip, String node, Boolean ready, Boolean serving, Boolean terminating) {
    return new EndpointSlice.Endpoint(ip == null ? List.of() : List.of(ip), ready, serving, terminating, null, node,
        null, List.of(), List.of());
  }

  public static EndpointSlice.Endpoint withZone(EndpointSlice.Endpoint e, String zone) {
    return new EndpointSlice.Endpoint(e.addresses(), e.ready(), e.serving(), e.terminating(), e.hostname(),
        e.nodeName(), zone, e.zoneHints(), e.nodeHints());
  }

  public static EndpointSlice.Endpoint withZoneHints(EndpointSlice.Endpoint e, String... zones) {
    return new EndpointSlice.Endpoint(e.addresses(), e.ready(), e.serving(), e.terminating(), e.hostname(),
        e.nodeName(), e.zone(), List.of(zones), e.nodeHints());
  }

  public static EndpointSlice.Endpoint withNodeHints(EndpointSlice.Endpoint e, String... nodes) {
    return new EndpointSlice.Endpoint(e.addresses(), e.ready(), e.serving(), e.terminating(), e.hostname(),
        e.nodeName(), e.zone(), e.zoneHints(), List.of(nodes));
  }

  public static Node node(String name, Map<String, String> labels, List<String> podCIDRs, List<Node.Address> addresses) {
    return new Node(ObjectMeta.of("", name).withLabels(labels), podCIDRs.isEmpty() ? null : podCIDRs.get(0), podCIDRs,
        List.of(), addresses);
  }

  public static ServiceCidr serviceCidr(String name, List<String> cidrs) {
    return new ServiceCidr(ObjectMeta.of("", name), cidrs);
  }
}
