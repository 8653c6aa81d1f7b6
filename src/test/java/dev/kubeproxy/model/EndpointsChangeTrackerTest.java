package dev.kubeproxy.model;

import dev.kubeproxy.net.IpFamily;

import static dev.kubeproxy.model.TestObjects.ep;
import static dev.kubeproxy.model.TestObjects.slice;
import static dev.kubeproxy.model.TestObjects.slicePort;
import static dev.kubeproxy.model.TestObjects.withZoneHints;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kubeproxy.model.objects.ClusterObjects;
import dev.kubeproxy.model.objects.EndpointSlice;
import dev.kubeproxy.testutil.CountingMetrics;
import dev.kubeproxy.testutil.tier.Unit;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

@Unit
class EndpointsChangeTrackerTest {
  private static final NamespacedName WEB = new NamespacedName("demo", "web");
  private static final ServicePortName HTTP = new ServicePortName(WEB, "http", "TCP");
  private static final ServicePortName DNS = new ServicePortName(WEB, "dns", "UDP");
  private static final Instant START = Instant.parse("2026-01-01T00:00:00Z");

  private final CountingMetrics metrics = new CountingMetrics();
  private final List<String> wrongFamily = new ArrayList<>();
  private final EndpointsChangeTracker tracker = new EndpointsChangeTracker(IpFamily.IPv4, "node-a", true, metrics,
      Clock.fixed(START, ZoneOffset.UTC), (svc, ip) -> wrongFamily.add(svc + " " + ip));
  private final EndpointsMap map = new EndpointsMap();

  private static EndpointSlice webSlice(String name, EndpointSlice.Endpoint... eps) {
    return slice("demo", name, "web", "IPv4", List.of(slicePort("http", 8080, "TCP")), eps);
  }

  private static List<String> ids(List<Endpoint> eps) {
    return eps.stream().map(Endpoint::endpoint).toList();
  }

  @Test
  void severalSlicesOfOneServiceAreMergedAndSorted() {
    assertTrue(tracker.update(webSlice("web-1", ep("10.244.0.9", "node-b"), ep("10.244.0.10", "node-a")), false));
    assertTrue(tracker.update(webSlice("web-2", ep("10.244.1.5", "node-c")), false));
    assertEquals(2, metrics.endpointPending);
    EndpointsMap.UpdateResult r = map.update(tracker);
    assertEquals(Set.of(WEB), r.updatedServices());
    // byte order of "ip:port": 10.244.0.10 before 10.244.0.9
    assertEquals(List.of("10.244.0.10:8080", "10.244.0.9:8080", "10.244.1.5:8080"), ids(map.get(HTTP)));
    assertTrue(map.get(HTTP).get(0).local());
    assertFalse(map.get(HTTP).get(1).local());
    assertEquals(0, metrics.endpointPending);
  }

  @Test
  void aReusedPodIpIsTheRunningPodsEndpointWhateverTheSliceOrderOrNode() {
    // The terminating pod's copy is local and in the first slice; the running pod's copy still wins.
    tracker.update(webSlice("a", ep("10.244.0.5", "node-a", false, true, true)), false);
    tracker.update(webSlice("b", ep("10.244.0.5", "node-b", true, true, false)), false);
    map.update(tracker);
    List<Endpoint> eps = map.get(HTTP);
    assertEquals(1, eps.size());
    assertTrue(eps.get(0).ready());
    assertFalse(eps.get(0).terminating());
    assertEquals("node-b", eps.get(0).nodeName());
  }

  @Test
  void aReadyCopyWinsOverANotReadyOneAndTheOtherAddressesStay() {
    // Slice a lists the address ready; slice b lists it not ready (on this node) next to another ready address.
    tracker.update(webSlice("a", ep("10.244.1.10", "node-b", true, true, false)), false);
    tracker.update(webSlice("b", ep("10.244.1.10", "node-a", false, false, false), ep("10.244.1.11", "node-c")), false);
    map.update(tracker);
    assertEquals(List.of("10.244.1.10:8080", "10.244.1.11:8080"), ids(map.get(HTTP)));
    assertTrue(map.get(HTTP).get(0).ready());
    assertTrue(map.get(HTTP).get(1).ready());
  }

  @Test
  void aTerminatingServingCopyWinsOverATerminatingNotServingOne() {
    tracker.update(webSlice("a", ep("10.244.0.5", "node-b", false, false, true)), false);
    tracker.update(webSlice("b", ep("10.244.0.5", "node-c", false, true, true)), false);
    map.update(tracker);
    assertTrue(map.get(HTTP).get(0).serving());
  }

  @Test
  void firstSeenWinsAmongAlikeDuplicates() {
    tracker.update(webSlice("a", ep("10.244.0.5", "node-b")), false);
    tracker.update(webSlice("b", ep("10.244.0.5", "node-a")), false);
    map.update(tracker);
    assertEquals("node-b", map.get(HTTP).get(0).nodeName());
  }

  @Test
  void fqdnAndOtherFamilySlicesAreIgnored() {
    EndpointSlice fqdn = slice("demo", "f", "web", "FQDN", List.of(slicePort("http", 80, "TCP")), ep("example.com", null));
    assertFalse(tracker.update(fqdn, false));
    EndpointSlice v6 = slice("demo", "s6", "web", "IPv6", List.of(slicePort("http", 80, "TCP")), ep("fd00::1", null));
    assertFalse(tracker.update(v6, false));
    assertEquals(0, metrics.endpointChanges, "slices of other families do not count");
  }

  @Test
  void slicesWithoutServiceLabelAreIgnored() {
    EndpointSlice s = webSlice("x", ep("10.244.0.5", null));
    s = ClusterObjects.withMetadata(s, s.metadata().withLabels(Map.of()));
    assertFalse(tracker.update(s, false));
    assertEquals(0, tracker.pendingCount());
  }

  @Test
  void wrongFamilyEndpointsAndBadAddressesAreSkipped() {
    tracker.update(webSlice("a", ep("fd00::5", "node-a"), ep("10.244.0.5", null), ep("bogus", null),
        ClusterObjects.endpoint(null, null, null, null, null)), false);
    map.update(tracker);
    assertEquals(List.of("10.244.0.5:8080"), ids(map.get(HTTP)));
    assertEquals(List.of("demo/web fd00::5"), wrongFamily);
  }

  @Test
  void portsWithoutNameOrNumberAreSkipped() {
    EndpointSlice s = slice("demo", "a", "web", "IPv4",
        List.of(slicePort(null, 80, "TCP"), slicePort("zero", 0, "TCP"), slicePort("nil", null, "TCP"),
            slicePort("dns", 53, "UDP")), ep("10.244.0.5", null));
    tracker.update(s, false);
    map.update(tracker);
    assertEquals(List.of("10.244.0.5:53"), ids(map.get(DNS)));
    assertEquals(List.of(), map.get(new ServicePortName(WEB, "zero", "TCP")));
  }

  @Test
  void unchangedSliceIsNoChangeAndOrderDoesNotMatter() {
    tracker.update(webSlice("a", ep("10.244.0.5", null), ep("10.244.0.6", null)), false);
    map.update(tracker);
    EndpointSlice.Endpoint six = ep("10.244.0.6", null);
    EndpointSlice.Endpoint namedSix = new EndpointSlice.Endpoint(six.addresses(), six.ready(), six.serving(),
        six.terminating(), "pod-6", six.nodeName(), six.zone(), six.zoneHints(), six.nodeHints());
    EndpointSlice reordered = webSlice("a", namedSix, ep("10.244.0.5", null));
    assertFalse(tracker.update(reordered, false));
    assertEquals(0, tracker.pendingCount());
    assertEquals(2, metrics.endpointChanges, "every event counts, changed or not");
  }

  @Test
  void removingUnknownSliceIsNoChangeAndAddThenRemoveCancels() {
    assertFalse(tracker.update(webSlice("a", ep("10.244.0.5", null)), true));
    assertTrue(tracker.update(webSlice("b", ep("10.244.0.5", null)), false));
    assertTrue(tracker.update(webSlice("b", ep("10.244.0.5", null)), true));
    EndpointsMap.UpdateResult r = map.update(tracker);
    assertEquals(List.of(), map.get(HTTP));
    assertEquals(Set.of(WEB), r.updatedServices());
  }

  @Test
  void sliceRemovalDropsItsEndpoints() {
    tracker.update(webSlice("a", ep("10.244.0.5", null)), false);
    tracker.update(webSlice("b", ep("10.244.0.6", null)), false);
    map.update(tracker);
    assertTrue(tracker.update(webSlice("a", ep("10.244.0.5", null)), true));
    map.update(tracker);
    assertEquals(List.of("10.244.0.6:8080"), ids(map.get(HTTP)));
  }

  @Test
  void conditionsDefaultToReadyAndServing() {
    EndpointSlice.Endpoint noConditions = ClusterObjects.endpoint("10.244.0.5", null, null, null, null);
    tracker.update(webSlice("a", noConditions), false);
    map.update(tracker);
    Endpoint e = map.get(HTTP).get(0);
    assertTrue(e.ready());
    assertTrue(e.serving());
    assertFalse(e.terminating());
    assertFalse(e.local(), "no nodeName never matches");
    assertNull(e.zoneHints());
  }

  @Test
  void zoneHintsAreKeptOnlyWithTheGate() {
    tracker.update(webSlice("a", withZoneHints(ep("10.244.0.5", null), "zone-a", "zone-b")), false);
    map.update(tracker);
    assertEquals(Set.of("zone-a", "zone-b"), map.get(HTTP).get(0).zoneHints());

    EndpointsChangeTracker noGate = new EndpointsChangeTracker(IpFamily.IPv4, "node-a", false, metrics,
        Clock.systemUTC(), (s, ip) -> {});
    EndpointsMap other = new EndpointsMap();
    noGate.update(webSlice("a", withZoneHints(ep("10.244.0.5", null), "zone-a")), false);
    other.update(noGate);
    assertNull(other.get(HTTP).get(0).zoneHints());
  }

  private static EndpointSlice withTrigger(EndpointSlice s, String time) {
    HashMap<String, String> a = new HashMap<>();
    a.put("endpoints.kubernetes.io/last-change-trigger-time", time);
    return ClusterObjects.withMetadata(s, s.metadata().withAnnotations(a));
  }

  @Test
  void triggerTimesAreRecordedForRealChangesAfterStart() {
    tracker.update(withTrigger(webSlice("a", ep("10.244.0.5", null)), "2026-01-01T00:00:05.123456789Z"), false);
    // unchanged content with a new annotation: not a change, no time
    tracker.update(withTrigger(webSlice("a", ep("10.244.0.5", null)), "2026-01-01T00:00:06Z"), false);
    tracker.update(withTrigger(webSlice("b", ep("10.244.0.6", null)), "2025-12-31T23:59:59Z"), false); // before start
    tracker.update(withTrigger(webSlice("c", ep("10.244.0.7", null)), "not a time"), false);
    tracker.update(withTrigger(webSlice("d", ep("10.244.0.8", null)), "0001-01-01T00:00:00Z"), false);
    tracker.update(withTrigger(webSlice("e", ep("10.244.0.9", null)), "2026-01-01T01:00:07+01:00"), false);
    EndpointsMap.UpdateResult r = map.update(tracker);
    assertEquals(Map.of(WEB, List.of(Instant.parse("2026-01-01T00:00:05.123456789Z"),
        Instant.parse("2026-01-01T00:00:07Z"))), r.triggerTimes());
    assertEquals(Map.of(), map.update(tracker).triggerTimes(), "handed over once");
  }

  @Test
  void sliceDeletionForgetsTriggerTimes() {
    tracker.update(withTrigger(webSlice("a", ep("10.244.0.5", null)), "2026-01-01T00:00:05Z"), false);
    map.update(tracker);
    tracker.update(withTrigger(webSlice("b", ep("10.244.0.6", null)), "2026-01-01T00:00:06Z"), false);
    tracker.update(webSlice("a", ep("10.244.0.5", null)), true);
    assertEquals(Map.of(), map.update(tracker).triggerTimes());
  }

  private static EndpointSlice dnsSlice(String name, EndpointSlice.Endpoint... eps) {
    return slice("demo", name, "web", "IPv4", List.of(slicePort("dns", 53, "UDP"), slicePort("http", 8080, "TCP")), eps);
  }

  @Test
  void localReadyEndpointsCountsDistinctIPs() {
    tracker.update(dnsSlice("a", ep("10.244.0.5", "node-a"), ep("10.244.0.6", "node-a", false, true, true),
        ep("10.244.0.7", "node-b")), false);
    tracker.update(slice("demo", "o", "other", "IPv4", List.of(slicePort("", 80, "TCP")), ep("10.244.1.1", "node-b")),
        false);
    map.update(tracker);
    assertEquals(Map.of(WEB, 1), map.localReadyEndpoints());
  }

  /** Each port repeats the IPs: three ready local IPs on two ports count three, a not-ready one none. */
  @Test
  void localReadyEndpointsCountEachIPOnceOverAllPorts() {
    tracker.update(dnsSlice("a", ep("10.244.0.5", "node-a"), ep("10.244.0.8", "node-a"), ep("10.244.0.5", "node-a"),
        ep("10.244.0.9", "node-a"), ep("10.244.0.6", "node-a", false, true, true)), false);
    map.update(tracker);
    assertEquals(Map.of(WEB, 3), map.localReadyEndpoints());
  }

  @Test
  void localReadyEndpointsFollowEachChangedServiceAndStayTheSameMapOtherwise() {
    tracker.update(dnsSlice("a", ep("10.244.0.5", "node-a")), false);
    map.update(tracker);
    Map<NamespacedName, Integer> first = map.localReadyEndpoints();
    assertEquals(Map.of(WEB, 1), first);
    // an endpoint of another node: the count, and so the map handed out, stay the same
    tracker.update(dnsSlice("a", ep("10.244.0.5", "node-a"), ep("10.244.0.7", "node-b")), false);
    map.update(tracker);
    assertSame(first, map.localReadyEndpoints());
    tracker.update(dnsSlice("a", ep("10.244.0.5", "node-a"), ep("10.244.0.8", "node-a")), false);
    map.update(tracker);
    assertEquals(Map.of(WEB, 2), map.localReadyEndpoints());
    tracker.update(dnsSlice("a", ep("10.244.0.5", "node-a"), ep("10.244.0.8", "node-a")), true);
    map.update(tracker);
    assertEquals(Map.of(), map.localReadyEndpoints());
  }

  /** The slice's ports are read in port order and without a protocol as TCP, however they come. */
  @Test
  void portsOutOfOrderAndWithoutProtocolAreReadInOrderAsTcp() {
    tracker.update(slice("demo", "a", "web", "IPv4", List.of(slicePort("http", 80, null), slicePort("dns", 53, "UDP")),
        ep("10.244.0.5", "node-b")), false);
    map.update(tracker);
    assertEquals(List.of("10.244.0.5:80"), ids(map.get(HTTP)));
    assertEquals(List.of("10.244.0.5:53"), ids(map.get(DNS)));
    // The same slice with the protocol spelled out: the same endpoints.
    tracker.update(slice("demo", "a", "web", "IPv4", List.of(slicePort("dns", 53, "UDP"), slicePort("http", 80, "TCP")),
        ep("10.244.0.5", "node-b")), false);
    map.update(tracker);
    assertEquals(List.of("10.244.0.5:80"), ids(map.get(HTTP)));
  }
}
