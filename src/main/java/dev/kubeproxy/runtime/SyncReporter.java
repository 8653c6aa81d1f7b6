package dev.kubeproxy.runtime;

import dev.kubeproxy.logging.Log;
import dev.kubeproxy.messages.EventBusAddresses;
import dev.kubeproxy.messages.EventRequest;
import dev.kubeproxy.messages.HealthUpdate;
import dev.kubeproxy.messages.ServiceHealthState;
import dev.kubeproxy.metrics.ProxyMetrics;
import dev.kubeproxy.model.NamespacedName;
import dev.kubeproxy.model.ProxyState;
import dev.kubeproxy.model.ServicePortName;
import dev.kubeproxy.model.ServiceSyncLog;
import dev.kubeproxy.model.SyncResult;
import dev.kubeproxy.net.IpFamily;
import io.vertx.core.eventbus.EventBus;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * What one family's syncs tell the rest of the agent: health updates (queued, updated), the sync
 * metrics, the sync log /debug/services reads, the per-Service health state, and the events
 * written to the API (a Service the kernel refused, an endpoint of the other family, removed
 * leftovers). Publishes only; nothing here answers back.
 */
final class SyncReporter {
  private final EventBus bus;
  private final IpFamily family;
  private final ProxyMetrics metrics;
  private final Clock clock;
  private final ServiceSyncLog syncLog;
  /** The maps of the last ServiceHealthState published (null: none yet); the model hands out the same maps until they change. */
  private Map<NamespacedName, Integer> publishedHealthCheckPorts;
  private Map<NamespacedName, Integer> publishedLocalReady;

  SyncReporter(EventBus bus, IpFamily family, ProxyMetrics metrics, Clock clock, ServiceSyncLog syncLog) {
    this.bus = bus;
    this.family = family;
    this.metrics = metrics;
    this.clock = clock;
    this.syncLog = syncLog;
    metrics.initFamily(family.name());
  }

  /** SyncLoop start: the family counts as fresh. */
  void loopStarted() {
    publishHealth(HealthUpdate.Type.UPDATED);
    metrics.setLastQueuedTimestamp(family.name(), clock.instant());
  }

  /** A sync was asked for: the update counts as queued from now. */
  void queued() {
    publishHealth(HealthUpdate.Type.QUEUED);
    metrics.setLastQueuedTimestamp(family.name(), clock.instant());
  }

  /** The backend refused the state: its duration, and the failure in the sync log. */
  void failed(ProxyState state, Exception e, Duration took) {
    metrics.observeSyncDuration(family.name(), took);
    syncLog.synced(state.changedServices(), clock.instant(), false, String.valueOf(e.getMessage()));
  }

  /**
   * The backend programmed the state: the sync log, the events of refused ports and removed
   * leftovers, health, metrics, and the health-check node ports with their local endpoints.
   */
  void succeeded(SyncResult result, ProxyState state, Map<NamespacedName, Integer> healthCheckPorts,
      Map<NamespacedName, Integer> localReady, Duration took) {
    metrics.observeSyncDuration(family.name(), took);
    syncLog.synced(state.changedServices(), clock.instant(), result.full(), null);
    result.refusedPorts().forEach(port -> recordRefused(state, port));
    if (!result.removedLeftovers().isEmpty()) {
      bus.publish(EventBusAddresses.EVENTS, EventRequest.onNode(EventRequest.NORMAL,
          "RemovedLeftoverChains", "SyncProxyRules", "removed chains left by an older kube-proxy: "
              + String.join(", ", result.removedLeftovers())));
    }
    Instant now = clock.instant();
    Log.v(2).info("SyncProxyRules complete", "ipFamily", family, "elapsed", took,
        "kind", result.full() ? "full" : "partial", "servicePorts", state.services().size());
    publishHealth(HealthUpdate.Type.UPDATED);
    metrics.setLastSyncTimestamp(family.name(), now);
    for (List<Instant> times : state.triggerTimes().values()) {
      for (Instant t : times) {
        metrics.observeNetworkProgrammingLatency(family.name(), Duration.between(t, now));
      }
    }
    metrics.setNoLocalEndpoints(family.name(), "internal", result.noLocalEndpointsInternal());
    metrics.setNoLocalEndpoints(family.name(), "external", result.noLocalEndpointsExternal());
    // Only what changed is sent: the health-check servers reconcile against every service they
    // are given, which the sync of one endpoint should not pay for at every sync.
    if (healthCheckPorts != publishedHealthCheckPorts || localReady != publishedLocalReady) {
      publishedHealthCheckPorts = healthCheckPorts;
      publishedLocalReady = localReady;
      bus.publish(EventBusAddresses.SERVICE_HEALTH, new ServiceHealthState(healthCheckPorts, localReady, family));
    }
  }

  /** The KubeProxyIncorrectIPVersion Warning event on the Service; the cluster watch writes it to the API. */
  void incorrectIpVersion(NamespacedName service, String ip) {
    Log.v(2).info("Skipping an endpoint of the other IP family", "service", service, "endpoint", ip,
        "ipFamily", family);
    try {
      bus.publish(EventBusAddresses.EVENTS,
          EventRequest.incorrectIpVersion(service.namespace(), service.name(), ip, "GatherEndpoints"));
    } catch (RuntimeException e) {
      // e.g. no codec registered for EventRequest: keep syncing, say what was not recorded
      Log.warn("Could not record event KubeProxyIncorrectIPVersion", "service", service, "endpoint", ip, "err", e);
    }
  }

  /**
   * A Warning event on a Service whose rules the kernel refused (the backend logged why and left it
   * out), and its entry in the sync log.
   */
  private void recordRefused(ProxyState state, ServicePortName port) {
    syncLog.refused(state, port, clock.instant());
    try {
      bus.publish(EventBusAddresses.EVENTS, EventRequest.onService(port.service().namespace(),
          port.service().name(), EventRequest.WARNING, "FailedToProgramService", "SyncProxyRules",
          "the kernel refused the " + family + " rules of port " + port.port() + "; it is left out until the Service"
              + " or its endpoints change (see kube-proxy's log)"));
    } catch (RuntimeException e) {
      Log.warn("Could not record event FailedToProgramService", "servicePort", port, "err", e.getMessage());
    }
  }

  private void publishHealth(HealthUpdate.Type type) {
    bus.publish(EventBusAddresses.HEALTH, new HealthUpdate(family, type, clock.instant()));
  }
}
