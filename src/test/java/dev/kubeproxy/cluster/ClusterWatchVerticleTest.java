package dev.kubeproxy.cluster;

import dev.kubeproxy.messages.ClusterEvent;
import dev.kubeproxy.messages.EventRequest;
import dev.kubeproxy.messages.NodeInfo;

import static dev.kubeproxy.cluster.BusRecorder.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kubeproxy.config.AgentOptions;
import dev.kubeproxy.messages.EventBusAddresses;
import dev.kubeproxy.messages.ClusterEvent.Kind;
import dev.kubeproxy.testapi.TestApiServer;
import dev.kubeproxy.model.objects.Service;
import dev.kubeproxy.testutil.tier.Unit;
import io.kubernetes.client.openapi.models.V1Node;
import io.kubernetes.client.openapi.models.V1Service;
import io.kubernetes.client.openapi.models.V1Taint;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The real ClusterWatchVerticle (client-java informers) against the in-process test API server. */
@Unit
class ClusterWatchVerticleTest {
  private static final Duration WAIT = Duration.ofSeconds(30);
  private static final String PROXY_NAME = "service.kubernetes.io/service-proxy-name";

  @TempDir Path tmp;
  private Vertx vertx;
  private TestApiServer api;
  private BusRecorder bus;

  @BeforeEach
  void setUp() throws Exception {
    vertx = Vertx.vertx();
    api = new TestApiServer(vertx);
    get(api.start(0));
    bus = new BusRecorder(vertx);
  }

  @AfterEach
  void tearDown() throws Exception {
    get(vertx.close());
  }

  static <T> T get(Future<T> f) throws Exception {
    return f.toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);
  }

  private ClusterWatchVerticle deploy(AgentOptions options) throws Exception {
    ClusterWatchVerticle v = new ClusterWatchVerticle(options);
    get(vertx.deployVerticle(v));
    return v;
  }

  private AgentOptions options() throws Exception {
    return Fixtures.options(api.writeKubeconfig(tmp).toString(), "node-1");
  }

  /** A Service whose port is the string "eighty": client-java's Gson cannot decode it (NumberFormatException). */
  private static io.vertx.core.json.JsonObject eighty(String name) {
    return new io.vertx.core.json.JsonObject("{\"apiVersion\":\"v1\",\"kind\":\"Service\",\"metadata\":{\"namespace\":"
        + "\"default\",\"name\":\"" + name + "\"},\"spec\":{\"clusterIP\":\"10.96.0.80\",\"ports\":[{\"port\":\"eighty\"}]}}");
  }

  /**
   * Issue 15 item 5: items that do not decode, in the initial list and in the watch, are left out
   * and reported; the list, the watch and every other object go on. Objects that decode but are
   * invalid (port 70000) are left out too, each with a FailedValidation event naming the field.
   */
  @Test
  void badItemsNeitherFailTheListNorTheWatch() throws Exception {
    List<EventRequest> reports = java.util.Collections.synchronizedList(new java.util.ArrayList<>());
    vertx.eventBus().<EventRequest>consumer(dev.kubeproxy.messages.EventBusAddresses.EVENTS, m -> reports.add(m.body()));
    api.upsert(Fixtures.service("default", "web", "10.96.0.10", null));
    api.upsert(eighty("eighty"));
    V1Service big = Fixtures.service("default", "big", "10.96.0.11", null);
    big.getSpec().getPorts().get(0).port(70000);
    api.upsert(big);
    api.upsert(Fixtures.slice("default", "web", "web-abc", 2, "node-1"));
    io.kubernetes.client.openapi.models.V1EndpointSlice badSlice = Fixtures.slice("default", "web", "web-bad", 1, "node-1");
    badSlice.getPorts().get(0).port(70000);
    api.upsert(badSlice);

    deploy(options());
    await("synced", WAIT, () -> bus.synced.containsAll(Set.of(Kind.SERVICE, Kind.ENDPOINT_SLICE)));
    assertEquals(Set.of("default/web"), bus.keysAtSync.get(Kind.SERVICE));
    assertEquals(Set.of("default/web-abc"), bus.keysAtSync.get(Kind.ENDPOINT_SLICE));
    await("three reports", WAIT, () -> reports.stream().filter(r -> r.reason().equals("FailedValidation")).count() == 3);
    assertTrue(reports.stream().anyMatch(r -> r.serviceName().equals("eighty") && r.note().contains("does not decode")), reports.toString());
    assertTrue(reports.stream().anyMatch(r -> r.serviceName().equals("big") && r.note().contains("spec.ports[0].port")), reports.toString());
    assertTrue(reports.stream().anyMatch(r -> r.regardingKind().equals("EndpointSlice") && r.serviceName().equals("web-bad")
        && r.note().contains("ports[0].port: Invalid value: 70000")), reports.toString());

    // Through the watch: a bad add is skipped, later good objects arrive, a bad object's delete is harmless.
    api.upsert(eighty("eighty-2"));
    api.upsert(Fixtures.service("default", "web-2", "10.96.0.12", null));
    await("web-2 through the watch", WAIT, () -> bus.keys(Kind.SERVICE).contains("default/web-2"));
    api.delete("Service", "default", "eighty");
    api.delete("Service", "default", "web");
    await("web deleted", WAIT, () -> !bus.keys(Kind.SERVICE).contains("default/web"));
    assertEquals(Set.of("default/web-2"), bus.keys(Kind.SERVICE));
    await("eighty-2 reported", WAIT, () -> reports.stream().anyMatch(r -> r.serviceName().equals("eighty-2")));

    // A relist (history expired) still lists the good objects around the bad one.
    api.expireHistory();
    api.dropAllWatches();
    api.upsert(Fixtures.service("default", "web-3", "10.96.0.13", null));
    await("web-3 after the relist", WAIT, () -> bus.keys(Kind.SERVICE).contains("default/web-3"));
    assertEquals(Set.of("default/web-2", "default/web-3"), bus.keys(Kind.SERVICE));
  }

  /** A Service from an API server newer than client-java, with fields the client does not know, is not lost. */
  @Test
  void fieldsNewerThanTheClientAreIgnoredInListsAndWatches() throws Exception {
    api.upsert(new io.vertx.core.json.JsonObject("{\"apiVersion\":\"v1\",\"kind\":\"Service\",\"metadata\":{\"namespace\":"
        + "\"default\",\"name\":\"listed\"},\"spec\":{\"clusterIP\":\"10.96.0.20\",\"futureField\":1,"
        + "\"ports\":[{\"port\":80,\"futurePortField\":\"x\"}]}}"));
    deploy(options());
    await("synced", WAIT, () -> bus.synced.contains(Kind.SERVICE));
    assertEquals(Set.of("default/listed"), bus.keysAtSync.get(Kind.SERVICE));
    api.upsert(new io.vertx.core.json.JsonObject("{\"apiVersion\":\"v1\",\"kind\":\"Service\",\"metadata\":{\"namespace\":"
        + "\"default\",\"name\":\"watched\",\"futureMeta\":{}},\"spec\":{\"clusterIP\":\"10.96.0.21\","
        + "\"ports\":[{\"port\":80}]},\"futureTop\":true}"));
    await("watched through the watch", WAIT, () -> bus.keys(Kind.SERVICE).contains("default/watched"));
  }

  @Test
  void initialListThenSyncedThenChanges() throws Exception {
    api.upsert(Fixtures.service("default", "web", "10.96.0.10", Map.of("app", "web")));
    api.upsert(Fixtures.service("default", "other-proxy", "10.96.0.11", Map.of(PROXY_NAME, "x")));
    api.upsert(Fixtures.service("kube-system", "dns", "10.96.0.12", null));
    api.upsert(Fixtures.service("default", "headless", "None", null)); // not fetched: spec.clusterIP!=None
    api.upsert(Fixtures.slice("default", "web", "web-abc", 3, "node-1"));
    api.upsert(Fixtures.slice("default", "headless", "headless-abc", 2, "node-1")
        .metadata(new io.kubernetes.client.openapi.models.V1ObjectMeta().namespace("default").name("headless-abc")
            .labels(Map.of("service.kubernetes.io/headless", ""))));
    api.upsert(Fixtures.node("node-1", List.of("10.244.1.0/24"), List.of(Fixtures.address("InternalIP", "192.168.200.10"))));
    api.upsert(Fixtures.node("node-2", List.of("10.244.2.0/24"), List.of()));

    deploy(options());
    await("all kinds synced", WAIT, () -> bus.synced.containsAll(Set.of(Kind.SERVICE, Kind.ENDPOINT_SLICE, Kind.NODE,
        Kind.SERVICE_CIDR)));
    // SYNCED comes after the initial list, and excluded objects never arrive.
    assertEquals(Set.of("default/web", "kube-system/dns"), bus.keysAtSync.get(Kind.SERVICE));
    assertEquals(Set.of("default/web-abc"), bus.keysAtSync.get(Kind.ENDPOINT_SLICE));
    assertEquals(Set.of("node-1"), bus.keysAtSync.get(Kind.NODE));

    // update, delete
    api.upsert(Fixtures.service("default", "web", "10.96.0.10", Map.of("app", "web", "v", "2")));
    await("update arrives", WAIT, () -> ((Service) bus.state.get(Kind.SERVICE).get("default/web"))
        .metadata().labels().containsKey("v"));
    api.delete("Service", "kube-system", "dns");
    api.upsert(Fixtures.service("default", "headless2", "None", null));
    await("delete arrives", WAIT, () -> bus.keys(Kind.SERVICE).equals(Set.of("default/web")));
    api.upsert(Fixtures.service("default", "later", "10.96.0.13", null));
    await("a Service created after the headless one arrives", WAIT, () -> bus.keys(Kind.SERVICE).contains("default/later"));
    assertFalse(bus.keys(Kind.SERVICE).contains("default/headless2"), "headless Services are not watched");
    api.delete("Service", "default", "later");
    await("later deleted", WAIT, () -> bus.keys(Kind.SERVICE).equals(Set.of("default/web")));

    // gaining an excluded label makes it disappear; losing it brings it back
    api.upsert(Fixtures.service("default", "web", "10.96.0.10", Map.of(PROXY_NAME, "other")));
    await("excluded label deletes", WAIT, () -> bus.keys(Kind.SERVICE).isEmpty());
    api.upsert(Fixtures.service("default", "web", "10.96.0.10", Map.of("app", "web")));
    await("label removed re-adds", WAIT, () -> bus.keys(Kind.SERVICE).equals(Set.of("default/web")));

    // the birth cry reached the API
    await("Starting event", WAIT, () -> api.list("Event").stream().anyMatch(e -> "Starting".equals(e.getString("reason"))));
    JsonObject starting = api.list("Event").stream().filter(e -> "Starting".equals(e.getString("reason"))).findFirst().orElseThrow();
    assertEquals("kube-proxy", starting.getString("reportingController"));
    assertEquals("kube-proxy-node-1", starting.getString("reportingInstance"));
    assertEquals("StartKubeProxy", starting.getString("action"));
    assertEquals("Normal", starting.getString("type"));
    assertEquals("default", starting.getJsonObject("metadata").getString("namespace"));
    assertTrue(starting.getString("eventTime").matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{6}Z"),
        "a MicroTime: " + starting.getString("eventTime"));
    assertFalse(starting.containsKey("note") && starting.getValue("note") == null, "unset fields are left out");
    assertEquals(new JsonObject().put("kind", "Node").put("name", "node-1").put("uid", "node-1").put("namespace", ""),
        starting.getJsonObject("regarding"));
  }

  /** SYNCED follows every key of a large initial list: the handler delivers long after the informer has synced. */
  @Test
  void syncedFollowsEveryObjectOfALargeList() throws Exception {
    Set<String> keys = new java.util.HashSet<>();
    for (int i = 0; i < 3000; i++) {
      api.upsert(Fixtures.service("default", "svc-" + i, "10.96." + (i / 250) + "." + (i % 250 + 1), null));
      keys.add("default/svc-" + i);
    }
    deploy(options());
    await("synced", WAIT, () -> bus.synced.contains(Kind.SERVICE));
    Set<String> atSync = bus.keysAtSync.get(Kind.SERVICE);
    assertTrue(atSync.equals(keys), "keys delivered before SYNCED: " + atSync.size() + " of " + keys.size());
  }

  @Test
  void droppedWatchesAndObjectsCreatedMeanwhileConverge() throws Exception {
    api.upsert(Fixtures.service("default", "a", "10.96.0.1", null));
    deploy(options());
    await("synced", WAIT, () -> bus.synced.contains(Kind.SERVICE));
    await("watches open", WAIT, () -> api.watchCount() >= 3);
    api.dropAllWatches();
    api.upsert(Fixtures.service("default", "b", "10.96.0.2", null));
    api.delete("Service", "default", "a");
    await("converged after drop", WAIT, () -> bus.keys(Kind.SERVICE).equals(Set.of("default/b")));
  }

  @Test
  void goneHistoryRelistsWithoutLossOrDuplicates() throws Exception {
    for (int i = 0; i < 20; i++) {
      api.upsert(Fixtures.service("default", "s" + i, "10.96.1." + i, null));
    }
    deploy(options());
    await("synced", WAIT, () -> bus.synced.contains(Kind.SERVICE) && bus.keys(Kind.SERVICE).size() == 20);
    await("watches open", WAIT, () -> api.watchCount() >= 3);
    api.expireHistory();
    api.dropAllWatches();
    api.upsert(Fixtures.service("default", "new", "10.96.2.1", null));
    api.delete("Service", "default", "s0");
    api.upsert(Fixtures.service("default", "s1", "10.96.1.1", Map.of("changed", "yes")));
    await("converged after 410", WAIT, () -> bus.keys(Kind.SERVICE).size() == 20
        && bus.keys(Kind.SERVICE).contains("default/new") && !bus.keys(Kind.SERVICE).contains("default/s0")
        && !((Service) bus.state.get(Kind.SERVICE).get("default/s1")).metadata().labels().isEmpty());
    // every delivered delete matched something we had, every upsert carries the latest object
    long deletes = bus.events.stream().filter(e -> e.type() == ClusterEvent.Type.DELETE && e.kind() == Kind.SERVICE).count();
    assertEquals(1, deletes);
  }

  @Test
  void apiServerRestartConvergesWithoutAgentRestart() throws Exception {
    api.upsert(Fixtures.service("default", "a", "10.96.0.1", null));
    deploy(options());
    await("synced", WAIT, () -> bus.keys(Kind.SERVICE).equals(Set.of("default/a")));
    int port = api.port();
    get(api.stop());
    // changes "in etcd" while the server is down
    api.upsert(Fixtures.service("default", "b", "10.96.0.2", null));
    api.delete("Service", "default", "a");
    Thread.sleep(1500); // let the informers fail at least once against the closed port
    get(api.start(port));
    await("converged after restart", WAIT, () -> bus.keys(Kind.SERVICE).equals(Set.of("default/b")));
  }

  @Test
  void unreachableAtStartThenServerAppears() throws Exception {
    int port = api.port();
    AgentOptions options = options();
    get(api.stop());
    api.upsert(Fixtures.service("default", "late", "10.96.0.3", null));
    deploy(options);
    Thread.sleep(1200);
    assertFalse(bus.synced.contains(Kind.SERVICE), "nothing is synced while the API is unreachable");
    get(api.start(port));
    await("synced once reachable", WAIT, () -> bus.synced.contains(Kind.SERVICE)
        && bus.keys(Kind.SERVICE).equals(Set.of("default/late")));
  }

  @Test
  void unauthorizedIsLoggedWithServerAndCauseAtEachRetryThenConverges() throws Exception {
    java.io.ByteArrayOutputStream captured = new java.io.ByteArrayOutputStream();
    java.io.PrintStream capture = new java.io.PrintStream(captured, true, java.nio.charset.StandardCharsets.UTF_8);
    dev.kubeproxy.logging.Log.setOutputs(capture, capture);
    try {
      api.upsert(Fixtures.service("default", "a", "10.96.0.1", null));
      api.requireToken("secret");
      deploy(options());
      String expected = "the API server " + api.url() + " rejected the credentials (401 Unauthorized)";
      await("two failed lists logged", WAIT, () -> captured.toString(java.nio.charset.StandardCharsets.UTF_8)
          .lines().filter(l -> l.contains("Failed to list Services") && l.contains(expected)).count() >= 2);
      assertFalse(bus.synced.contains(Kind.SERVICE));
      api.requireToken(null);
      await("synced once authorized", WAIT, () -> bus.keys(Kind.SERVICE).equals(Set.of("default/a"))
          && bus.synced.contains(Kind.SERVICE));
    } finally {
      dev.kubeproxy.logging.Log.setOutputs(System.err, System.err);
    }
  }

  /**
   * A server older than the spec.clusterIP field label refuses the Services' field selector: the
   * agent lists and watches without it, leaves the headless Services out itself and warns once.
   */
  @Test
  void aRefusedFieldSelectorIsAppliedByTheAgentWithOneWarning() throws Exception {
    java.io.ByteArrayOutputStream captured = new java.io.ByteArrayOutputStream();
    java.io.PrintStream capture = new java.io.PrintStream(captured, true, java.nio.charset.StandardCharsets.UTF_8);
    dev.kubeproxy.logging.Log.setOutputs(capture, capture);
    try {
      api.refuseFieldLabel("Service", "spec.clusterIP");
      api.upsert(Fixtures.service("default", "web", "10.96.0.10", null));
      api.upsert(Fixtures.service("default", "headless", "None", null));
      deploy(options());
      await("services synced", WAIT, () -> bus.synced.contains(Kind.SERVICE));
      assertEquals(Set.of("default/web"), bus.keysAtSync.get(Kind.SERVICE));
      api.upsert(Fixtures.service("default", "headless2", "None", null));
      api.upsert(Fixtures.service("default", "later", "10.96.0.13", null));
      await("a later Service arrives", WAIT, () -> bus.keys(Kind.SERVICE).contains("default/later"));
      assertEquals(Set.of("default/web", "default/later"), bus.keys(Kind.SERVICE), "headless Services are left out");
      api.delete("Service", "default", "headless2");
      api.delete("Service", "default", "later");
      await("later deleted", WAIT, () -> bus.keys(Kind.SERVICE).equals(Set.of("default/web")));
      String log = captured.toString(java.nio.charset.StandardCharsets.UTF_8);
      assertEquals(1, log.lines().filter(l -> l.contains("does not support the field selector")
          && l.contains("spec.clusterIP!=None")).count(), log);
      assertFalse(log.contains("Failed to list Services"), log);
    } finally {
      dev.kubeproxy.logging.Log.setOutputs(System.err, System.err);
    }
  }

  @Test
  void nodeEligibilityAndNodeCidrGuard() throws Exception {
    api.upsert(Fixtures.node("node-1", List.of("10.244.1.0/24"), List.of()));
    AgentOptions options = options();
    options.config().detectLocalMode = "NodeCIDR";
    deploy(options);
    await("node synced", WAIT, () -> bus.synced.contains(Kind.NODE) && !bus.eligibility.isEmpty());
    assertTrue(bus.eligibility.get(bus.eligibility.size() - 1));

    V1Node tainted = Fixtures.node("node-1", List.of("10.244.1.0/24"), List.of());
    tainted.getSpec().taints(List.of(new V1Taint().key("ToBeDeletedByClusterAutoscaler").value("1").effect("NoSchedule")));
    api.upsert(tainted);
    await("ineligible", WAIT, () -> !bus.eligibility.get(bus.eligibility.size() - 1));
    assertTrue(bus.fatal.isEmpty());

    api.upsert(Fixtures.node("node-1", List.of("10.244.9.0/24"), List.of()));
    await("fatal on podCIDR change", WAIT, () -> !bus.fatal.isEmpty());
    assertTrue(bus.fatal.get(0).contains(
        "Using NodeCIDR LocalDetector mode, current PodCIDRs are different than previous PodCIDRs, restarting"), bus.fatal.get(0));
  }

  private ClusterWatchVerticle deployKnowingHostIPs(List<String> hostIPs) throws Exception {
    ClusterWatchVerticle v = new ClusterWatchVerticle(options(),
        new NodeInfo("node-1", List.of("192.168.200.10"), List.of(), Map.of(), hostIPs), null);
    get(vertx.deployVerticle(v));
    return v;
  }

  /** 1.37: the Node's host IPs changing from those the agent started with ends it, to be restarted. */
  @Test
  void aChangeOfTheNodesHostIPsIsFatalInEveryDetectLocalMode() throws Exception {
    api.upsert(Fixtures.node("node-1", List.of("10.244.1.0/24"), List.of(Fixtures.address("InternalIP", "192.168.200.10"))));
    deployKnowingHostIPs(List.of("192.168.200.10"));
    await("node synced", WAIT, () -> bus.synced.contains(Kind.NODE) && !bus.eligibility.isEmpty());
    // other fields, and a Node without any address, change nothing
    api.upsert(Fixtures.node("node-1", List.of("10.244.9.0/24"), List.of(Fixtures.address("InternalIP", "192.168.200.10"),
        Fixtures.address("Hostname", "node-1"))));
    api.upsert(Fixtures.node("node-1", List.of("10.244.9.0/24"), List.of()));
    api.upsert(Fixtures.node("node-1", List.of("10.244.9.0/24"), List.of(Fixtures.address("InternalIP", "192.168.200.10"))));
    await("updates seen", WAIT, () -> bus.eligibility.size() >= 4);
    assertTrue(bus.fatal.isEmpty(), String.valueOf(bus.fatal));

    api.upsert(Fixtures.node("node-1", List.of("10.244.9.0/24"), List.of(Fixtures.address("InternalIP", "192.168.200.11"))));
    await("fatal on a host IP change", WAIT, () -> !bus.fatal.isEmpty());
    assertEquals("NodeIPs changed for the node (node node-1, newNodeIPs [192.168.200.11], oldNodeIPs [192.168.200.10]),"
        + " restarting", bus.fatal.get(0));
    Thread.sleep(200);
    assertEquals(1, bus.fatal.size(), "one fatal message");
  }

  /** A Node that had no host IP in time gets one: the rules were built without it (upstream exits too). */
  @Test
  void hostIPsAppearingAfterAStartWithoutThemAreFatal() throws Exception {
    api.upsert(Fixtures.node("node-1", List.of(), List.of()));
    deployKnowingHostIPs(List.of());
    await("node synced", WAIT, () -> bus.synced.contains(Kind.NODE));
    api.upsert(Fixtures.node("node-1", List.of(), List.of(Fixtures.address("InternalIP", "192.168.200.10"))));
    await("fatal", WAIT, () -> !bus.fatal.isEmpty());
    assertTrue(bus.fatal.get(0).startsWith("NodeIPs changed for the node"), bus.fatal.get(0));
  }

  /** 1.37: deleting the Node ends the agent, also outside NodeCIDR mode. */
  @Test
  void theNodesDeletionIsFatal() throws Exception {
    api.upsert(Fixtures.node("node-1", List.of(), List.of(Fixtures.address("InternalIP", "192.168.200.10"))));
    deployKnowingHostIPs(List.of("192.168.200.10"));
    await("node synced", WAIT, () -> bus.synced.contains(Kind.NODE) && !bus.eligibility.isEmpty());
    assertTrue(bus.fatal.isEmpty());
    api.delete("Node", null, "node-1");
    await("fatal on deletion", WAIT, () -> !bus.fatal.isEmpty());
    assertEquals("Node is being deleted (node node-1), restarting", bus.fatal.get(0));
  }

  @Test
  void serviceCidrsOnV1WithoutAnyGateAndEventsAddress() throws Exception {
    api.upsert(new JsonObject().put("apiVersion", "networking.k8s.io/v1").put("kind", "ServiceCIDR")
        .put("metadata", new JsonObject().put("name", "kubernetes"))
        .put("spec", new JsonObject().put("cidrs", new io.vertx.core.json.JsonArray().add("10.96.0.0/16").add("fd00:10:96::/112"))));
    deploy(options());
    await("servicecidrs synced", WAIT, () -> bus.synced.contains(Kind.SERVICE_CIDR)
        && bus.keys(Kind.SERVICE_CIDR).equals(Set.of("kubernetes")));

    vertx.eventBus().send(EventBusAddresses.EVENTS,
        EventRequest.failedToStartServiceHealthcheck("node-1", "default", "web", 30000, "bind: address already in use"));
    await("service event written", WAIT, () -> api.list("Event").stream()
        .anyMatch(e -> "FailedToStartServiceHealthcheck".equals(e.getString("reason"))));
    JsonObject ev = api.list("Event").stream()
        .filter(e -> "FailedToStartServiceHealthcheck".equals(e.getString("reason"))).findFirst().orElseThrow();
    assertEquals("node node-1 failed to start healthcheck \"default/web\" on port 30000: bind: address already in use",
        ev.getString("note"));
    assertEquals("default/web", ev.getJsonObject("regarding").getString("uid"));
    assertEquals("Listen", ev.getString("action"));
  }
}
