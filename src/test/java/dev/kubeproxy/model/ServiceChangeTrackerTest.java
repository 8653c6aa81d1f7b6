package dev.kubeproxy.model;

import dev.kubeproxy.net.IpFamily;

import static dev.kubeproxy.model.TestObjects.edit;
import static dev.kubeproxy.model.TestObjects.port;
import static dev.kubeproxy.model.TestObjects.service;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kubeproxy.model.objects.Service;
import dev.kubeproxy.testutil.CountingMetrics;
import dev.kubeproxy.testutil.tier.Unit;
import java.util.HashMap;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

@Unit
class ServiceChangeTrackerTest {
  private final CountingMetrics metrics = new CountingMetrics();
  private final ServiceChangeTracker tracker = new ServiceChangeTracker(IpFamily.IPv4, true, metrics);
  private final ServicePortMap map = new ServicePortMap();
  private static final NamespacedName WEB = new NamespacedName("demo", "web");

  @Test
  void addThenSyncMergesIntoTheMap() {
    Service svc = service("demo", "web", "10.96.0.10", port("http", 80, "TCP"), port("dns", 53, "UDP"));
    assertTrue(tracker.update(null, svc));
    assertEquals(1, metrics.serviceChanges);
    assertEquals(1, metrics.servicePending);
    ServicePortMap.UpdateResult r = map.update(tracker);
    assertEquals(Set.of(WEB), r.updatedServices());
    assertEquals(List.of(), r.deletedPorts());
    assertEquals(2, map.size());
    assertEquals(0, metrics.servicePending);
    assertEquals(0, tracker.pendingCount());
  }

  @Test
  void bothNullIsNothing() {
    assertFalse(tracker.update(null, null));
    assertEquals(0, metrics.serviceChanges);
  }

  @Test
  void addThenDeleteBeforeSyncCancelsOut() {
    Service svc = service("demo", "web", "10.96.0.10", port("http", 80, "TCP"));
    assertTrue(tracker.update(null, svc));
    assertFalse(tracker.update(svc, null));
    assertEquals(2, metrics.serviceChanges);
    assertEquals(0, metrics.servicePending);
    assertEquals(Set.of(), map.update(tracker).updatedServices());
  }

  @Test
  void irrelevantEditsAreNoChange() {
    Service svc = service("demo", "web", "10.96.0.10", port("http", 80, "TCP"));
    tracker.update(null, svc);
    map.update(tracker);
    Service relabelled = service("demo", "web", "10.96.0.10", port("http", 80, "TCP"));
    HashMap<String, String> labels = new HashMap<>();
    labels.put("app", "other");
    relabelled = edit(relabelled).labels(labels).resourceVersion("42").build();
    assertFalse(tracker.update(svc, relabelled), "a label edit is no change");
    assertEquals(0, tracker.pendingCount());
    // an unrelated pending change makes update return true even for a no-op call
    tracker.update(null, service("demo", "other", "10.96.0.11", port("http", 80, "TCP")));
    assertTrue(tracker.update(svc, relabelled));
    assertEquals(1, tracker.pendingCount());
  }

  @Test
  void changeAndChangeBackIsNoChange() {
    Service v1 = service("demo", "web", "10.96.0.10", port("http", 80, "TCP"));
    tracker.update(null, v1);
    map.update(tracker);
    Service v2 = service("demo", "web", "10.96.0.10", port("http", 8080, "TCP"));
    assertTrue(tracker.update(v1, v2));
    assertFalse(tracker.update(v2, v1));
  }

  @Test
  void removedPortsAreReportedWhole() {
    Service v1 = service("demo", "web", "10.96.0.10", port("http", 80, "TCP"), port("dns", 53, "UDP"),
        port("tcpdns", 53, "TCP"));
    tracker.update(null, v1);
    map.update(tracker);
    Service v2 = service("demo", "web", "10.96.0.10", port("http", 8080, "TCP"));
    tracker.update(v1, v2);
    ServicePortMap.UpdateResult r = map.update(tracker);
    assertEquals(List.of("dns/UDP", "tcpdns/TCP"), r.deletedPorts().stream()
        .map(p -> p.name().port() + "/" + p.protocol()).sorted().toList());
    assertEquals("10.96.0.10", r.deletedPorts().get(0).clusterIP());
    assertEquals(1, map.size());
    assertEquals(8080, map.get(new ServicePortName(WEB, "http", "TCP")).port(), "an update is not a deletion");
    assertNull(map.get(new ServicePortName(WEB, "dns", "UDP")));

    tracker.update(v2, null);
    r = map.update(tracker);
    assertEquals(List.of(8080), r.deletedPorts().stream().map(ServicePort::port).toList(),
        "the deleted Service's last port");
    assertEquals(Set.of(WEB), r.updatedServices());
    assertEquals(0, map.size());
  }

  @Test
  void oldObjectOfFirstUpdateIsTheBaseline() {
    Service v1 = service("demo", "web", "10.96.0.10", port("dns", 53, "UDP"));
    tracker.update(null, v1);
    map.update(tracker);
    Service v2 = service("demo", "web", "10.96.0.10", port("dns", 54, "UDP"));
    Service v3 = service("demo", "web", "10.96.0.20", port("other", 55, "UDP"));
    tracker.update(v1, v2);
    tracker.update(v2, v3);
    ServicePortMap.UpdateResult r = map.update(tracker);
    assertEquals(List.of("10.96.0.10"), r.deletedPorts().stream().map(ServicePort::clusterIP).toList());
    assertNotNull(map.get(new ServicePortName(WEB, "other", "UDP")));
    assertEquals(1, map.size());
  }

  @Test
  void snapshotIsImmutableAndDetached() {
    tracker.update(null, service("demo", "web", "10.96.0.10", port("http", 80, "TCP")));
    map.update(tracker);
    var snap = map.snapshot();
    tracker.update(service("demo", "web", "10.96.0.10", port("http", 80, "TCP")), null);
    map.update(tracker);
    assertEquals(1, snap.size());
    assertEquals(0, map.size());
  }

  /**
   * What is skipped silently is logged once per Service and reason: at -v=2, except a Service
   * lacking the tracker's family (every single-stack Service on a dual-stack node), at -v=4.
   */
  @Test
  void skipsAreLoggedOnceAtV2() {
    java.io.ByteArrayOutputStream captured = new java.io.ByteArrayOutputStream();
    java.io.PrintStream capture = new java.io.PrintStream(captured, true);
    int verbosity = dev.kubeproxy.logging.Log.verbosity();
    dev.kubeproxy.logging.Log.setOutputs(capture, capture);
    dev.kubeproxy.logging.Log.setVerbosity(2);
    try {
      Service headless = service("demo", "headless", "None", port("http", 80, "TCP"));
      tracker.update(null, headless);
      tracker.update(headless, headless);
      Service v6only = service("demo", "v6", "fd00::10", port("http", 80, "TCP"));
      tracker.update(null, v6only);
      Service dup = service("demo", "dup", "10.96.0.30", port("http", 80, "TCP"), port("http", 81, "TCP"));
      tracker.update(null, dup);
      tracker.update(dup, dup);
      Service external = service("demo", "ext", "10.96.0.31", port("http", 80, "TCP"));
      external = edit(external).type("ExternalName").build();
      tracker.update(null, external);
      tracker.update(null, service("demo", "fine", "10.96.0.32", port("http", 80, "TCP")));
      String out = captured.toString();
      assertEquals(1, count(out, "service=\"demo/headless\""), out);
      assertTrue(out.contains("headless (clusterIP None)"), out);
      assertEquals(0, count(out, "service=\"demo/v6\""), out);
      assertEquals(1, count(out, "service=\"demo/dup\""), out);
      assertTrue(out.contains("duplicate port name"), out);
      assertEquals(1, count(out, "service=\"demo/ext\""), out);
      assertFalse(out.contains("demo/fine"), out);
      // Deleted and created again: logged again.
      tracker.update(headless, null);
      tracker.update(null, headless);
      assertEquals(2, count(captured.toString(), "service=\"demo/headless\""));
      // The missing family at -v=4, once.
      dev.kubeproxy.logging.Log.setVerbosity(4);
      tracker.update(v6only, v6only);
      tracker.update(v6only, v6only);
      assertEquals(1, count(captured.toString(), "service=\"demo/v6\""));
      assertTrue(captured.toString().contains("no IPv4 cluster IP"));
      // Below -v=2: nothing.
      dev.kubeproxy.logging.Log.setVerbosity(1);
      tracker.update(null, service("demo", "headless-2", "None", port("http", 80, "TCP")));
      assertFalse(captured.toString().contains("headless-2"));
    } finally {
      dev.kubeproxy.logging.Log.setVerbosity(verbosity);
      dev.kubeproxy.logging.Log.setOutputs(System.err, System.err);
    }
  }

  private static int count(String text, String part) {
    int n = 0;
    for (int at = text.indexOf(part); at >= 0; at = text.indexOf(part, at + 1)) {
      n++;
    }
    return n;
  }
}
