package dev.kubeproxy.runtime;

import dev.kubeproxy.messages.DebugServicesQuery;
import dev.kubeproxy.messages.FamilySnapshot;
import dev.kubeproxy.messages.ProxierSnapshot;
import dev.kubeproxy.model.Endpoint;
import dev.kubeproxy.model.NamespacedName;
import dev.kubeproxy.model.ProgrammedRules;
import dev.kubeproxy.model.ProxyBackend;
import dev.kubeproxy.model.ProxyState;
import dev.kubeproxy.model.ServicePort;
import dev.kubeproxy.model.ServicePortName;
import dev.kubeproxy.model.SyncResult;
import dev.kubeproxy.net.IpFamily;

import static dev.kubeproxy.model.TestObjects.ep;
import static dev.kubeproxy.model.TestObjects.port;
import static dev.kubeproxy.model.TestObjects.service;
import static dev.kubeproxy.model.TestObjects.slice;
import static dev.kubeproxy.model.TestObjects.slicePort;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.kubeproxy.config.AgentOptions;
import dev.kubeproxy.messages.EventBusAddresses;
import dev.kubeproxy.messages.EventBusCodecs;
import dev.kubeproxy.messages.ClusterEvent;
import dev.kubeproxy.messages.EventRequest;
import dev.kubeproxy.messages.NodeInfo;
import dev.kubeproxy.config.KubeProxyConfiguration;
import dev.kubeproxy.config.ProxyMode;
import dev.kubeproxy.logging.Log;
import dev.kubeproxy.host.CommandRunner;
import dev.kubeproxy.host.ProcessCommandRunner;
import dev.kubeproxy.testutil.tier.Unit;
import io.vertx.core.Vertx;
import io.vertx.junit5.VertxExtension;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The proxier's side of /debug/services: its snapshot on proxy.debug-services. */
@ExtendWith(VertxExtension.class)
@Unit
class DebugServicesResponderTest {
  static final NamespacedName WEB = new NamespacedName("demo", "web");

  /** A backend that keeps the states it is given and says what it programs for a port. */
  static final class ReadableBackend implements ProxyBackend {
    final List<ProxyState> states = new java.util.concurrent.CopyOnWriteArrayList<>();

    @Override
    public IpFamily family() {
      return IpFamily.IPv4;
    }

    @Override
    public SyncResult sync(ProxyState state) {
      states.add(state);
      return new SyncResult(true, Map.of(), 0, 0);
    }

    @Override
    public void privilegedInit() {}

    @Override
    public void cleanup() {}

    @Override
    public Optional<ProgrammedRules> programmedRules(ServicePort port, List<Endpoint> endpoints) {
      return Optional.of(ProgrammedRules.of("fake", List.of(port.name() + " -> " + endpoints)));
    }
  }

  @Test
  void snapshotOfTheSyncedStateWithTheQueriedServicesRulesAndInvalidObjects(Vertx vertx) throws Exception {
    EventBusCodecs.register(vertx);
    KubeProxyConfiguration config = new KubeProxyConfiguration();
    config.mode = "nftables";
    config.clusterCIDR = "10.244.0.0/16";
    config.nftables.syncPeriod = Duration.ofMillis(400);
    config.nftables.minSyncPeriod = Duration.ZERO;
    AgentOptions options = new AgentOptions(config, null, "node-a", null, false, false, false);
    NodeInfo node = new NodeInfo("node-a", List.of("192.168.200.1"), List.of(), Map.of());
    ReadableBackend backend = new ReadableBackend();
    vertx.deployVerticle(new ProxierVerticle(options, node, (o, n, r) -> List.of(backend), new ProcessCommandRunner(),
        new ProxierVerticleTest.RecordingMetrics()), ProxierVerticle.DEPLOYMENT).toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);

    vertx.eventBus().publish(EventBusAddresses.SERVICES, new ClusterEvent<>(ClusterEvent.Kind.SERVICE,
        ClusterEvent.Type.UPSERT, "demo/web", null, service("demo", "web", "10.96.0.10", port("http", 80, "TCP"))));
    vertx.eventBus().publish(EventBusAddresses.ENDPOINT_SLICES, new ClusterEvent<>(ClusterEvent.Kind.ENDPOINT_SLICE,
        ClusterEvent.Type.UPSERT, "demo/web-1", null, slice("demo", "web-1", "web", "IPv4",
            List.of(slicePort("http", 8080, "TCP")), ep("10.244.0.5", "node-a"))));
    vertx.eventBus().publish(EventBusAddresses.EVENTS, EventRequest.invalidObject("Service", "demo", "broken",
        "Service \"demo/broken\" is invalid and not programmed: spec.ports[0].port: Invalid value: 70000"));
    for (ClusterEvent.Kind kind : List.of(ClusterEvent.Kind.SERVICE, ClusterEvent.Kind.ENDPOINT_SLICE,
        ClusterEvent.Kind.NODE, ClusterEvent.Kind.SERVICE_CIDR)) {
      vertx.eventBus().send(EventBusAddresses.SYNCED, kind);
    }
    await("the first sync", () -> !backend.states.isEmpty());

    ProxierSnapshot snapshot = ask(vertx, WEB);
    assertEquals(ProxyMode.NFTABLES, snapshot.mode());
    assertTrue(snapshot.initialized());
    FamilySnapshot v4 = snapshot.families().get(0);
    assertEquals(IpFamily.IPv4, v4.family());
    assertEquals("ClusterCIDR", v4.settings().localDetector().mode());
    assertEquals(List.of("192.168.200.1"), v4.settings().nodeIPs());
    ServicePortName http = new ServicePortName(WEB, "http", "TCP");
    assertNotNull(v4.state().services().get(http));
    assertEquals("10.244.0.5", v4.state().endpointsOf(http).get(0).ip());
    assertEquals("node-a", v4.state().endpointsOf(http).get(0).nodeName());
    assertTrue(v4.syncs().lastFor(WEB).ok());
    assertEquals(List.of("demo/web:http -> [10.244.0.5:8080]"), v4.programmed().get(http).lines());
    assertEquals(1, snapshot.invalid().size());
    assertEquals("broken", snapshot.invalid().get(0).name());

    assertTrue(ask(vertx, null).families().get(0).programmed().isEmpty(), "the kernel is read only for one Service");

    vertx.eventBus().publish(EventBusAddresses.SERVICES, new ClusterEvent<>(ClusterEvent.Kind.SERVICE,
        ClusterEvent.Type.UPSERT, "demo/broken", null, service("demo", "broken", "10.96.0.11", port("http", 80, "TCP"))));
    await("a valid version clears it", () -> ask(vertx, null).invalid().isEmpty());
  }

  /** The backends' construction logs the detect-local notice; working out their settings for a request does not repeat it. */
  @Test
  void aRequestDoesNotRepeatTheDetectLocalNotice(Vertx vertx) throws Exception {
    EventBusCodecs.register(vertx);
    KubeProxyConfiguration config = new KubeProxyConfiguration();
    config.mode = "nftables";
    AgentOptions options = new AgentOptions(config, null, "node-a", null, false, false, false);
    NodeInfo node = new NodeInfo("node-a", List.of("192.168.200.1"), List.of(), Map.of());
    vertx.deployVerticle(new ProxierVerticle(options, node, (o, n, r) -> List.of(new ReadableBackend()),
        new ProcessCommandRunner(), new ProxierVerticleTest.RecordingMetrics()), ProxierVerticle.DEPLOYMENT)
        .toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    java.io.ByteArrayOutputStream captured = new java.io.ByteArrayOutputStream();
    java.io.PrintStream capture = new java.io.PrintStream(captured, true);
    Log.setOutputs(capture, capture);
    try {
      FamilySnapshot v4 = ask(vertx, null).families().get(0);
      assertFalse(v4.settings().localDetector().implemented(), "no cluster CIDR: the no-op detector");
      ask(vertx, null);
    } finally {
      Log.setOutputs(System.err, System.err);
    }
    assertFalse(captured.toString().contains("Detect-local-mode"), captured.toString());
  }

  private static ProxierSnapshot ask(Vertx vertx, NamespacedName service) {
    try {
      return vertx.eventBus().<ProxierSnapshot>request(EventBusAddresses.DEBUG_SERVICES, new DebugServicesQuery(service))
          .toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS).body();
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  private static void await(String what, BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        fail("timed out waiting for " + what);
      }
      Thread.sleep(20);
    }
  }
}
