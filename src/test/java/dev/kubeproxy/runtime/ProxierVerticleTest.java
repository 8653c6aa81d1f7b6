package dev.kubeproxy.runtime;

import dev.kubeproxy.model.Endpoint;
import dev.kubeproxy.model.NamespacedName;
import dev.kubeproxy.model.ProxyBackend;
import dev.kubeproxy.model.ProxyState;
import dev.kubeproxy.model.ServicePortName;
import dev.kubeproxy.model.SyncResult;
import dev.kubeproxy.net.IpFamily;

import dev.kubeproxy.messages.EventBusCodecs;
import static dev.kubeproxy.model.TestObjects.edit;
import static dev.kubeproxy.model.TestObjects.ep;
import static dev.kubeproxy.model.TestObjects.nodePort;
import static dev.kubeproxy.model.TestObjects.port;
import static dev.kubeproxy.model.TestObjects.service;
import static dev.kubeproxy.model.TestObjects.slice;
import static dev.kubeproxy.model.TestObjects.slicePort;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.kubeproxy.config.AgentOptions;
import dev.kubeproxy.messages.EventBusAddresses;
import dev.kubeproxy.messages.ClusterEvent;
import dev.kubeproxy.messages.EventRequest;
import dev.kubeproxy.messages.NodeInfo;
import dev.kubeproxy.config.KubeProxyConfiguration;
import dev.kubeproxy.messages.HealthUpdate;
import dev.kubeproxy.messages.ServiceHealthState;
import dev.kubeproxy.metrics.ProxyMetrics;
import dev.kubeproxy.testutil.RecordingRunner;
import dev.kubeproxy.model.objects.ClusterObjects;
import dev.kubeproxy.model.objects.EndpointSlice;
import dev.kubeproxy.model.objects.Node;
import dev.kubeproxy.model.objects.Service;
import dev.kubeproxy.testutil.tier.Unit;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.junit5.VertxExtension;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(VertxExtension.class)
@Unit
class ProxierVerticleTest {
  private static final NamespacedName WEB = new NamespacedName("demo", "web");

  /** A backend double: records every state it is given, fails on demand. */
  static final class FakeBackend implements ProxyBackend {
    final IpFamily family;
    final List<ProxyState> states = new CopyOnWriteArrayList<>();
    final AtomicInteger failures = new AtomicInteger();
    final AtomicInteger attempts = new AtomicInteger();
    volatile boolean initialized;
    volatile Runnable onSync = () -> {};

    FakeBackend(IpFamily family) {
      this.family = family;
    }

    @Override
    public IpFamily family() {
      return family;
    }

    @Override
    public SyncResult sync(ProxyState state) throws SyncException {
      attempts.incrementAndGet();
      onSync.run();
      if (failures.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
        throw new SyncException("iptables-restore: line 7 failed");
      }
      states.add(state);
      return new SyncResult(true, Map.of(), 1, 2);
    }

    @Override
    public void privilegedInit() {
      initialized = true;
    }

    @Override
    public void cleanup() {}

    /** Answers the periodic check once with true after disturb(). */
    final AtomicBoolean disturbed = new AtomicBoolean();
    final AtomicInteger checks = new AtomicInteger();

    @Override
    public boolean rulesDisturbed() {
      checks.incrementAndGet();
      return disturbed.getAndSet(false);
    }

    ProxyState last() {
      return states.get(states.size() - 1);
    }
  }

  static final class RecordingMetrics extends ProxyMetrics {
    final List<Duration> syncDurations = new CopyOnWriteArrayList<>();
    final List<Duration> programmingLatencies = new CopyOnWriteArrayList<>();
    volatile Instant lastSync;
    volatile Instant lastQueued;
    final Map<String, Integer> noLocal = new java.util.concurrent.ConcurrentHashMap<>();

    @Override
    public void observeSyncDuration(String ipFamily, Duration d) {
      syncDurations.add(d);
    }

    @Override
    public void observeNetworkProgrammingLatency(String ipFamily, Duration d) {
      programmingLatencies.add(d);
    }

    @Override
    public void setLastSyncTimestamp(String ipFamily, Instant t) {
      lastSync = t;
    }

    @Override
    public void setLastQueuedTimestamp(String ipFamily, Instant t) {
      lastQueued = t;
    }

    @Override
    public void setNoLocalEndpoints(String ipFamily, String trafficPolicy, int n) {
      noLocal.put(trafficPolicy, n);
    }
  }

  private Vertx vertx;
  private final RecordingMetrics metrics = new RecordingMetrics();
  private final RecordingRunner commands = new RecordingRunner();
  private final FakeConntrack conntrack = new FakeConntrack();
  /** deploy() reports the Node's initial list as delivered, as the cluster source does at start. */
  private boolean nodeListDelivered = true;
  private Map<String, Boolean> featureGates = Map.of();
  private final List<HealthUpdate> health = new CopyOnWriteArrayList<>();
  private final List<ServiceHealthState> serviceHealth = new CopyOnWriteArrayList<>();

  @BeforeEach
  void setUp(Vertx vertx) {
    this.vertx = vertx;
    EventBusCodecs.register(vertx);
    vertx.eventBus().<HealthUpdate>consumer(EventBusAddresses.HEALTH, m -> health.add(m.body()));
    vertx.eventBus().<ServiceHealthState>consumer(EventBusAddresses.SERVICE_HEALTH, m -> serviceHealth.add(m.body()));
  }

  private ProxierVerticle deploy(String mode, boolean dryRun, FakeBackend... backends) throws Exception {
    ProxierVerticle verticle = verticle(mode, dryRun, (o, n, r) -> List.of(backends));
    vertx.deployVerticle(verticle, ProxierVerticle.DEPLOYMENT).toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    if (nodeListDelivered) {
      synced(ClusterEvent.Kind.NODE);
      synced(ClusterEvent.Kind.SERVICE_CIDR);
    }
    return verticle;
  }

  private ProxierVerticle verticle(String mode, boolean dryRun, ProxierVerticle.BackendFactory backends) {
    KubeProxyConfiguration config = new KubeProxyConfiguration();
    config.mode = mode;
    config.featureGates = new HashMap<>(featureGates);
    config.iptables.syncPeriod = Duration.ofMillis(400);
    config.iptables.minSyncPeriod = Duration.ZERO;
    config.nftables.syncPeriod = Duration.ofMillis(400);
    config.nftables.minSyncPeriod = Duration.ZERO;
    AgentOptions options = new AgentOptions(config, null, "node-a", null, dryRun, false, false);
    NodeInfo node = new NodeInfo("node-a", List.of("192.168.200.1"), List.of(), Map.of("topology.kubernetes.io/zone", "z1"));
    return new ProxierVerticle(options, node, backends, commands, metrics, () -> conntrack);
  }

  /** The last version sent per address and key, as the cluster source's sink keeps it for the events' old state. */
  private final Map<String, Object> sent = new HashMap<>();

  private void send(String address, ClusterEvent.Kind kind, ClusterEvent.Type type, String key, Object o) {
    boolean upsert = type == ClusterEvent.Type.UPSERT;
    Object old = upsert ? sent.put(address + " " + key, o) : sent.remove(address + " " + key);
    vertx.eventBus().send(address, new ClusterEvent<>(kind, type, key, old == null && !upsert ? o : old, upsert ? o : null));
  }

  private void upsertService(Service svc) {
    send(EventBusAddresses.SERVICES, ClusterEvent.Kind.SERVICE, ClusterEvent.Type.UPSERT,
        svc.metadata().key(), svc);
  }

  private void upsertSlice(EndpointSlice s) {
    send(EventBusAddresses.ENDPOINT_SLICES, ClusterEvent.Kind.ENDPOINT_SLICE, ClusterEvent.Type.UPSERT,
        s.metadata().key(), s);
  }

  private void synced(ClusterEvent.Kind kind) {
    vertx.eventBus().send(EventBusAddresses.SYNCED, kind);
  }

  private static void await(String what, BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        fail("timed out waiting for " + what);
      }
      Thread.sleep(10);
    }
  }

  private static EndpointSlice webSlice(String name, String family, String ip, String node) {
    return slice("demo", name, "web", family, List.of(slicePort("http", 8080, "TCP")), ep(ip, node));
  }

  @Test
  void ipvsModePostsItsDeprecationOnTheNode() throws Exception {
    List<EventRequest> events = new CopyOnWriteArrayList<>();
    vertx.eventBus().<EventRequest>consumer(EventBusAddresses.EVENTS, m -> events.add(m.body()));
    deploy("ipvs", false, new FakeBackend(IpFamily.IPv4));
    await("the deprecation event", () -> events.stream().anyMatch(e -> e.reason().equals("IPVSDeprecation")));
  }

  @Test
  void theFirstSyncWaitsForTheNodeAndServiceCIDRLists() throws Exception {
    nodeListDelivered = false; // nor the ServiceCIDRs' list, awaited without any gate since 1.33
    FakeBackend v4 = new FakeBackend(IpFamily.IPv4);
    deploy("nftables", false, v4);
    upsertService(service("demo", "web", "10.96.0.10", port("http", 80, "TCP")));
    synced(ClusterEvent.Kind.SERVICE);
    synced(ClusterEvent.Kind.ENDPOINT_SLICE);
    await("events handled", () -> metrics.lastQueued != null);
    Thread.sleep(200);
    assertEquals(0, v4.attempts.get(), "no sync before the Node's list");
    HashMap<String, String> labels = new HashMap<>();
    labels.put("topology.kubernetes.io/zone", "z9");
    send(EventBusAddresses.NODE, ClusterEvent.Kind.NODE, ClusterEvent.Type.UPSERT, "node-a",
        ClusterObjects.node("node-a", labels, List.of(), List.of()));
    synced(ClusterEvent.Kind.NODE);
    Thread.sleep(200);
    assertEquals(0, v4.attempts.get(), "no sync before the ServiceCIDRs' list");
    synced(ClusterEvent.Kind.SERVICE_CIDR);
    await("first sync", () -> v4.states.size() == 1);
    assertEquals(Map.of("topology.kubernetes.io/zone", "z9"), v4.last().nodeLabels(),
        "the first sync already knows the Node's labels");
  }

  /** The agent's host set-up (OOM score, conntrack sysctls, leftovers) runs while the objects are read. */
  @Test
  void theObjectsAreReadWhileTheHostIsSetUpAndTheBackendsWaitForIt() throws Exception {
    FakeBackend v4 = new FakeBackend(IpFamily.IPv4);
    AtomicBoolean built = new AtomicBoolean();
    Promise<Void> hostReady = Promise.promise();
    ProxierVerticle verticle = verticle("iptables", false, (o, n, r) -> {
      built.set(true);
      return List.of(v4);
    }).startingAfter(hostReady.future());
    Future<String> deployed = vertx.deployVerticle(verticle, ProxierVerticle.DEPLOYMENT);
    // listening (so the cluster watch starts reading) does not wait for the host set-up
    verticle.listening().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    upsertService(service("demo", "web", "10.96.0.10", port("http", 80, "TCP")));
    upsertSlice(webSlice("web-1", "IPv4", "10.244.0.5", "node-a"));
    synced(ClusterEvent.Kind.NODE);
    synced(ClusterEvent.Kind.SERVICE_CIDR);
    synced(ClusterEvent.Kind.SERVICE);
    synced(ClusterEvent.Kind.ENDPOINT_SLICE);
    Thread.sleep(300); // the events are kept until the backends exist
    assertFalse(built.get(), "no backend is built before the host set-up is done");
    assertFalse(deployed.isComplete());
    hostReady.complete();
    deployed.toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    await("first sync", () -> v4.states.size() == 1);
    assertEquals(List.of(new ServicePortName(WEB, "http", "TCP")), new ArrayList<>(v4.last().services().keySet()),
        "what was read meanwhile is in the first sync");
  }

  @Test
  void aFailedHostSetUpFailsTheStart() throws Exception {
    AtomicBoolean built = new AtomicBoolean();
    ProxierVerticle verticle = verticle("iptables", false, (o, n, r) -> {
      built.set(true);
      return List.of();
    }).startingAfter(Future.failedFuture(new java.io.IOException("conntrack: cannot set nf_conntrack_max")));
    java.util.concurrent.ExecutionException e = org.junit.jupiter.api.Assertions.assertThrows(
        java.util.concurrent.ExecutionException.class, () -> vertx.deployVerticle(verticle, ProxierVerticle.DEPLOYMENT)
            .toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS));
    assertEquals("conntrack: cannot set nf_conntrack_max", e.getCause().getMessage());
    assertFalse(built.get());
  }

  @Test
  void nothingIsProgrammedBeforeBothListsAreSynced() throws Exception {
    FakeBackend v4 = new FakeBackend(IpFamily.IPv4);
    AtomicBoolean bothSent = new AtomicBoolean();
    v4.onSync = () -> {
      if (!bothSent.get()) {
        throw new AssertionError("synced before both initial lists");
      }
    };
    deploy("iptables", false, v4);
    assertTrue(v4.initialized, "privileged init ran");
    upsertService(service("demo", "web", "10.96.0.10", port("http", 80, "TCP")));
    upsertSlice(webSlice("web-1", "IPv4", "10.244.0.5", "node-a"));
    synced(ClusterEvent.Kind.SERVICE);
    synced(ClusterEvent.Kind.NODE);
    // a round trip over the bus so that the events above have been handled
    await("events handled", () -> metrics.lastQueued != null);
    Thread.sleep(200);
    assertEquals(0, v4.attempts.get());
    bothSent.set(true);
    synced(ClusterEvent.Kind.ENDPOINT_SLICE);
    await("first sync", () -> v4.states.size() == 1);

    ProxyState state = v4.last();
    ServicePortName http = new ServicePortName(WEB, "http", "TCP");
    assertEquals(List.of(http), new ArrayList<>(state.services().keySet()));
    assertEquals("10.96.0.10", state.services().get(http).clusterIP());
    assertEquals(List.of("10.244.0.5:8080"), state.endpointsOf(http).stream().map(Endpoint::endpoint).toList());
    assertTrue(state.endpointsOf(http).get(0).local());
    assertEquals(java.util.Set.of(WEB), state.changedServices());
    assertEquals(Map.of("topology.kubernetes.io/zone", "z1"), state.nodeLabels());

    await("health updated", () -> health.stream().filter(h -> h.type() == HealthUpdate.Type.UPDATED).count() >= 2);
    assertEquals(HealthUpdate.Type.UPDATED, health.get(0).type(), "the loop start marks the family fresh");
    assertTrue(health.stream().anyMatch(h -> h.type() == HealthUpdate.Type.QUEUED && h.family() == IpFamily.IPv4));
    await("service health", () -> !serviceHealth.isEmpty());
    await("metrics", () -> metrics.lastSync != null && !metrics.syncDurations.isEmpty());
    assertEquals(Map.of("internal", 1, "external", 2), metrics.noLocal);
  }

  /** Issue 15 item 9: endpoints of a port no Service has are logged at -v=2, once. */
  @Test
  void orphanEndpointsAreLoggedOnceAtV2() throws Exception {
    java.io.ByteArrayOutputStream captured = new java.io.ByteArrayOutputStream();
    java.io.PrintStream capture = new java.io.PrintStream(captured, true);
    int verbosity = dev.kubeproxy.logging.Log.verbosity();
    dev.kubeproxy.logging.Log.setOutputs(capture, capture);
    dev.kubeproxy.logging.Log.setVerbosity(2);
    try {
      FakeBackend v4 = new FakeBackend(IpFamily.IPv4);
      deploy("iptables", false, v4);
      upsertService(service("demo", "web", "10.96.0.10", port("http", 80, "TCP")));
      upsertSlice(webSlice("web-1", "IPv4", "10.244.0.5", "node-a"));
      upsertSlice(slice("demo", "ghost-1", "ghost", "IPv4", List.of(slicePort("http", 8080, "TCP")), ep("10.244.0.9", "node-a")));
      synced(ClusterEvent.Kind.SERVICE);
      synced(ClusterEvent.Kind.ENDPOINT_SLICE);
      await("first sync", () -> v4.states.size() == 1);
      upsertSlice(slice("demo", "ghost-1", "ghost", "IPv4", List.of(slicePort("http", 8080, "TCP")), ep("10.244.0.8", "node-a")));
      await("second sync", () -> v4.states.size() == 2);
      String out = captured.toString();
      assertEquals(1, out.split("Skipping endpoints without a matching service port", -1).length - 1, out);
      assertTrue(out.contains("servicePort=\"demo/ghost:http\""), out);
      assertFalse(out.contains("servicePort=\"demo/web:http\""), out);
    } finally {
      dev.kubeproxy.logging.Log.setVerbosity(verbosity);
      dev.kubeproxy.logging.Log.setOutputs(System.err, System.err);
    }
  }

  /** Issue 15 item 3: the backend's rules are checked every syncPeriod while idle; a disturbance brings a sync. */
  @Test
  void disturbedRulesAreResyncedWhileIdle() throws Exception {
    FakeBackend v4 = new FakeBackend(IpFamily.IPv4);
    deploy("iptables", false, v4);
    upsertService(service("demo", "web", "10.96.0.10", port("http", 80, "TCP")));
    upsertSlice(webSlice("web-1", "IPv4", "10.244.0.5", "node-a"));
    synced(ClusterEvent.Kind.SERVICE);
    synced(ClusterEvent.Kind.ENDPOINT_SLICE);
    await("first sync", () -> v4.states.size() == 1);
    await("checked while idle", () -> v4.checks.get() >= 2);
    assertEquals(1, v4.states.size(), "an undisturbed check syncs nothing");
    long start = System.nanoTime();
    v4.disturbed.set(true);
    await("resync after a disturbance", () -> v4.states.size() == 2);
    assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(5));
    assertEquals(java.util.Set.of(), v4.last().changedServices(), "nothing changed in the model");
  }

  @Test
  void laterChangesSyncOnlyWhatChangedAndDeletesRemove() throws Exception {
    FakeBackend v4 = new FakeBackend(IpFamily.IPv4);
    deploy("nftables", false, v4);
    synced(ClusterEvent.Kind.SERVICE);
    synced(ClusterEvent.Kind.ENDPOINT_SLICE);
    await("empty first sync", () -> v4.states.size() >= 1);
    assertTrue(v4.last().services().isEmpty());

    Service web = service("demo", "web", "10.96.0.10", port("http", 80, "TCP"));
    upsertService(web);
    upsertService(service("demo", "other", "10.96.0.11", port("http", 80, "TCP")));
    await("services synced", () -> v4.last().services().size() == 2);

    // a relist re-delivers web unchanged, other changes
    int before = v4.states.size();
    upsertService(web);
    upsertService(service("demo", "other", "10.96.0.11", port("http", 81, "TCP")));
    await("other updated", () -> v4.states.size() > before
        && v4.last().services().values().stream().anyMatch(p -> p.port() == 81));
    assertEquals(java.util.Set.of(new NamespacedName("demo", "other")), v4.last().changedServices());

    send(EventBusAddresses.SERVICES, ClusterEvent.Kind.SERVICE, ClusterEvent.Type.DELETE, "demo/web", null);
    await("web deleted", () -> v4.last().services().size() == 1);
  }

  @Test
  void failingSyncIsRetriedAfterSyncPeriodWithTheSameChanges() throws Exception {
    FakeBackend v4 = new FakeBackend(IpFamily.IPv4);
    v4.failures.set(1);
    deploy("iptables", false, v4);
    upsertService(service("demo", "web", "10.96.0.10", port("http", 80, "TCP")));
    synced(ClusterEvent.Kind.SERVICE);
    synced(ClusterEvent.Kind.ENDPOINT_SLICE);
    await("retry succeeded", () -> v4.states.size() == 1);
    assertEquals(2, v4.attempts.get());
    assertEquals(java.util.Set.of(WEB), v4.last().changedServices(), "changes of the failed sync are not lost");
    await("both attempts measured", () -> metrics.syncDurations.size() == 2);
    await("loop start and the one successful sync marked updated",
        () -> health.stream().filter(h -> h.type() == HealthUpdate.Type.UPDATED).count() == 2);
    Thread.sleep(100);
    assertEquals(2, health.stream().filter(h -> h.type() == HealthUpdate.Type.UPDATED).count(),
        "a failed sync does not mark the family updated");
  }

  @Test
  void aFailedSyncIsLoggedOnceWithItsStructure() throws Exception {
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
    java.io.PrintStream ps = new java.io.PrintStream(out, true, java.nio.charset.StandardCharsets.UTF_8);
    dev.kubeproxy.logging.Log.configure(dev.kubeproxy.logging.LogFormat.JSON, 0, List.of(), false);
    dev.kubeproxy.logging.Log.setOutputs(ps, ps);
    try {
      FakeBackend v4 = new FakeBackend(IpFamily.IPv4);
      v4.failures.set(1);
      deploy("iptables", false, v4);
      upsertService(service("demo", "web", "10.96.0.10", port("http", 80, "TCP")));
      synced(ClusterEvent.Kind.SERVICE);
      synced(ClusterEvent.Kind.ENDPOINT_SLICE);
      await("retry succeeded", () -> v4.states.size() == 1);
    } finally {
      dev.kubeproxy.logging.Log.configure(dev.kubeproxy.logging.LogFormat.TEXT, 0, List.of(), false);
    }
    List<io.vertx.core.json.JsonObject> errors = new ArrayList<>();
    for (String line : out.toString(java.nio.charset.StandardCharsets.UTF_8).split("\n")) {
      if (line.contains("line 7 failed")) {
        errors.add(new io.vertx.core.json.JsonObject(line));
      }
    }
    assertEquals(1, errors.size(), "one line for one failure: " + errors);
    assertEquals("Failed to sync proxy rules; will retry", errors.get(0).getString("msg"));
    assertEquals("iptables-restore: line 7 failed", errors.get(0).getString("err"));
    assertEquals("IPv4", errors.get(0).getString("ipFamily"));
  }

  @Test
  void dualStackRoutesSlicesByAddressType() throws Exception {
    FakeBackend v4 = new FakeBackend(IpFamily.IPv4);
    FakeBackend v6 = new FakeBackend(IpFamily.IPv6);
    deploy("nftables", false, v4, v6);
    Service svc = service("demo", "web", "10.96.0.10", port("http", 80, "TCP"));
    svc = edit(svc).ipFamilies(new ArrayList<>(List.of("IPv4", "IPv6")))
        .clusterIPs(new ArrayList<>(List.of("10.96.0.10", "fd00:10:96::a"))).build();
    upsertService(svc);
    upsertSlice(webSlice("web-v4", "IPv4", "10.244.0.5", "node-b"));
    upsertSlice(webSlice("web-v6", "IPv6", "fd00:10:244::5", "node-b"));
    upsertSlice(slice("demo", "web-fqdn", "web", "FQDN", List.of(slicePort("http", 80, "TCP")), ep("example.com", null)));
    synced(ClusterEvent.Kind.ENDPOINT_SLICE);
    synced(ClusterEvent.Kind.SERVICE);
    await("both synced", () -> !v4.states.isEmpty() && !v6.states.isEmpty());
    ServicePortName http = new ServicePortName(WEB, "http", "TCP");
    assertEquals("10.96.0.10", v4.last().services().get(http).clusterIP());
    assertEquals("fd00:10:96::a", v6.last().services().get(http).clusterIP());
    assertEquals(List.of("10.244.0.5:8080"), v4.last().endpointsOf(http).stream().map(Endpoint::endpoint).toList());
    assertEquals(List.of("[fd00:10:244::5]:8080"), v6.last().endpointsOf(http).stream().map(Endpoint::endpoint).toList());
    assertTrue(health.stream().anyMatch(h -> h.family() == IpFamily.IPv6 && h.type() == HealthUpdate.Type.UPDATED));

    // slice deleted: the event carries the last delivered version, which is removed
    int before = v6.states.size();
    send(EventBusAddresses.ENDPOINT_SLICES, ClusterEvent.Kind.ENDPOINT_SLICE, ClusterEvent.Type.DELETE,
        "demo/web-v6", null);
    await("v6 endpoints gone", () -> v6.states.size() > before && v6.last().endpointsOf(http).isEmpty());
    assertEquals(1, v4.last().endpointsOf(http).size());
  }

  @Test
  void nodeLabelChangesResyncAndOtherNodesAreIgnored() throws Exception {
    FakeBackend v4 = new FakeBackend(IpFamily.IPv4);
    deploy("iptables", false, v4);
    upsertService(service("demo", "web", "10.96.0.10", port("http", 80, "TCP")));
    synced(ClusterEvent.Kind.SERVICE);
    synced(ClusterEvent.Kind.ENDPOINT_SLICE);
    await("first sync", () -> v4.states.size() == 1);
    HashMap<String, String> labels = new HashMap<>();
    labels.put("topology.kubernetes.io/zone", "z2");
    Node other = ClusterObjects.node("node-b", labels, List.of(), List.of());
    send(EventBusAddresses.NODE, ClusterEvent.Kind.NODE, ClusterEvent.Type.UPSERT, "node-b", other);
    Node self = ClusterObjects.node("node-a", labels, List.of(), List.of());
    send(EventBusAddresses.NODE, ClusterEvent.Kind.NODE, ClusterEvent.Type.UPSERT, "node-a", self);
    await("labels synced", () -> v4.states.size() == 2);
    assertEquals(Map.of("topology.kubernetes.io/zone", "z2"), v4.last().nodeLabels());
    assertEquals(java.util.Set.of(WEB), v4.last().changedServices(), "a topology change touches every service");
  }

  @Test
  void serviceHealthAndStaleUdpConntrack() throws Exception {
    FakeBackend v4 = new FakeBackend(IpFamily.IPv4);
    deploy("iptables", false, v4);
    Service lb = service("demo", "web", "10.96.0.10", nodePort("dns", 53, "UDP", 30053));
    lb = edit(lb).type("LoadBalancer").externalTrafficPolicy("Local").healthCheckNodePort(32000).build();
    upsertService(lb);
    synced(ClusterEvent.Kind.SERVICE);
    synced(ClusterEvent.Kind.ENDPOINT_SLICE);
    await("first sync", () -> v4.states.size() == 1);
    await("first reconcile: without endpoints every flow to the Service goes", conntrack.table::isEmpty);
    conntrack.table.addAll(List.of(flow("10.96.0.10", 53, "10.244.0.5", 53), flow("10.96.0.10", 53, "10.244.0.9", 53)));
    upsertSlice(slice("demo", "web-1", "web", "IPv4", List.of(slicePort("dns", 53, "UDP")),
        ep("10.244.0.5", "node-a"), ep("10.244.0.6", "node-a"), ep("10.244.0.7", "node-b")));
    await("service health with endpoints", () -> serviceHealth.stream()
        .anyMatch(s -> Integer.valueOf(2).equals(s.localReadyEndpoints().get(WEB))));
    ServiceHealthState last = serviceHealth.get(serviceHealth.size() - 1);
    assertEquals(Map.of(WEB, 32000), last.healthCheckNodePorts());
    // The reconciler runs after the sync: the flow to an endpoint that is not in the slice goes.
    await("conntrack reconciled", () -> conntrack.table.size() == 1);
    assertEquals("10.244.0.5", conntrack.table.get(0).replySrc());
    assertTrue(conntrack.commands.isEmpty() && commands.commands.isEmpty(), "no conntrack binary: " + commands.commands);
  }

  @Test
  void theFlowsOfADeletedUdpServiceGoAtTheNextSync() throws Exception {
    FakeBackend v4 = new FakeBackend(IpFamily.IPv4);
    conntrack.table.clear();
    deploy("nftables", false, v4);
    Service dns = service("demo", "web", "10.96.0.10", port("dns", 53, "UDP"));
    upsertService(dns);
    upsertSlice(slice("demo", "web-1", "web", "IPv4", List.of(slicePort("dns", 53, "UDP")), ep("10.244.0.5", null)));
    synced(ClusterEvent.Kind.SERVICE);
    synced(ClusterEvent.Kind.ENDPOINT_SLICE);
    await("first sync", () -> v4.states.size() == 1);
    await("reconciled once", () -> conntrack.lists.get() >= 1);
    conntrack.table.add(flow("10.96.0.10", 53, "10.244.0.5", 53));
    send(EventBusAddresses.SERVICES, ClusterEvent.Kind.SERVICE, ClusterEvent.Type.DELETE, "demo/web", dns);
    await("the deleted Service's flow is deleted", conntrack.table::isEmpty);
  }

  static dev.kubeproxy.backend.conntrack.ConntrackFlow flow(String dst, int dport, String replySrc, int replyPort) {
    return new dev.kubeproxy.backend.conntrack.ConntrackFlow(17, "10.244.9.9", 40000, dst, dport, replySrc, replyPort,
        "10.244.9.9", 40000, 0, 1);
  }

  /** A conntrack table in memory: what the reconciler lists and deletes. */
  static final class FakeConntrack implements dev.kubeproxy.backend.conntrack.ConntrackTable {
    final List<dev.kubeproxy.backend.conntrack.ConntrackFlow> table = new CopyOnWriteArrayList<>(List.of(
        flow("10.96.0.10", 53, "10.244.0.5", 53), flow("10.96.0.10", 53, "10.244.0.9", 53)));
    final List<String> commands = new CopyOnWriteArrayList<>();
    final AtomicInteger lists = new AtomicInteger();

    @Override
    public List<dev.kubeproxy.backend.conntrack.ConntrackFlow> list(IpFamily family) {
      lists.incrementAndGet();
      return List.copyOf(table);
    }

    @Override
    public int delete(IpFamily family, List<dev.kubeproxy.backend.conntrack.ConntrackFlow> flows) {
      int n = 0;
      for (var f : flows) {
        n += table.remove(f) ? 1 : 0;
      }
      return n;
    }
  }

  @Test
  void dryRunSkipsConntrack() throws Exception {
    FakeBackend v4 = new FakeBackend(IpFamily.IPv4);
    deploy("iptables", true, v4);
    upsertService(service("demo", "web", "10.96.0.10", port("dns", 53, "UDP")));
    upsertSlice(slice("demo", "web-1", "web", "IPv4", List.of(slicePort("dns", 53, "UDP")), ep("10.244.0.5", null)));
    synced(ClusterEvent.Kind.SERVICE);
    synced(ClusterEvent.Kind.ENDPOINT_SLICE);
    await("first sync", () -> v4.states.size() == 1);
    await("health", () -> health.stream().filter(h -> h.type() == HealthUpdate.Type.UPDATED).count() >= 2);
    Thread.sleep(100);
    assertFalse(v4.last().endpoints().isEmpty());
    assertEquals(0, conntrack.lists.get(), "--dry-run reads no conntrack table");
  }

  @Test
  void triggerTimesFeedNetworkProgrammingLatency() throws Exception {
    FakeBackend v4 = new FakeBackend(IpFamily.IPv4);
    deploy("iptables", false, v4);
    synced(ClusterEvent.Kind.SERVICE);
    synced(ClusterEvent.Kind.ENDPOINT_SLICE);
    await("first sync", () -> v4.states.size() == 1);
    EndpointSlice s = webSlice("web-1", "IPv4", "10.244.0.5", null);
    HashMap<String, String> a = new HashMap<>();
    a.put("endpoints.kubernetes.io/last-change-trigger-time", Instant.now().plusMillis(5).toString());
    s = ClusterObjects.withMetadata(s, s.metadata().withAnnotations(a));
    Thread.sleep(10);
    upsertSlice(s);
    await("latency observed", () -> metrics.programmingLatencies.size() == 1);
    assertEquals(1, v4.last().triggerTimes().get(WEB).size());
  }

  @Test
  void wrongFamilyEndpointIsSkippedWithAnEvent() throws Exception {
    List<EventRequest> events = new CopyOnWriteArrayList<>();
    vertx.eventBus().<EventRequest>consumer(EventBusAddresses.EVENTS, m -> events.add(m.body()));
    FakeBackend v4 = new FakeBackend(IpFamily.IPv4);
    deploy("iptables", false, v4);
    upsertService(service("demo", "web", "10.96.0.10", port("http", 80, "TCP")));
    upsertSlice(slice("demo", "web-1", "web", "IPv4", List.of(slicePort("http", 8080, "TCP")),
        ep("fd00:10:244::5", null), ep("10.244.0.5", null)));
    synced(ClusterEvent.Kind.SERVICE);
    synced(ClusterEvent.Kind.ENDPOINT_SLICE);
    await("first sync", () -> v4.states.size() == 1);
    await("event", () -> events.size() == 1);
    EventRequest e = events.get(0);
    assertEquals("KubeProxyIncorrectIPVersion", e.reason());
    assertEquals("Warning", e.type());
    assertEquals("GatherEndpoints", e.action());
    assertEquals("fd00:10:244::5 in endpointslice has incorrect IP version", e.note());
    assertEquals("web", e.serviceName());
    assertEquals(1, v4.last().endpointsOf(new ServicePortName(WEB, "http", "TCP")).size());
  }

  @Test
  void serviceCIDRsReachEachFamilyOnTheNextSync() throws Exception {
    FakeBackend v4 = new FakeBackend(IpFamily.IPv4);
    FakeBackend v6 = new FakeBackend(IpFamily.IPv6);
    deploy("nftables", false, v4, v6);
    Object cidr = ClusterObjects.serviceCidr("kubernetes", List.of("10.96.0.0/16", "fd00:10:96::/112"));
    send(EventBusAddresses.SERVICE_CIDRS, ClusterEvent.Kind.SERVICE_CIDR, ClusterEvent.Type.UPSERT, "kubernetes", cidr);
    synced(ClusterEvent.Kind.SERVICE);
    synced(ClusterEvent.Kind.ENDPOINT_SLICE);
    await("both synced", () -> !v4.states.isEmpty() && !v6.states.isEmpty());
    assertEquals(List.of("10.96.0.0/16"), v4.last().serviceCIDRs());
    assertEquals(List.of("fd00:10:96::/112"), v6.last().serviceCIDRs());
    send(EventBusAddresses.SERVICE_CIDRS, ClusterEvent.Kind.SERVICE_CIDR, ClusterEvent.Type.DELETE, "kubernetes", cidr);
    int before = v4.states.size();
    upsertService(service("demo", "web", "10.96.0.10", port("http", 80, "TCP")));
    await("next v4 sync", () -> v4.states.size() > before);
    assertEquals(List.of(), v4.last().serviceCIDRs());
  }
}
