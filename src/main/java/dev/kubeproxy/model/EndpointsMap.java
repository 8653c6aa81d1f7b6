package dev.kubeproxy.model;

import dev.kubeproxy.runtime.FamilyProxier;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The live endpoints of one family per service port, updated from the tracker at each sync
 * (pkg/proxy/endpointschangetracker.go EndpointsMap.Update). Not thread-safe: owned by its {@link FamilyProxier}.
 * Stale conntrack entries are not derived from these changes: the conntrack reconciler compares
 * the table with the whole map after each sync (pkg/proxy/conntrack/cleanup.go CleanStaleEntries).
 */
public final class EndpointsMap {
  /**
   * @param updatedServices services whose endpoints changed
   * @param triggerTimes    last-change-trigger-times recorded since the previous sync
   * @param changedPorts    the ports of the updated services that had or have endpoints
   */
  public record UpdateResult(Set<NamespacedName> updatedServices, Map<NamespacedName, List<Instant>> triggerTimes,
      Set<ServicePortName> changedPorts) {}

  private final ShardedMap<ServicePortName, List<Endpoint>> endpoints = new ShardedMap<>();
  /** Per service, the distinct IPs of its ready local endpoints, kept up to date per changed service. */
  private final PerServiceCounts localReady = new PerServiceCounts();

  public UpdateResult update(EndpointsChangeTracker tracker) {
    return update(tracker.checkout());
  }

  private UpdateResult update(EndpointsChangeTracker.Checkout checkout) {
    Set<NamespacedName> updated = new HashSet<>();
    Set<ServicePortName> changedPorts = new HashSet<>();
    for (Map.Entry<NamespacedName, EndpointsChangeTracker.ServiceChange> e : checkout.changes().entrySet()) {
      EndpointsChangeTracker.ServiceChange change = e.getValue();
      MapViews.keys(change.previous()).forEach(endpoints::remove);
      change.current().forEach(endpoints::put);
      changedPorts.addAll(MapViews.keys(change.previous()));
      changedPorts.addAll(MapViews.keys(change.current()));
      updateLocalReady(e.getKey(), change.current());
      updated.add(e.getKey());
    }
    return new UpdateResult(Collections.unmodifiableSet(updated), Collections.unmodifiableMap(checkout.triggerTimes()),
        Collections.unmodifiableSet(changedPorts));
  }

  public List<Endpoint> get(ServicePortName name) {
    List<Endpoint> list = endpoints.get(name);
    return list == null ? List.of() : list;
  }

  /**
   * Per service, the number of distinct IPs of its ready local endpoints (EndpointsMap.LocalReadyEndpoints).
   * The same immutable map is returned until a count changes, so a caller can tell "unchanged" by identity.
   */
  public Map<NamespacedName, Integer> localReadyEndpoints() {
    return localReady.copy();
  }

  /** One service's count from all its ports' endpoints (a change carries every port of the service). */
  private void updateLocalReady(NamespacedName service, Map<ServicePortName, List<Endpoint>> ports) {
    String first = null; // most Services have at most one ready local IP: no set for those
    Set<String> ips = null;
    for (List<Endpoint> list : MapViews.values(ports)) {
      for (Endpoint ep : list) {
        if (!ep.ready() || !ep.local() || ep.ip().equals(first)) {
          continue;
        }
        if (first == null) {
          first = ep.ip();
        } else {
          if (ips == null) {
            ips = new HashSet<>();
            ips.add(first);
          }
          ips.add(ep.ip());
        }
      }
    }
    localReady.set(service, ips != null ? ips.size() : first != null ? 1 : 0);
  }

  /** An immutable copy for a backend to read on another thread (the lists are immutable already). */
  public Map<ServicePortName, List<Endpoint>> snapshot() {
    return endpoints.snapshot();
  }
}
