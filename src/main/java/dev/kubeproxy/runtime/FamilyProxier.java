package dev.kubeproxy.runtime;

import dev.kubeproxy.backend.conntrack.ConntrackReconciler;
import dev.kubeproxy.config.SyncSettings;
import dev.kubeproxy.logging.Log;
import dev.kubeproxy.metrics.ProxyMetrics;
import dev.kubeproxy.model.EndpointsMap;
import dev.kubeproxy.model.ModelGates;
import dev.kubeproxy.model.ProxyBackend;
import dev.kubeproxy.model.ProxyState;
import dev.kubeproxy.model.ServicePort;
import dev.kubeproxy.model.ServicePortMap;
import dev.kubeproxy.model.ServiceSyncLog;
import dev.kubeproxy.model.SyncResult;
import dev.kubeproxy.model.objects.EndpointSlice;
import dev.kubeproxy.model.objects.Service;
import dev.kubeproxy.net.IpFamily;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * The single-family half of the proxier (upstream's per-family Proxier minus the rule writing,
 * pkg/proxy/iptables/proxier.go and pkg/proxy/nftables/proxier.go): its model ({@link FamilyModel}:
 * change trackers and live maps), its sync runner, and the sync itself, which checks the model out
 * into a {@link ProxyState}, hands it to the backend and reports the outcome ({@link SyncReporter}).
 *
 * <p>Thread ownership: everything here, the model (trackers, {@link ServicePortMap},
 * {@link EndpointsMap}) and the calls into the backend, runs on the one thread of the proxier
 * verticle's worker context, which {@link ProxierVerticle} requires. Events are applied in the
 * order they arrive and a sync runs to its end before the next event is applied, as upstream's
 * proxier mutex orders OnServiceUpdate and syncProxyRules. Nothing here is shared with another
 * thread, so nothing is locked.
 */
public final class FamilyProxier {
  /** Both backends of 1.31 allow two syncs back to back, then one per minSyncPeriod. */
  static final int BURST_SYNCS = 2;

  /**
   * What one family's proxier is built with, resolved once from the configuration.
   *
   * @param nodeName    this node's name (its endpoints are local)
   * @param nodeLabels  the Node's labels when the agent started (topology)
   * @param syncPeriod  the period of full syncs and of the rules check
   * @param minInterval the least time between two syncs after the burst (minSyncPeriod, at most maxInterval)
   * @param maxInterval the longest the runner waits without a change: an hour in iptables mode,
   *                    syncPeriod in nftables mode (pkg/proxy/iptables/proxier.go and
   *                    pkg/proxy/nftables/proxier.go NewProxier)
   * @param gates       the feature gates the model reads
   */
  public record Settings(
      String nodeName, Map<String, String> nodeLabels, Duration syncPeriod, Duration minInterval,
      Duration maxInterval, ModelGates gates) {
    public Settings {
      nodeLabels = nodeLabels == null ? Map.of() : Map.copyOf(nodeLabels);
    }

    /** A family's settings from the mode's resolved sync timing (config.SyncSettings). */
    public static Settings of(SyncSettings sync, String nodeName, Map<String, String> nodeLabels, ModelGates gates) {
      return new Settings(nodeName, nodeLabels, sync.syncPeriod(), sync.minInterval(), sync.maxInterval(), gates);
    }
  }

  private final Vertx vertx;
  private final ProxyBackend backend;
  private final IpFamily family;
  private final ConntrackReconciler conntrack;
  private final Duration syncPeriod;
  private final SyncReporter reporter;
  private final FamilyModel model;
  private final BoundedFrequencyRunner runner;
  /** The initial lists (Services, EndpointSlices, the Node, ServiceCIDRs when watched) have been delivered. */
  private boolean initialized;
  private long successfulSyncs;
  private long failedSyncs;
  private long monitorTimer = -1;
  /** For /debug/services: the syncs per service, and the state the last sync was given. */
  private final ServiceSyncLog syncLog = new ServiceSyncLog();
  /** Completed by the first sync that succeeds. */
  private final Promise<Void> firstSynced = Promise.promise();
  private volatile ProxyState lastState;

  /**
   * @param conntrack     reconciles the conntrack table after each successful sync; null in --dry-run
   */
  public FamilyProxier(
      Vertx vertx, ProxyBackend backend, Settings settings, ProxyMetrics metrics, Clock clock,
      ConntrackReconciler conntrack, RunnerTimer timer) {
    this.vertx = vertx;
    this.backend = backend;
    this.family = backend.family();
    this.conntrack = conntrack;
    this.syncPeriod = settings.syncPeriod();
    this.reporter = new SyncReporter(vertx.eventBus(), family, metrics, clock, syncLog);
    this.model = new FamilyModel(family, settings, metrics, clock, reporter::incorrectIpVersion);
    this.runner = new BoundedFrequencyRunner("sync-runner-" + family, this::syncOnce, settings.minInterval(),
        settings.maxInterval(), BURST_SYNCS, timer);
  }

  public IpFamily family() {
    return family;
  }

  public ProxyBackend backend() {
    return backend;
  }

  /** The state the last sync was given (null before the first), for /debug/services. */
  public ProxyState lastState() {
    return lastState;
  }

  public ServiceSyncLog syncLog() {
    return syncLog;
  }

  public long successfulSyncs() {
    return successfulSyncs;
  }

  public long failedSyncs() {
    return failedSyncs;
  }

  public void onServiceUpdate(Service old, Service current) {
    if (model.serviceUpdated(old, current) && initialized) {
      requestSync();
    }
  }

  public void onEndpointSliceUpdate(EndpointSlice slice, boolean remove) {
    if (model.endpointSliceUpdated(slice, remove) && initialized) {
      requestSync();
    }
  }

  /** The node's labels changed (null or empty when the Node is gone); topology depends on them. */
  public void onNodeLabels(Map<String, String> labels) {
    if (model.nodeLabelsUpdated(labels) && initialized) {
      requestSync();
    }
  }

  /** All ServiceCIDRs of the cluster; this family's are used from the next sync on (no sync of its own). */
  public void onServiceCIDRs(List<String> allCidrs) {
    model.serviceCIDRsUpdated(allCidrs);
  }

  /** SyncLoop start: the family counts as fresh, and the runner's periodic timer starts. */
  public void startLoop() {
    reporter.loopStarted();
    runner.start();
    // Repairs rules flushed by something else within one syncPeriod, also when nothing changes.
    monitorTimer = vertx.setPeriodic(syncPeriod.toMillis(), id -> {
      try {
        if (backend.rulesDisturbed()) {
          requestSync();
        }
      } catch (RuntimeException e) {
        Log.warn("Checking the rules failed", "ipFamily", family, "err", e.toString());
      }
    });
  }

  public void stop() {
    runner.stop();
    if (monitorTimer >= 0) {
      vertx.cancelTimer(monitorTimer);
      monitorTimer = -1;
    }
    backend.close();
  }

  /** Completes once this family's rules have been synced successfully for the first time. */
  public Future<Void> firstSynced() {
    return firstSynced.future();
  }

  /** The initial lists are in: rules are programmed from now on, starting with a sync now. */
  public void initialListsDelivered() {
    initialized = true;
    requestSync();
  }

  /** Sync(): mark the update queued and ask the runner for a run (coalesced, rate-limited). */
  public void requestSync() {
    reporter.queued();
    runner.run();
  }

  /**
   * One run of the runner: nothing before initialization; else check the model out, sync the
   * backend, and report: health, metrics, events, the conntrack cleanup. A failed sync keeps its
   * changed services for the next one and asks for a retry.
   */
  Future<Void> syncOnce() {
    if (!initialized) {
      Log.v(2).info("Not syncing rules until Services and EndpointSlices have been received", "ipFamily", family);
      return Future.succeededFuture();
    }
    long start = System.nanoTime();
    ProxyState state = model.checkout(successfulSyncs == 0);
    SyncResult result;
    try {
      result = backend.sync(state);
    } catch (ProxyBackend.SyncException | RuntimeException e) {
      reporter.failed(state, e, Duration.ofNanos(System.nanoTime() - start));
      lastState = state;
      failedSyncs++;
      model.syncFailed(state);
      // the one place a failed sync is logged: the backends only throw
      Log.error("Failed to sync proxy rules; will retry", e, "ipFamily", family, "retryIn", syncPeriod);
      runner.retryAfter(syncPeriod);
      return Future.succeededFuture();
    }
    Duration took = Duration.ofNanos(System.nanoTime() - start);
    lastState = state;
    successfulSyncs++;
    List<ServicePort> deleted = model.syncSucceeded();
    reporter.succeeded(result, state, model.healthCheckNodePorts(), model.localReadyEndpoints(), took);
    firstSynced.tryComplete();
    if (conntrack != null) {
      // Upstream runs CleanStaleEntries at the end of every successful syncProxyRules.
      try {
        conntrack.reconcile(family, state.services(), state.endpoints(), deleted);
      } catch (RuntimeException e) {
        Log.error("Unexpected error in the conntrack cleanup", e, "ipFamily", family);
      }
    }
    return Future.succeededFuture();
  }
}
