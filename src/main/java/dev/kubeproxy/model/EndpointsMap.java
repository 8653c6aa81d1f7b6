package dev.kubeproxy.model;

import dev.kubeproxy.runtime.FamilyProxier;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
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
   */
  public record UpdateResult(Set<NamespacedName> updatedServices, Map<NamespacedName, List<Instant>> triggerTimes) {}

  private final Map<ServicePortName, List<Endpoint>> endpoints = new HashMap<>();
  /** The last snapshot, reused until the map changes. */
  private Map<ServicePortName, List<Endpoint>> snapshot;

  public UpdateResult update(EndpointsChangeTracker tracker) {
    return update(tracker.checkout());
  }

  private UpdateResult update(EndpointsChangeTracker.Checkout checkout) {
    Set<NamespacedName> updated = new HashSet<>();
    for (Map.Entry<NamespacedName, EndpointsChangeTracker.ServiceChange> e : checkout.changes().entrySet()) {
      EndpointsChangeTracker.ServiceChange change = e.getValue();
      snapshot = null;
      change.previous().keySet().forEach(endpoints::remove);
      endpoints.putAll(change.current());
      updated.add(e.getKey());
    }
    return new UpdateResult(Collections.unmodifiableSet(updated), Collections.unmodifiableMap(checkout.triggerTimes()));
  }

  public List<Endpoint> get(ServicePortName name) {
    return endpoints.getOrDefault(name, List.of());
  }

  /** Per service, the number of distinct IPs of its ready local endpoints (EndpointsMap.LocalReadyEndpoints). */
  public Map<NamespacedName, Integer> localReadyEndpoints() {
    Map<NamespacedName, Set<String>> ips = new HashMap<>();
    endpoints.forEach((spn, list) -> {
      for (Endpoint ep : list) {
        if (ep.ready() && ep.local()) {
          ips.computeIfAbsent(spn.service(), k -> new HashSet<>()).add(ep.ip());
        }
      }
    });
    Map<NamespacedName, Integer> out = new HashMap<>();
    ips.forEach((k, v) -> out.put(k, v.size()));
    return out;
  }

  /** An immutable copy for a backend to read on another thread (the lists are immutable already). */
  public Map<ServicePortName, List<Endpoint>> snapshot() {
    if (snapshot == null) {
      snapshot = Map.copyOf(endpoints);
    }
    return snapshot;
  }
}
