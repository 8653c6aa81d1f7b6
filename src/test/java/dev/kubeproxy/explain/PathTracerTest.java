package dev.kubeproxy.explain;

import dev.kubeproxy.config.ProxyMode;

import static dev.kubeproxy.explain.Model.NODE_IP;
import static dev.kubeproxy.explain.Model.ready;
import static dev.kubeproxy.explain.Model.service;
import static dev.kubeproxy.explain.Model.settings;
import static dev.kubeproxy.explain.Model.terminating;
import static dev.kubeproxy.explain.Model.zoned;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kubeproxy.explain.PacketPath.Choice;
import dev.kubeproxy.explain.PacketPath.Verdict;
import dev.kubeproxy.model.Endpoint;
import dev.kubeproxy.model.EndpointCategorizer;
import dev.kubeproxy.model.LocalTrafficDetector;
import dev.kubeproxy.model.ServicePort;
import dev.kubeproxy.model.ServicePortPlan;
import dev.kubeproxy.testutil.tier.Unit;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

@Unit
class PathTracerTest {
  static final String POD = "10.244.1.50";
  static final String OUTSIDE = "203.0.113.9";
  static final List<Endpoint> THREE = List.of(ready("10.244.1.5", true), ready("10.244.1.6", true),
      ready("10.244.2.5", false));

  static PacketPath trace(String mode, ServicePort svc, List<Endpoint> eps, String from, String to, int port) {
    return trace(mode, svc, eps, Map.of(), from, to, port);
  }

  static PacketPath trace(String mode, ServicePort svc, List<Endpoint> eps, Map<String, String> labels, String from,
      String to, int port) {
    return new PathTracer(ProxyMode.parse(mode).orElseThrow(), settings()).trace(ServicePortPlan.of(svc, eps, labels, EndpointCategorizer.TopologyGates.DEFAULT), from, to, port);
  }

  static Set<String> endpoints(PacketPath p) {
    return p.endpoints().stream().map(Choice::endpoint).collect(Collectors.toSet());
  }

  @ParameterizedTest
  @ValueSource(strings = {"iptables", "nftables", "ipvs"})
  void clusterIpFromAPodKeepsTheSourceAndSpreadsEvenly(String mode) {
    PacketPath p = trace(mode, service("web", 10).build(), THREE, POD, "10.96.0.10", 80);
    assertEquals(Verdict.DNAT, p.verdict());
    assertEquals("cluster IP", p.entry());
    assertEquals(Set.of("10.244.1.5:8080", "10.244.1.6:8080", "10.244.2.5:8080"), endpoints(p));
    for (Choice c : p.endpoints()) {
      assertEquals(1.0 / 3, c.probability(), 1e-9);
      assertFalse(c.masquerade(), c.toString());
    }
    assertTrue(p.sourceKind().startsWith("pod"), p.sourceKind());
  }

  /** nftables: a ClusterIP-only port with one endpoint has no chain; the path names the map instead. */
  @org.junit.jupiter.api.Test
  void nftablesShowsTheSingleEndpointMapForAChainlessService() {
    PacketPath one = trace("nftables", service("web", 10).build(), THREE.subList(0, 1), OUTSIDE, "10.96.0.10", 80);
    assertEquals(Verdict.DNAT, one.verdict());
    assertEquals(List.of("services (map @single-endpoint-services)", "services (map @single-endpoint-services)"),
        one.hops().stream().map(PacketPath.Hop::chain).toList(), one.hops().toString());
    assertTrue(one.hops().get(0).action().contains("marks it for masquerade"), one.hops().toString());
    assertEquals(Set.of("10.244.1.5:8080"), endpoints(one));
    PacketPath three = trace("nftables", service("web", 10).build(), THREE, OUTSIDE, "10.96.0.10", 80);
    assertTrue(three.hops().stream().anyMatch(h -> h.chain().startsWith("service-")), three.hops().toString());
  }

  @ParameterizedTest
  @ValueSource(strings = {"iptables", "nftables", "ipvs"})
  void clusterIpFromTheNodeOrOutsideIsMasqueraded(String mode) {
    for (String from : List.of(NODE_IP, OUTSIDE)) {
      PacketPath p = trace(mode, service("web", 10).build(), THREE, from, "10.96.0.10", 80);
      assertEquals(Verdict.DNAT, p.verdict());
      assertTrue(p.endpoints().stream().allMatch(Choice::masquerade), from + ": " + p);
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"iptables", "nftables", "ipvs"})
  void masqueradeAllAndNoDetection(String mode) {
    ServicePortPlan plan = ServicePortPlan.of(service("web", 10).build(), THREE, Map.of(), EndpointCategorizer.TopologyGates.DEFAULT);
    PacketPath all = new PathTracer(ProxyMode.parse(mode).orElseThrow(), settings(new LocalTrafficDetector("ClusterCIDR", Model.CLUSTER_CIDR), true))
        .trace(plan, POD, "10.96.0.10", 80);
    assertTrue(all.endpoints().stream().allMatch(Choice::masquerade), all.toString());
    PacketPath none = new PathTracer(ProxyMode.parse(mode).orElseThrow(), settings(LocalTrafficDetector.noop(), false)).trace(plan, NODE_IP,
        "10.96.0.10", 80);
    assertTrue(none.endpoints().stream().noneMatch(Choice::masquerade), none.toString());
  }

  @ParameterizedTest
  @ValueSource(strings = {"iptables", "nftables", "ipvs"})
  void hairpinIsMasqueraded(String mode) {
    PacketPath p = trace(mode, service("web", 10).build(), THREE, "10.244.1.5", "10.96.0.10", 80);
    for (Choice c : p.endpoints()) {
      assertEquals(c.endpoint().equals("10.244.1.5:8080"), c.masquerade(), c.toString());
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"iptables", "nftables"})
  void nodePortWithExternalTrafficPolicyLocal(String mode) {
    ServicePort svc = service("shop", 30).nodePort(30080).etpLocal().build();
    PacketPath outside = trace(mode, svc, THREE, OUTSIDE, NODE_IP, 30080);
    assertEquals("NodePort", outside.entry());
    assertEquals(Set.of("10.244.1.5:8080", "10.244.1.6:8080"), endpoints(outside), "only local endpoints");
    assertTrue(outside.endpoints().stream().noneMatch(Choice::masquerade), "the client's source is kept");

    PacketPath fromNode = trace(mode, svc, THREE, NODE_IP, NODE_IP, 30080);
    assertEquals(3, fromNode.endpoints().size(), "the node short-circuits to the cluster-wide endpoints");
    assertTrue(fromNode.endpoints().stream().allMatch(Choice::masquerade));

    PacketPath fromPod = trace(mode, svc, THREE, POD, NODE_IP, 30080);
    assertEquals(3, fromPod.endpoints().size());
    assertTrue(fromPod.endpoints().stream().noneMatch(Choice::masquerade));

    List<Endpoint> remoteOnly = List.of(ready("10.244.2.5", false));
    PacketPath dropped = trace(mode, svc, remoteOnly, OUTSIDE, NODE_IP, 30080);
    assertEquals(Verdict.DROP, dropped.verdict(), dropped.toString());
    assertEquals(Verdict.DNAT, trace(mode, svc, remoteOnly, POD, NODE_IP, 30080).verdict(),
        "pods still reach the remote endpoint");
  }

  @ParameterizedTest
  @ValueSource(strings = {"iptables", "nftables", "ipvs"})
  void nodePortWithClusterPolicyIsMasqueradedAndWrongPortsAreNotProxied(String mode) {
    ServicePort svc = service("api", 20).nodePort(30443).build();
    PacketPath p = trace(mode, svc, THREE, OUTSIDE, NODE_IP, 30443);
    assertEquals(3, p.endpoints().size());
    assertTrue(p.endpoints().stream().allMatch(Choice::masquerade));
    PacketPath wrong = trace(mode, svc, THREE, OUTSIDE, NODE_IP, 30444);
    assertEquals(Verdict.NOT_PROXIED, wrong.verdict());
    assertNull(wrong.entry());
  }

  @ParameterizedTest
  @ValueSource(strings = {"iptables", "nftables"})
  void loadBalancerSourceRanges(String mode) {
    ServicePort svc = service("lb", 40).nodePort(30040).loadBalancer("192.0.2.40").sourceRanges("198.51.100.0/24")
        .build();
    PacketPath allowed = trace(mode, svc, THREE, "198.51.100.7", "192.0.2.40", 80);
    assertEquals(Verdict.DNAT, allowed.verdict());
    assertEquals("LoadBalancer IP", allowed.entry());
    PacketPath denied = trace(mode, svc, THREE, OUTSIDE, "192.0.2.40", 80);
    assertEquals(Verdict.DROP, denied.verdict(), denied.toString());
    assertTrue(denied.hops().stream().anyMatch(h -> h.chain().contains(mode.equals("iptables") ? "KUBE-FW-" : "firewall-")),
        denied.hops().toString());
    PacketPath viaNodePort = trace(mode, svc, THREE, OUTSIDE, NODE_IP, 30040);
    assertEquals(Verdict.DNAT, viaNodePort.verdict(), "source ranges apply to the LB IP only");
  }

  @ParameterizedTest
  @ValueSource(strings = {"iptables", "nftables"})
  void withoutEndpointsTheSourceRangesComeFirstOnlyInNftables(String mode) {
    ServicePort svc = service("lb", 40).loadBalancer("192.0.2.40").sourceRanges("198.51.100.0/24").build();
    PacketPath denied = trace(mode, svc, List.of(), OUTSIDE, "192.0.2.40", 80);
    assertEquals(mode.equals("nftables") ? Verdict.DROP : Verdict.REJECT, denied.verdict(), denied.toString());
    assertEquals(Verdict.REJECT, trace(mode, svc, List.of(), "198.51.100.7", "192.0.2.40", 80).verdict());
  }

  @ParameterizedTest
  @ValueSource(strings = {"iptables", "nftables"})
  void noEndpointsRejectsAndInternalPolicyLocalWithoutLocalEndpointsDrops(String mode) {
    PacketPath rejected = trace(mode, service("empty", 50).nodePort(30050).build(), List.of(), POD, "10.96.0.50", 80);
    assertEquals(Verdict.REJECT, rejected.verdict());
    assertTrue(rejected.endpoints().isEmpty());
    assertEquals(Verdict.REJECT, trace(mode, service("empty", 50).nodePort(30050).build(), List.of(), OUTSIDE, NODE_IP,
        30050).verdict());
    PacketPath dropped = trace(mode, service("itp", 51).itpLocal().build(), List.of(ready("10.244.2.5", false)), POD,
        "10.96.0.51", 80);
    assertEquals(Verdict.DROP, dropped.verdict());
    PacketPath local = trace(mode, service("itp", 51).itpLocal().build(), THREE, POD, "10.96.0.51", 80);
    assertEquals(Set.of("10.244.1.5:8080", "10.244.1.6:8080"), endpoints(local));
  }

  @ParameterizedTest
  @ValueSource(strings = {"iptables", "nftables"})
  void affinityIsExplained(String mode) {
    PacketPath p = trace(mode, service("sticky", 60).affinity().build(), THREE, POD, "10.96.0.60", 80);
    assertNotNull(p.affinity());
    assertTrue(p.affinity().contains("10800"), p.affinity());
    assertNull(trace(mode, service("web", 10).build(), THREE, POD, "10.96.0.10", 80).affinity());
  }

  @ParameterizedTest
  @ValueSource(strings = {"iptables", "nftables"})
  void terminatingFallbackAndTopology(String mode) {
    List<Endpoint> terminatingOnly = List.of(terminating("10.244.1.5", true), terminating("10.244.2.5", false),
        new Endpoint("10.244.3.5", 8080, false, false, false, true, null));
    PacketPath fallback = trace(mode, service("web", 10).build(), terminatingOnly, POD, "10.96.0.10", 80);
    assertEquals(Set.of("10.244.1.5:8080", "10.244.2.5:8080"), endpoints(fallback),
        "only serving terminating endpoints take traffic");

    List<Endpoint> zoned = List.of(zoned("10.244.1.5", true, "zone-a"), zoned("10.244.2.5", false, "zone-b"));
    PacketPath sameZone = trace(mode, service("web", 10).build(), zoned, Map.of("topology.kubernetes.io/zone", "zone-a"),
        POD, "10.96.0.10", 80);
    assertEquals(Set.of("10.244.1.5:8080"), endpoints(sameZone));
    PacketPath noZone = trace(mode, service("web", 10).build(), zoned, Map.of(), POD, "10.96.0.10", 80);
    assertEquals(2, noZone.endpoints().size(), "without the node's zone, hints are ignored");
  }

  @ParameterizedTest
  @ValueSource(strings = {"iptables", "nftables"})
  void externalIpAndLocalhostNodePorts(String mode) {
    ServicePort svc = service("ext", 70).externalIPs("192.0.2.70").nodePort(30070).build();
    PacketPath ext = trace(mode, svc, THREE, OUTSIDE, "192.0.2.70", 80);
    assertEquals("external IP", ext.entry());
    assertTrue(ext.endpoints().stream().allMatch(Choice::masquerade));
    PacketPath localhost = trace(mode, svc, THREE, "127.0.0.1", "127.0.0.1", 30070);
    assertEquals(mode.equals("iptables") ? Verdict.DNAT : Verdict.NOT_PROXIED, localhost.verdict(),
        "only iptables serves NodePorts on localhost: " + localhost);
  }
}
