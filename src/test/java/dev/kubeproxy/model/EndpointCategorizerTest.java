package dev.kubeproxy.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kubeproxy.testutil.tier.Unit;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

@Unit
class EndpointCategorizerTest {
  private static final ServicePortName NAME = new ServicePortName(new NamespacedName("demo", "web"), "", "TCP");
  private static final Map<String, String> ZONE_A = Map.of("topology.kubernetes.io/zone", "zone-a");

  private static ServicePort svc(boolean internalLocal, boolean externalLocal, int nodePort, String hints) {
    return new ServicePort(NAME, "10.96.0.10", 80, "TCP", nodePort, List.of(), List.of(), List.of(), false, 0,
        externalLocal, internalLocal, 0, hints);
  }

  private static ServicePort cluster() {
    return svc(false, false, 0, "");
  }

  /** name ip suffix, flags: L=local R=ready S=serving T=terminating. */
  private static Endpoint ep(int n, String flags, String... zones) {
    return new Endpoint("10.244.0." + n, 80, flags.contains("L"), flags.contains("R"), flags.contains("S"),
        flags.contains("T"), zones.length == 0 ? null : Set.of(zones));
  }

  private static List<String> ids(List<Endpoint> eps) {
    return eps.stream().map(Endpoint::endpoint).sorted().toList();
  }

  @Test
  void clusterPolicyUsesReadyEndpoints() {
    var r = EndpointCategorizer.categorize(cluster(), List.of(ep(1, "RS"), ep(2, "S"), ep(3, "LRS")), Map.of());
    assertEquals(List.of("10.244.0.1:80", "10.244.0.3:80"), ids(r.cluster()));
    assertEquals(List.of(), r.local());
    assertEquals(r.cluster(), r.allReachable());
    assertTrue(r.hasAnyEndpoints());
  }

  @Test
  void clusterFallsBackToServingTerminating() {
    var r = EndpointCategorizer.categorize(cluster(), List.of(ep(1, "ST"), ep(2, "T"), ep(3, "")), Map.of());
    assertEquals(List.of("10.244.0.1:80"), ids(r.cluster()));
    assertTrue(r.hasAnyEndpoints());
  }

  @Test
  void noUsableEndpoints() {
    var r = EndpointCategorizer.categorize(cluster(), List.of(ep(1, "T"), ep(2, "")), Map.of());
    assertEquals(List.of(), r.cluster());
    assertFalse(r.hasAnyEndpoints());
    assertFalse(EndpointCategorizer.categorize(cluster(), List.of(), Map.of()).hasAnyEndpoints());
  }

  @Test
  void internalLocalOnlyUsesLocalReady() {
    ServicePort s = svc(true, false, 0, "");
    var r = EndpointCategorizer.categorize(s, List.of(ep(1, "RS"), ep(2, "LRS"), ep(3, "LST")), Map.of());
    assertEquals(List.of(), r.cluster());
    assertEquals(List.of("10.244.0.2:80"), ids(r.local()));
    assertEquals(r.local(), r.allReachable());
    assertTrue(r.hasAnyEndpoints());
  }

  @Test
  void internalLocalWithOnlyRemoteEndpointsHasAnyButNoLocal() {
    var r = EndpointCategorizer.categorize(svc(true, false, 0, ""), List.of(ep(1, "RS")), Map.of());
    assertEquals(List.of(), r.local());
    assertTrue(r.hasAnyEndpoints());
    assertEquals(List.of(), r.allReachable());
  }

  @Test
  void localFallsBackToServingTerminatingLocal() {
    ServicePort s = svc(true, false, 0, "");
    var r = EndpointCategorizer.categorize(s, List.of(ep(1, "LST"), ep(2, "ST"), ep(3, "LT")), Map.of());
    assertEquals(List.of("10.244.0.1:80"), ids(r.local()));
    assertTrue(r.hasAnyEndpoints());
  }

  @Test
  void externalLocalWithClusterAndLocalUsesClusterAsAllReachable() {
    ServicePort s = svc(false, true, 30080, "");
    assertTrue(s.usesClusterEndpoints() && s.usesLocalEndpoints());
    var r = EndpointCategorizer.categorize(s, List.of(ep(1, "RS"), ep(2, "LRS")), Map.of());
    assertEquals(List.of("10.244.0.1:80", "10.244.0.2:80"), ids(r.cluster()));
    assertEquals(List.of("10.244.0.2:80"), ids(r.local()));
    assertEquals(r.cluster(), r.allReachable());
  }

  @Test
  void externalLocalTerminatingFallbackAddsLocalToAllReachable() {
    ServicePort s = svc(false, true, 30080, "");
    var r = EndpointCategorizer.categorize(s, List.of(ep(1, "RS"), ep(2, "LST")), Map.of());
    assertEquals(List.of("10.244.0.1:80"), ids(r.cluster()));
    assertEquals(List.of("10.244.0.2:80"), ids(r.local()));
    assertEquals(List.of("10.244.0.1:80", "10.244.0.2:80"), ids(r.allReachable()));
  }

  @Test
  void externalLocalWithoutNodePortOrVipIsNotLocal() {
    ServicePort s = svc(false, true, 0, "");
    assertFalse(s.usesLocalEndpoints());
    var r = EndpointCategorizer.categorize(s, List.of(ep(1, "LRS")), Map.of());
    assertEquals(List.of(), r.local());
  }

  @Test
  void topologyPicksEndpointsHintedForThisZone() {
    List<Endpoint> eps = List.of(ep(1, "RS", "zone-a"), ep(2, "RS", "zone-b"), ep(3, "S"));
    var r = EndpointCategorizer.categorize(cluster(), eps, ZONE_A);
    assertEquals(List.of("10.244.0.1:80"), ids(r.cluster()));
  }

  @Test
  void topologyNeedsEveryReadyEndpointHinted() {
    List<Endpoint> eps = List.of(ep(1, "RS", "zone-a"), ep(2, "RS"));
    assertEquals(2, EndpointCategorizer.categorize(cluster(), eps, ZONE_A).cluster().size());
  }

  @Test
  void topologyNeedsAnEndpointForThisZone() {
    List<Endpoint> eps = List.of(ep(1, "RS", "zone-b"), ep(2, "RS", "zone-c"));
    assertEquals(2, EndpointCategorizer.categorize(cluster(), eps, ZONE_A).cluster().size());
  }

  @Test
  void topologyNeedsANodeZone() {
    List<Endpoint> eps = List.of(ep(1, "RS", "zone-a"), ep(2, "RS", "zone-b"));
    assertEquals(2, EndpointCategorizer.categorize(cluster(), eps, Map.of()).cluster().size());
    assertEquals(2, EndpointCategorizer.categorize(cluster(), eps,
        Map.of("topology.kubernetes.io/zone", "")).cluster().size());
    assertEquals(2, EndpointCategorizer.categorize(cluster(), eps, null).cluster().size());
  }

  @Test
  void topologyGatesAndAnnotation() {
    List<Endpoint> eps = List.of(ep(1, "RS", "zone-a"), ep(2, "RS", "zone-b"));
    var bothOff = new EndpointCategorizer.TopologyGates(false, false);
    assertEquals(2, EndpointCategorizer.categorize(cluster(), eps, ZONE_A, bothOff).cluster().size());
    // ServiceTrafficDistribution off: the annotation decides
    var hintsOnly = new EndpointCategorizer.TopologyGates(true, false);
    assertEquals(2, EndpointCategorizer.categorize(svc(false, false, 0, ""), eps, ZONE_A, hintsOnly).cluster().size());
    assertEquals(2, EndpointCategorizer.categorize(svc(false, false, 0, "disabled"), eps, ZONE_A, hintsOnly).cluster().size());
    assertEquals(2, EndpointCategorizer.categorize(svc(false, false, 0, "Disabled"), eps, ZONE_A, hintsOnly).cluster().size());
    assertEquals(1, EndpointCategorizer.categorize(svc(false, false, 0, "Auto"), eps, ZONE_A, hintsOnly).cluster().size());
    // ServiceTrafficDistribution on: the annotation is ignored
    assertEquals(1, EndpointCategorizer.categorize(svc(false, false, 0, "disabled"), eps, ZONE_A).cluster().size());
  }

  @Test
  void topologyIsIgnoredInTheTerminatingFallback() {
    List<Endpoint> eps = List.of(ep(1, "ST", "zone-b"), ep(2, "ST", "zone-a"));
    assertEquals(2, EndpointCategorizer.categorize(cluster(), eps, ZONE_A).cluster().size());
  }

  @Test
  void topologyWithLocalPolicyUnionsAllReachable() {
    ServicePort s = svc(false, true, 30080, "");
    List<Endpoint> eps = List.of(ep(1, "RS", "zone-a"), ep(2, "LRS", "zone-b"));
    var r = EndpointCategorizer.categorize(s, eps, ZONE_A);
    assertEquals(List.of("10.244.0.1:80"), ids(r.cluster()));
    assertEquals(List.of("10.244.0.2:80"), ids(r.local()));
    assertEquals(List.of("10.244.0.1:80", "10.244.0.2:80"), ids(r.allReachable()));
  }
}
