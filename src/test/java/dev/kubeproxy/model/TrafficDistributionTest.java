package dev.kubeproxy.model;

import dev.kubeproxy.net.IpFamily;

import static dev.kubeproxy.model.TestObjects.ep;
import static dev.kubeproxy.model.TestObjects.slice;
import static dev.kubeproxy.model.TestObjects.slicePort;
import static dev.kubeproxy.model.TestObjects.withZoneHints;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kubeproxy.metrics.ProxyMetrics;
import dev.kubeproxy.model.objects.ClusterObjects;
import dev.kubeproxy.model.objects.EndpointSlice;
import dev.kubeproxy.testutil.tier.Unit;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * trafficDistribution PreferSameNode / PreferSameZone (and PreferClose, which the EndpointSlice
 * controller treats as PreferSameZone): hints.forNodes and hints.forZones read from slices, and the
 * topology mode of upstream 1.33+ topology.go chosen from them.
 */
@Unit
class TrafficDistributionTest {
  static final ServicePortName HTTP = new ServicePortName(new NamespacedName("demo", "web"), "http", "TCP");
  static final Map<String, String> ZONE_A = Map.of("topology.kubernetes.io/zone", "zone-a");

  static ServicePort cluster() {
    return new ServicePort(HTTP, "10.96.0.10", 80, "TCP", 0, List.of(), List.of(), List.of(), false, 0, false, false,
        0, "");
  }

  static Endpoint hinted(int n, boolean ready, Endpoint.NodeHint node, String... zones) {
    return new Endpoint("10.244.0." + n, 80, node == Endpoint.NodeHint.THIS_NODE, ready, ready, false,
        zones.length == 0 ? null : Set.of(zones), node);
  }

  static List<String> cluster(List<Endpoint> endpoints, Map<String, String> labels) {
    return EndpointCategorizer.categorize(cluster(), endpoints, labels).cluster().stream()
        .map(Endpoint::endpoint).sorted().toList();
  }

  @Test
  void preferSameNodeUsesTheEndpointsHintedForThisNode() {
    List<Endpoint> eps = List.of(hinted(1, true, Endpoint.NodeHint.THIS_NODE, "zone-a"),
        hinted(2, true, Endpoint.NodeHint.OTHER_NODES, "zone-a"), hinted(3, true, Endpoint.NodeHint.OTHER_NODES, "zone-b"));
    assertEquals(List.of("10.244.0.1:80"), cluster(eps, ZONE_A));
    assertEquals(List.of("10.244.0.1:80"), cluster(eps, Map.of()), "node hints need no zone label");
  }

  @Test
  void withoutAnEndpointForThisNodeZoneHintsDecide() {
    List<Endpoint> eps = List.of(hinted(2, true, Endpoint.NodeHint.OTHER_NODES, "zone-a"),
        hinted(3, true, Endpoint.NodeHint.OTHER_NODES, "zone-b"));
    assertEquals(List.of("10.244.0.2:80"), cluster(eps, ZONE_A));
  }

  @Test
  void oneReadyEndpointWithoutNodeHintsDisablesSameNode() {
    List<Endpoint> eps = List.of(hinted(1, true, Endpoint.NodeHint.THIS_NODE, "zone-b"),
        hinted(2, true, Endpoint.NodeHint.NONE, "zone-a"), hinted(3, true, Endpoint.NodeHint.OTHER_NODES, "zone-b"));
    assertEquals(List.of("10.244.0.2:80"), cluster(eps, ZONE_A), "falls back to the zone hints");
    List<Endpoint> noZones = List.of(hinted(1, true, Endpoint.NodeHint.THIS_NODE),
        hinted(2, true, Endpoint.NodeHint.NONE));
    assertEquals(List.of("10.244.0.1:80", "10.244.0.2:80"), cluster(noZones, ZONE_A), "no topology at all");
  }

  @Test
  void notReadyEndpointsDoNotCountAndTerminatingOnesStillServe() {
    List<Endpoint> eps = List.of(hinted(1, true, Endpoint.NodeHint.THIS_NODE), hinted(2, false, Endpoint.NodeHint.NONE));
    assertEquals(List.of("10.244.0.1:80"), cluster(eps, ZONE_A));
    Endpoint terminating = new Endpoint("10.244.0.4", 80, true, false, true, true, null, Endpoint.NodeHint.THIS_NODE);
    assertEquals(List.of("10.244.0.4:80"), cluster(List.of(terminating), ZONE_A),
        "no ready endpoint: serving-terminating ones, topology ignored");
  }

  @Test
  void theTrackerReadsForNodesRelativeToThisNodeUnderTheGate() {
    EndpointSlice.Endpoint mine = withNodeHints(withZoneHints(ep("10.244.0.5", "node-a"), "zone-a"), "node-a");
    EndpointSlice.Endpoint other = withNodeHints(ep("10.244.0.6", "node-b"), "node-b", "node-c");
    EndpointSlice.Endpoint none = ep("10.244.0.7", "node-b");
    var slice = slice("demo", "web-1", "web", "IPv4", List.of(slicePort("http", 80, "TCP")), mine, other, none);

    EndpointsChangeTracker on = new EndpointsChangeTracker(IpFamily.IPv4, "node-a", true, true, new ProxyMetrics(),
        Clock.systemUTC(), (s, ip) -> { });
    EndpointsMap map = new EndpointsMap();
    on.update(slice, false);
    map.update(on);
    assertEquals(List.of(Endpoint.NodeHint.THIS_NODE, Endpoint.NodeHint.OTHER_NODES, Endpoint.NodeHint.NONE),
        map.get(HTTP).stream().map(Endpoint::nodeHint).toList());
    assertEquals(Set.of("zone-a"), map.get(HTTP).get(0).zoneHints());

    EndpointsChangeTracker off = new EndpointsChangeTracker(IpFamily.IPv4, "node-a", true, false, new ProxyMetrics(),
        Clock.systemUTC(), (s, ip) -> { });
    EndpointsMap offMap = new EndpointsMap();
    off.update(slice, false);
    offMap.update(off);
    assertEquals(List.of(Endpoint.NodeHint.NONE, Endpoint.NodeHint.NONE, Endpoint.NodeHint.NONE),
        offMap.get(HTTP).stream().map(Endpoint::nodeHint).toList(), "PreferSameTrafficDistribution=false");
  }

  @Test
  void theGateIsGaAndOn() {
    assertTrue(ModelGates.from(dev.kubeproxy.config.FeatureGates.of(Map.of())).preferSameTrafficDistribution());
  }

  static EndpointSlice.Endpoint withNodeHints(EndpointSlice.Endpoint ep, String... nodes) {
    return ClusterObjects.withNodeHints(ep, nodes);
  }

}
