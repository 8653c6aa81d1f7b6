package dev.kubeproxy.model;

import dev.kubeproxy.net.IpFamily;

import dev.kubeproxy.logging.Log;
import dev.kubeproxy.metrics.ProxyMetrics;
import dev.kubeproxy.model.objects.Service;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Pending Service changes of one family between two syncs (pkg/proxy/servicechangetracker.go ServiceChangeTracker.Update): per Service,
 * the ports as of the last sync and as of now. A change that returns to the synced state
 * cancels out.
 */
public final class ServiceChangeTracker {
  /** Ports of one Service at the last sync and now. */
  record Change(Map<ServicePortName, ServicePort> previous, Map<ServicePortName, ServicePort> current) {}

  private final IpFamily family;
  private final boolean allowExternalIPs;
  private final ProxyMetrics metrics;
  private final Map<NamespacedName, Change> pending = new LinkedHashMap<>();
  /** Services whose skip was logged, with the reason (logged again only when it changes). */
  private final Map<NamespacedName, String> loggedSkips = new HashMap<>();

  public ServiceChangeTracker(IpFamily family, boolean allowExternalIPs, ProxyMetrics metrics) {
    this.family = family;
    this.allowExternalIPs = allowExternalIPs;
    this.metrics = metrics;
  }

  public IpFamily family() {
    return family;
  }

  /**
   * Records a change; old null is an add, current null a delete.
   *
   * @return whether any change is pending at all (not whether this call changed anything)
   */
  public boolean update(Service old, Service current) {
    if (old == null && current == null) {
      return false;
    }
    metrics.incServiceChanges();
    Service any = current != null ? current : old;
    NamespacedName name = new NamespacedName(any.metadata().namespace(), any.metadata().name());
    Change change = pending.get(name);
    Map<ServicePortName, ServicePort> previous =
        change != null ? change.previous() : ServicePorts.of(old, family, allowExternalIPs);
    Map<ServicePortName, ServicePort> now = ServicePorts.of(current, family, allowExternalIPs);
    logSkipOnce(name, current);
    if (previous.equals(now)) {
      pending.remove(name);
    } else {
      pending.put(name, new Change(previous, now));
    }
    metrics.setServiceChangesPending(pending.size());
    return !pending.isEmpty();
  }

  /** What is skipped of a Service, logged once per Service and reason; nothing kept while its level is off. */
  private void logSkipOnce(NamespacedName name, Service current) {
    ServicePorts.Skip skip = current == null ? null : ServicePorts.skip(current, family);
    if (skip == null || !Log.enabled(skip.verbosity())) {
      loggedSkips.remove(name);
      return;
    }
    String reason = skip.reason().get();
    if (!reason.equals(loggedSkips.put(name, reason))) {
      Log.v(skip.verbosity()).info("Skipping service", "service", name.toString(), "ipFamily", family.toString(),
          "reason", reason);
    }
  }

  public int pendingCount() {
    return pending.size();
  }

  /** Hands the pending changes over and forgets them (the map applies them). */
  Map<NamespacedName, Change> checkout() {
    Map<NamespacedName, Change> out = new HashMap<>(pending);
    pending.clear();
    metrics.setServiceChangesPending(0);
    return out;
  }
}
