package dev.kubeproxy.runtime;

import dev.kubeproxy.model.ModelGates;
import dev.kubeproxy.model.ProxyBackend;
import dev.kubeproxy.net.IpFamily;

import dev.kubeproxy.runtime.AgentContext;
import dev.kubeproxy.config.AgentOptions;
import dev.kubeproxy.messages.EventBusAddresses;
import dev.kubeproxy.messages.ClusterEvent;
import dev.kubeproxy.messages.NodeInfo;
import dev.kubeproxy.messages.EventRequest;
import dev.kubeproxy.config.FeatureGates;
import dev.kubeproxy.config.KubeProxyConfiguration;
import dev.kubeproxy.metrics.ProxyMetrics;
import dev.kubeproxy.host.CommandRunner;
import dev.kubeproxy.host.HeapCompaction;
import dev.kubeproxy.logging.Log;
import dev.kubeproxy.backend.conntrack.ConntrackReconciler;
import dev.kubeproxy.backend.conntrack.ConntrackTable;
import dev.kubeproxy.backend.conntrack.NetlinkConntrackTable;
import dev.kubeproxy.model.objects.EndpointSlice;
import dev.kubeproxy.model.objects.Node;
import dev.kubeproxy.model.objects.Service;
import dev.kubeproxy.model.objects.ServiceCidr;
import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.ThreadingModel;
import io.vertx.core.VerticleBase;
import io.vertx.core.eventbus.Message;
import io.vertx.core.eventbus.MessageConsumer;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Callable;

/**
 * The meta-proxier (pkg/proxy/metaproxier/meta_proxier.go): consumes the cluster.* events (each
 * carries the version it replaces, so no copy of the objects is kept here), feeds every family's
 * trackers (EndpointSlices only to the family of their address type), holds off programming until
 * the initial lists of Services, EndpointSlices, the Node and (when watched) ServiceCIDRs have been
 * delivered (upstream 1.32 #126561), then lets each family's bounded-frequency runner sync its backend.
 *
 * <p>Thread ownership: a worker verticle ({@link #DEPLOYMENT}). Its one worker context owns every
 * family's model and backend: event handlers, the runners' timers and the syncs all run there, one
 * at a time, so the model needs no lock. A sync holds the context while it runs; events that
 * arrive meanwhile wait in the event bus and are applied before the next sync.
 */
public class ProxierVerticle extends VerticleBase {
  /** How the proxier verticle must be deployed: on a worker context of its own. */
  public static final DeploymentOptions DEPLOYMENT = new DeploymentOptions().setThreadingModel(ThreadingModel.WORKER);

  /** Builds the backends; blocking (it may probe the system): called on the verticle's worker. */
  @FunctionalInterface
  public interface BackendFactory {
    List<ProxyBackend> create(AgentOptions options, NodeInfo node, CommandRunner runner) throws Exception;
  }

  private final AgentOptions options;
  private final NodeInfo nodeInfo;
  private final BackendFactory backendFactory;
  private final CommandRunner commandRunner;
  private final ProxyMetrics metrics;
  private final FeatureGates gates;
  private final Clock clock;
  /** Opens the conntrack table the reconciler cleans; null: no reconciler. */
  private final Callable<ConntrackTable> conntrackOpener;
  private ConntrackReconciler reconciler;

  private final List<FamilyProxier> families = new ArrayList<>();
  private final List<MessageConsumer<?>> consumers = new ArrayList<>();
  /** Answers /debug/services' questions (proxy.debug-services). */
  private DebugServicesResponder debug;
  /** Events that arrived while the backends were still being built. */
  private List<Runnable> early = new ArrayList<>();
  /** Completed once the event consumers are registered, before the backends are built. */
  private final Promise<Void> listening = Promise.promise();
  /** What the backends wait for (the agent's host set-up). */
  private Future<?> hostReady = Future.succeededFuture();

  private final Map<String, List<String>> serviceCIDRs = new HashMap<>();
  private boolean servicesSynced;
  private boolean endpointSlicesSynced;
  private boolean nodeSynced;
  private boolean serviceCIDRsSynced;
  private boolean initialized;

  /** The agent's proxier: the configured mode's backends, the node's conntrack table. */
  public ProxierVerticle(AgentOptions options, NodeInfo nodeInfo, AgentContext context) {
    this(options, nodeInfo, (o, n, r) -> Proxiers.create(o, n, context), context,
        () -> NetlinkConntrackTable.open(null));
  }

  /** For tests and embedders: other backends, another command runner, other metrics; no conntrack reconciler. */
  public ProxierVerticle(
      AgentOptions options, NodeInfo nodeInfo, BackendFactory backendFactory, CommandRunner commandRunner,
      ProxyMetrics metrics) {
    this(options, nodeInfo, backendFactory, commandRunner, metrics, null);
  }

  /** As above, with a conntrack table; the gates are the options' configuration's, the clock the system's. */
  public ProxierVerticle(
      AgentOptions options, NodeInfo nodeInfo, BackendFactory backendFactory, CommandRunner commandRunner,
      ProxyMetrics metrics, Callable<ConntrackTable> conntrack) {
    this(options, nodeInfo, backendFactory, new AgentContext(metrics,
        FeatureGates.of(options.config().featureGates), Clock.systemUTC(), commandRunner), conntrack);
  }

  /**
   * @param conntrack opens the conntrack table of the node (or of a test's namespace) for the
   *                  reconciler; null, or --dry-run: no conntrack reconciling
   */
  public ProxierVerticle(
      AgentOptions options, NodeInfo nodeInfo, BackendFactory backendFactory, AgentContext context,
      Callable<ConntrackTable> conntrack) {
    this.conntrackOpener = conntrack;
    this.options = options;
    this.nodeInfo = nodeInfo;
    this.backendFactory = backendFactory;
    this.commandRunner = context.commands();
    this.metrics = context.metrics();
    this.gates = context.gates();
    this.clock = context.clock();
  }

  @Override
  public Future<?> start() {
    if (!context.isWorkerContext()) {
      IllegalStateException e = new IllegalStateException("ProxierVerticle runs the syncs on its own context:"
          + " deploy it with ProxierVerticle.DEPLOYMENT (a worker context)");
      listening.tryFail(e);
      return Future.failedFuture(e);
    }
    consume(EventBusAddresses.SERVICES, this::onService);
    consume(EventBusAddresses.ENDPOINT_SLICES, this::onEndpointSlice);
    consume(EventBusAddresses.NODE, this::onNode);
    consume(EventBusAddresses.SERVICE_CIDRS, this::onServiceCIDR);
    consume(EventBusAddresses.SYNCED, this::onSynced);
    debug = new DebugServicesResponder(vertx, options, nodeInfo, this::families, this::initialized, clock);
    consumers.addAll(debug.register());
    List<Future<?>> registered = new ArrayList<>();
    consumers.forEach(c -> registered.add(c.completion()));
    return Future.all(registered)
        .onComplete(ar -> {
          if (ar.succeeded()) {
            listening.tryComplete();
          } else {
            listening.tryFail(ar.cause());
          }
        })
        .compose(v -> {
          reconciler = openReconciler(); // needs nothing of the host set-up: opened while that runs
          return onThisContext(hostReady);
        })
        .compose(v -> {
          try {
            List<ProxyBackend> backends = backendFactory.create(options, nodeInfo, commandRunner);
            for (ProxyBackend backend : backends) {
              backend.privilegedInit();
            }
            for (EventRequest event : ModeNotices.announce(options.config().mode)) {
              vertx.eventBus().publish(EventBusAddresses.EVENTS, event);
            }
            startFamilies(backends);
            return Future.succeededFuture();
          } catch (Exception e) {
            return Future.failedFuture(e);
          }
        });
  }

  /**
   * Builds the backends, and so runs the first sync, only once hostReady has completed (the
   * agent's host set-up: conntrack sysctls, an earlier mode's leftovers removed); the
   * events that arrive meanwhile (the cluster objects being read) wait as before. Its failure
   * fails this verticle's start. Call before deploying.
   */
  public ProxierVerticle startingAfter(Future<?> hostReady) {
    this.hostReady = hostReady;
    return this;
  }

  /** Completes on this verticle's context once f has (f's own callbacks run on the context that completed it). */
  private Future<Void> onThisContext(Future<?> f) {
    Promise<Void> here = Promise.promise();
    f.onComplete(ar -> context.runOnContext(x -> {
      if (ar.succeeded()) {
        here.complete();
      } else {
        here.fail(ar.cause());
      }
    }));
    return here.future();
  }

  private void startFamilies(List<ProxyBackend> backends) {
    KubeProxyConfiguration config = options.config();
    FamilyProxier.Settings settings = FamilyProxier.Settings.of(config.syncSettings(), nodeInfo.name(),
        nodeInfo.labels(), ModelGates.from(gates));
    for (ProxyBackend backend : backends) {
      FamilyProxier family = new FamilyProxier(vertx, backend, settings, metrics, clock, reconciler,
          RunnerTimer.of(vertx));
      families.add(family);
      family.startLoop();
    }
    compactHeapAfterFirstSyncs();
    List<Runnable> replay = early;
    early = null;
    replay.forEach(Runnable::run);
  }

  /**
   * One full collection once every family has synced for the first time. The initial load leaves
   * its garbage in the old generation, and the serial collector gives heap back to the system only
   * at a full collection, which a quiet agent may not see for hours. A tight one
   * ({@link HeapCompaction}) gives what the load grew back; off the proxier's context, so the
   * syncs do not wait for it.
   */
  private void compactHeapAfterFirstSyncs() {
    List<Future<Void>> synced = new ArrayList<>();
    families.forEach(f -> synced.add(f.firstSynced()));
    Future.all(synced).onSuccess(v -> vertx.executeBlocking(() -> {
      HeapCompaction.collectTightly();
      return null;
    }, false));
  }

  /** The conntrack reconciler over netlink; null (after saying why) in --dry-run or without netlink. */
  private ConntrackReconciler openReconciler() {
    if (options.dryRun() || conntrackOpener == null) {
      return null;
    }
    try {
      return new ConntrackReconciler(conntrackOpener.call(), metrics);
    } catch (Exception e) {
      Log.error("Cannot open the conntrack table over netlink; stale UDP/SCTP conntrack entries will not be"
          + " cleared (is nf_conntrack_netlink available, and does the agent run with NET_ADMIN?)", "err",
          e.getMessage());
      return null;
    }
  }

  /**
   * Completes once this verticle's event consumers are registered, while its start still builds
   * the backends (the iptables backend's probes, privileged set-up): from then on no cluster event
   * is lost (those that come before the backends are replayed to them), so the cluster source may
   * start reading meanwhile. Fails when the start fails before that.
   */
  public Future<Void> listening() {
    return listening.future();
  }

  @Override
  public Future<?> stop() {
    families.forEach(FamilyProxier::stop);
    return Future.succeededFuture();
  }

  /** The per-family proxiers (for tests and diagnostics). */
  public List<FamilyProxier> families() {
    return List.copyOf(families);
  }

  public boolean initialized() {
    return initialized;
  }

  private <T> void consume(String address, java.util.function.Consumer<T> handler) {
    MessageConsumer<T> consumer = vertx.eventBus().consumer(address, (Message<T> msg) -> {
      T body = msg.body();
      if (early != null) {
        early.add(() -> handle(address, handler, body));
      } else {
        handle(address, handler, body);
      }
    });
    consumers.add(consumer);
  }

  private <T> void handle(String address, java.util.function.Consumer<T> handler, T body) {
    try {
      handler.accept(body);
    } catch (RuntimeException e) {
      // One bad object must never stop the agent or the other services.
      Log.error("Ignoring an event that could not be processed", e, "address", address, "exception", e.toString());
    }
  }

  /** The event carries the previous version (null for an add) and the new one (null for a delete). */
  private void onService(ClusterEvent<?> event) {
    debug.invalidObjects().onClusterEvent("Service", event);
    if (!(event.latest() instanceof Service)) {
      Log.error("Ignoring a Service event without a Service", "key", event.key());
      return;
    }
    Service old = (Service) event.old();
    Service current = (Service) event.current();
    for (FamilyProxier f : families) {
      f.onServiceUpdate(old, current);
    }
  }

  private void onEndpointSlice(ClusterEvent<?> event) {
    debug.invalidObjects().onClusterEvent("EndpointSlice", event);
    if (!(event.latest() instanceof EndpointSlice)) {
      Log.error("Ignoring an EndpointSlice event without an EndpointSlice", "key", event.key());
      return;
    }
    EndpointSlice old = (EndpointSlice) event.old();
    EndpointSlice current = (EndpointSlice) event.current();
    if (current == null) {
      routeSlice(old, true);
      return;
    }
    if (old != null && !Objects.equals(old.addressType(), current.addressType())) {
      routeSlice(old, true);
    }
    routeSlice(current, false);
  }

  private void routeSlice(EndpointSlice slice, boolean remove) {
    String type = slice.addressType();
    if (!IpFamily.IPv4.name().equals(type) && !IpFamily.IPv6.name().equals(type)) {
      Log.v(2).info("Ignoring an EndpointSlice with an unsupported address type", "endpointSlice", sliceName(slice),
          "addressType", type);
      return;
    }
    for (FamilyProxier f : families) {
      if (f.family().name().equals(type)) {
        f.onEndpointSliceUpdate(slice, remove);
      }
    }
  }

  private static String sliceName(EndpointSlice slice) {
    return slice.metadata().key();
  }

  private void onNode(ClusterEvent<?> event) {
    if (!(event.latest() instanceof Node node)) {
      Log.error("Ignoring a Node event without a Node", "key", event.key());
      return;
    }
    String name = node.metadata().name();
    if (!Objects.equals(name, nodeInfo.name())) {
      Log.error("Received a watch event for a node that doesn't match the current node", "eventNode", name,
          "currentNode", nodeInfo.name());
      return;
    }
    Map<String, String> labels = event.type() == ClusterEvent.Type.DELETE ? null : node.metadata().labels();
    for (FamilyProxier f : families) {
      f.onNodeLabels(labels);
    }
  }

  private void onServiceCIDR(ClusterEvent<?> event) {
    if (event.type() == ClusterEvent.Type.DELETE) {
      serviceCIDRs.remove(event.key());
    } else {
      if (!(event.latest() instanceof ServiceCidr cidr)) {
        Log.error("Ignoring a ServiceCIDR event without a ServiceCIDR", "key", event.key());
        return;
      }
      serviceCIDRs.put(event.key(), cidr.cidrs());
    }
    List<String> all = new ArrayList<>();
    serviceCIDRs.keySet().stream().sorted().forEach(k -> all.addAll(serviceCIDRs.get(k)));
    for (FamilyProxier f : families) {
      f.onServiceCIDRs(all);
    }
  }

  /**
   * Rules are first written once the initial lists of every watched kind have been delivered:
   * Services and EndpointSlices (1.31), and since 1.32 (#126561) also the own Node (its topology
   * labels) and the ServiceCIDRs (always watched since 1.33), so that the first sync already
   * knows them.
   */
  private void onSynced(ClusterEvent.Kind kind) {
    switch (kind) {
      case SERVICE -> servicesSynced = true;
      case ENDPOINT_SLICE -> endpointSlicesSynced = true;
      case NODE -> nodeSynced = true;
      case SERVICE_CIDR -> serviceCIDRsSynced = true;
      default -> {
        return;
      }
    }
    if (!initialized && servicesSynced && endpointSlicesSynced && nodeSynced && serviceCIDRsSynced) {
      initialized = true;
      Log.info("Services, EndpointSlices, the Node and ServiceCIDRs received; programming rules");
      for (FamilyProxier f : families) {
        f.initialListsDelivered();
      }
    }
  }
}
