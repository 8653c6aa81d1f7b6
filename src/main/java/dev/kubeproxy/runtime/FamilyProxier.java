package dev.kubeproxy.runtime;

import dev.kubeproxy.model.Endpoint;
import dev.kubeproxy.model.EndpointCategorizer;
import dev.kubeproxy.model.EndpointsChangeTracker;
import dev.kubeproxy.model.EndpointsMap;
import dev.kubeproxy.model.FullSyncReason;
import dev.kubeproxy.model.ModelGates;
import dev.kubeproxy.model.NamespacedName;
import dev.kubeproxy.model.ProxyBackend;
import dev.kubeproxy.model.ProxyState;
import dev.kubeproxy.model.ServiceChangeTracker;
import dev.kubeproxy.model.ServicePort;
import dev.kubeproxy.model.ServicePortMap;
import dev.kubeproxy.model.ServicePortName;
import dev.kubeproxy.model.ServiceSyncLog;
import dev.kubeproxy.model.SyncResult;
import dev.kubeproxy.net.IpFamily;

import dev.kubeproxy.logging.Log;
import dev.kubeproxy.messages.EventBusAddresses;
import dev.kubeproxy.config.ProxyMode;
import dev.kubeproxy.config.SyncSettings;
import dev.kubeproxy.messages.EventRequest;
import dev.kubeproxy.messages.HealthUpdate;
import dev.kubeproxy.messages.ServiceHealthState;
import dev.kubeproxy.metrics.ProxyMetrics;
import dev.kubeproxy.backend.conntrack.ConntrackReconciler;
import dev.kubeproxy.model.objects.EndpointSlice;
import dev.kubeproxy.model.objects.Service;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The single-family half of the proxier (upstream's per-family Proxier minus the rule writing,
 * pkg/proxy/iptables/proxier.go and pkg/proxy/nftables/proxier.go): its change trackers and live
 * maps, its sync runner, and the sync itself, which checks the trackers out into a
 * {@link ProxyState}, hands it to the backend and reports the outcome.
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
  private final ProxyMetrics metrics;
  private final ConntrackReconciler conntrack;
  /** The initial lists (Services, EndpointSlices, the Node, ServiceCIDRs when watched) have been delivered. */
  private boolean initialized;
  private final Duration syncPeriod;
  private final Clock clock;
  private final ServiceChangeTracker serviceChanges;
  private final EndpointsChangeTracker endpointChanges;
  private final ServicePortMap services = new ServicePortMap();
  private final EndpointsMap endpoints = new EndpointsMap();
  private final BoundedFrequencyRunner runner;
  /** The configured topology gates: every plan of every state this family hands out is decided with them. */
  private final EndpointCategorizer.TopologyGates topologyGates;
  private Map<String, String> nodeLabels;
  private List<String> serviceCIDRs = List.of();
  /** Services whose state changed in a sync that failed: the next sync reports them again. */
  private final Set<NamespacedName> unsyncedServices = new HashSet<>();
  /** Service ports deleted since the last successful sync: the reconciler clears their entries (#141371). */
  private final List<ServicePort> deletedPorts = new ArrayList<>();
  /** Node labels changed: topology may change the endpoints of every service. */
  private boolean topologyChanged;
  private long successfulSyncs;
  private long failedSyncs;
  private long monitorTimer = -1;
  private final Set<ServicePortName> loggedOrphans = new HashSet<>();
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
    this.metrics = metrics;
    metrics.initFamily(family.name());
    this.conntrack = conntrack;
    this.syncPeriod = settings.syncPeriod();
    this.clock = clock;
    this.nodeLabels = settings.nodeLabels();
    ModelGates gates = settings.gates();
    this.topologyGates = gates.topologyGates();
    this.serviceChanges = new ServiceChangeTracker(family, gates.allowServiceExternalIPs(), metrics);
    this.endpointChanges = new EndpointsChangeTracker(family, settings.nodeName(), gates.topologyAwareHints(),
        gates.preferSameTrafficDistribution(), metrics, clock,
        this::recordIncorrectIpVersion);
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
    if (serviceChanges.update(old, current) && initialized) {
      requestSync();
    }
  }

  public void onEndpointSliceUpdate(EndpointSlice slice, boolean remove) {
    if (endpointChanges.update(slice, remove) && initialized) {
      requestSync();
    }
  }

  /** The node's labels changed (null or empty when the Node is gone); topology depends on them. */
  public void onNodeLabels(Map<String, String> labels) {
    Map<String, String> copy = labels == null ? Map.of() : Map.copyOf(labels);
    if (copy.equals(nodeLabels)) {
      return;
    }
    nodeLabels = copy;
    topologyChanged = true;
    if (initialized) {
      requestSync();
    }
  }

  /** All ServiceCIDRs of the cluster; this family's are used from the next sync on (no sync of its own). */
  public void onServiceCIDRs(List<String> allCidrs) {
    List<String> mine = new ArrayList<>();
    for (String cidr : allCidrs) {
      if (IpFamily.ofText(cidr) == family) {
        mine.add(cidr);
      }
    }
    serviceCIDRs = List.copyOf(mine);
  }

  /** SyncLoop start: the family counts as fresh, and the runner's periodic timer starts. */
  public void startLoop() {
    publishHealth(HealthUpdate.Type.UPDATED);
    metrics.setLastQueuedTimestamp(family.name(), clock.instant());
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
    publishHealth(HealthUpdate.Type.QUEUED);
    metrics.setLastQueuedTimestamp(family.name(), clock.instant());
    runner.run();
  }

  /**
   * One run of the runner: nothing before initialization; else check the trackers out into the
   * maps, snapshot the state, sync the backend, and report: health, metrics, events, the conntrack
   * cleanup. A failed sync keeps its changed services for the next one and asks for a retry.
   */
  Future<Void> syncOnce() {
    if (!initialized) {
      Log.v(2).info("Not syncing rules until Services and EndpointSlices have been received", "ipFamily", family);
      return Future.succeededFuture();
    }
    long start = System.nanoTime();
    ProxyState state = checkout();
    SyncResult result;
    try {
      result = backend.sync(state);
    } catch (ProxyBackend.SyncException | RuntimeException e) {
      metrics.observeSyncDuration(family.name(), Duration.ofNanos(System.nanoTime() - start));
      lastState = state;
      syncLog.synced(state.changedServices(), clock.instant(), false, String.valueOf(e.getMessage()));
      failedSyncs++;
      unsyncedServices.addAll(state.changedServices());
      // the one place a failed sync is logged: the backends only throw
      Log.error("Failed to sync proxy rules; will retry", e, "ipFamily", family, "retryIn", syncPeriod);
      runner.retryAfter(syncPeriod);
      return Future.succeededFuture();
    }
    Duration took = Duration.ofNanos(System.nanoTime() - start);
    metrics.observeSyncDuration(family.name(), took);
    lastState = state;
    syncLog.synced(state.changedServices(), clock.instant(), result.full(), null);
    successfulSyncs++;
    unsyncedServices.clear();
    result.refusedPorts().forEach(port -> recordRefused(state, port));
    if (!result.removedLeftovers().isEmpty()) {
      vertx.eventBus().publish(EventBusAddresses.EVENTS, EventRequest.onNode(EventRequest.NORMAL,
          "RemovedLeftoverChains", "SyncProxyRules", "removed chains left by an older kube-proxy: "
              + String.join(", ", result.removedLeftovers())));
    }
    afterSuccess(result, state, endpoints.localReadyEndpoints(), took);
    List<ServicePort> deleted = List.copyOf(deletedPorts);
    deletedPorts.clear();
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

  /** The pending changes applied to the maps, and the state the backend programs next. */
  private ProxyState checkout() {
    ServicePortMap.UpdateResult serviceUpdate = services.update(serviceChanges);
    deletedPorts.addAll(serviceUpdate.deletedPorts());
    EndpointsMap.UpdateResult endpointsUpdate = endpoints.update(endpointChanges);
    Set<NamespacedName> changed = new HashSet<>(unsyncedServices);
    changed.addAll(serviceUpdate.updatedServices());
    changed.addAll(endpointsUpdate.updatedServices());
    Map<ServicePortName, ServicePort> snapshot = services.snapshot();
    FullSyncReason reason = successfulSyncs == 0 ? FullSyncReason.FIRST_SYNC
        : topologyChanged ? FullSyncReason.NODE_LABELS_CHANGED : FullSyncReason.NONE;
    if (topologyChanged) {
      // Zone hints may select other endpoints for any service: every service counts as changed.
      snapshot.keySet().forEach(spn -> changed.add(spn.service()));
      topologyChanged = false;
    }
    Map<ServicePortName, List<Endpoint>> endpointSnapshot = endpoints.snapshot();
    logOrphansOnce(snapshot, endpointSnapshot, changed);
    return new ProxyState(snapshot, endpointSnapshot, Set.copyOf(changed), nodeLabels, serviceCIDRs,
        endpointsUpdate.triggerTimes(), reason, topologyGates);
  }

  /**
   * Endpoints of a service port that no Service (of this family) has: an EndpointSlice without its
   * Service, or with a port name the Service lacks. Not proxied; logged at -v=2 once per port.
   */
  private void logOrphansOnce(Map<ServicePortName, ServicePort> services, Map<ServicePortName, List<Endpoint>> eps,
      Set<NamespacedName> changed) {
    for (ServicePortName spn : eps.keySet()) {
      if (!changed.contains(spn.service())) {
        continue;
      }
      if (services.containsKey(spn)) {
        loggedOrphans.remove(spn);
      } else if (loggedOrphans.add(spn)) {
        Log.v(2).info("Skipping endpoints without a matching service port", "servicePort", spn.toString(),
            "protocol", spn.protocol(), "ipFamily", family.toString());
      }
    }
    loggedOrphans.removeIf(spn -> changed.contains(spn.service()) && !eps.containsKey(spn));
  }

  private void afterSuccess(
      SyncResult result, ProxyState state, Map<NamespacedName, Integer> localReady, Duration took) {
    Instant now = clock.instant();
    Log.v(2).info("SyncProxyRules complete", "ipFamily", family, "elapsed", took,
        "kind", result != null && result.full() ? "full" : "partial", "servicePorts", state.services().size());
    publishHealth(HealthUpdate.Type.UPDATED);
    metrics.setLastSyncTimestamp(family.name(), now);
    firstSynced.tryComplete();
    for (List<Instant> times : state.triggerTimes().values()) {
      for (Instant t : times) {
        metrics.observeNetworkProgrammingLatency(family.name(), Duration.between(t, now));
      }
    }
    if (result != null) {
      metrics.setNoLocalEndpoints(family.name(), "internal", result.noLocalEndpointsInternal());
      metrics.setNoLocalEndpoints(family.name(), "external", result.noLocalEndpointsExternal());
    }
    Map<NamespacedName, Integer> healthCheckPorts = new HashMap<>();
    for (ServicePort port : state.services().values()) {
      if (port.healthCheckNodePort() != 0) {
        healthCheckPorts.put(port.name().service(), port.healthCheckNodePort());
      }
    }
    vertx.eventBus().publish(EventBusAddresses.SERVICE_HEALTH,
        new ServiceHealthState(Map.copyOf(healthCheckPorts), Map.copyOf(localReady), family));
  }

  /**
   * A Warning event on a Service whose rules the kernel refused (the backend logged why and left it
   * out), and its entry in the sync log.
   */
  private void recordRefused(ProxyState state, ServicePortName port) {
    syncLog.refused(state, port, clock.instant());
    try {
      vertx.eventBus().publish(EventBusAddresses.EVENTS, EventRequest.onService(port.service().namespace(),
          port.service().name(), EventRequest.WARNING, "FailedToProgramService", "SyncProxyRules",
          "the kernel refused the " + family + " rules of port " + port.port() + "; it is left out until the Service"
              + " or its endpoints change (see kube-proxy's log)"));
    } catch (RuntimeException e) {
      Log.warn("Could not record event FailedToProgramService", "servicePort", port, "err", e.getMessage());
    }
  }

  /** The KubeProxyIncorrectIPVersion Warning event on the Service; the cluster watch writes it to the API. */
  private void recordIncorrectIpVersion(NamespacedName service, String ip) {
    Log.v(2).info("Skipping an endpoint of the other IP family", "service", service, "endpoint", ip,
        "ipFamily", family);
    try {
      vertx.eventBus().publish(EventBusAddresses.EVENTS,
          EventRequest.incorrectIpVersion(service.namespace(), service.name(), ip, "GatherEndpoints"));
    } catch (RuntimeException e) {
      // e.g. no codec registered for EventRequest: keep syncing, say what was not recorded
      Log.warn("Could not record event KubeProxyIncorrectIPVersion", "service", service, "endpoint", ip, "err", e);
    }
  }

  private void publishHealth(HealthUpdate.Type type) {
    vertx.eventBus().publish(EventBusAddresses.HEALTH, new HealthUpdate(family, type, clock.instant()));
  }
}
