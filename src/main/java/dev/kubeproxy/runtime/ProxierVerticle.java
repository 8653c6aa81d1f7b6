package dev.kubeproxy.runtime;

import dev.kubeproxy.model.ModelGates;
import dev.kubeproxy.model.ProxyBackend;
import dev.kubeproxy.config.AgentOptions;
import dev.kubeproxy.messages.EventBusAddresses;
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
import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.ThreadingModel;
import io.vertx.core.VerticleBase;
import io.vertx.core.eventbus.Message;
import io.vertx.core.eventbus.MessageConsumer;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * The meta-proxier (pkg/proxy/metaproxier/meta_proxier.go) as a verticle: builds the backends once
 * the host is set up, runs one {@link FamilyProxier} per backend, consumes the cluster.* events and
 * hands them to a {@link ClusterEventRouter} (events that arrive while the backends are built wait
 * and are replayed), and answers /debug/services through a {@link DebugServicesResponder}.
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
  /** Events that arrived while the backends were still being built. */
  private List<Runnable> early = new ArrayList<>();
  /** Completed once the event consumers are registered, before the backends are built. */
  private final Promise<Void> listening = Promise.promise();
  /** What the backends wait for (the agent's host set-up). */
  private Future<?> hostReady = Future.succeededFuture();
  /** Sends each cluster event to the families it concerns. */
  private ClusterEventRouter router;

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
    DebugServicesResponder debug = new DebugServicesResponder(vertx, options, nodeInfo, this::families,
        this::initialized, clock);
    router = new ClusterEventRouter(nodeInfo.name(), debug.invalidObjects(), families);
    consume(EventBusAddresses.SERVICES, router::onService);
    consume(EventBusAddresses.ENDPOINT_SLICES, router::onEndpointSlice);
    consume(EventBusAddresses.NODE, router::onNode);
    consume(EventBusAddresses.SERVICE_CIDRS, router::onServiceCIDR);
    consume(EventBusAddresses.SYNCED, router::onSynced);
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

  /** Every initial list has been delivered: rules are being programmed. */
  public boolean initialized() {
    return router != null && router.initialized();
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
}
