package dev.kubeproxy.proxy;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** The live endpoints of one family per service port, updated from the tracker at each sync (§4.4). */
public final class EndpointsMap {
  /** A serving UDP endpoint that disappeared from its service port (stale conntrack input, §11.1). */
  public record DeletedUdpEndpoint(Endpoint endpoint, ServicePortName servicePort) {}

  /**
   * @param updatedServices        services whose endpoints changed
   * @param deletedUDPEndpoints    serving UDP endpoints that went away
   * @param newlyActiveUDPServices UDP service ports whose serving endpoints went from none to some
   * @param triggerTimes           last-change-trigger-times recorded since the previous sync
   */
  public record UpdateResult(
      Set<NamespacedName> updatedServices,
      List<DeletedUdpEndpoint> deletedUDPEndpoints,
      Set<ServicePortName> newlyActiveUDPServices,
      Map<NamespacedName, List<Instant>> triggerTimes) {}

  private final Map<ServicePortName, List<Endpoint>> endpoints = new HashMap<>();
  /** The last snapshot, reused until the map changes. */
  private Map<ServicePortName, List<Endpoint>> snapshot;

  public UpdateResult update(EndpointsChangeTracker tracker) {
    return update(tracker.checkout());
  }

  /** Applies a checkout (possibly computed on a worker; see {@link EndpointsChangeTracker#take()}). */
  UpdateResult update(EndpointsChangeTracker.Checkout checkout) {
    Set<NamespacedName> updated = new HashSet<>();
    List<DeletedUdpEndpoint> deleted = new ArrayList<>();
    Set<ServicePortName> newlyActive = new HashSet<>();
    for (Map.Entry<NamespacedName, EndpointsChangeTracker.ServiceChange> e : checkout.changes().entrySet()) {
      EndpointsChangeTracker.ServiceChange change = e.getValue();
      snapshot = null;
      change.previous().keySet().forEach(endpoints::remove);
      endpoints.putAll(change.current());
      detectStaleUdp(change.previous(), change.current(), deleted, newlyActive);
      updated.add(e.getKey());
    }
    return new UpdateResult(Collections.unmodifiableSet(updated), Collections.unmodifiableList(deleted),
        Collections.unmodifiableSet(newlyActive), Collections.unmodifiableMap(checkout.triggerTimes()));
  }

  private static void detectStaleUdp(
      Map<ServicePortName, List<Endpoint>> previous, Map<ServicePortName, List<Endpoint>> current,
      List<DeletedUdpEndpoint> deleted, Set<ServicePortName> newlyActive) {
    for (Map.Entry<ServicePortName, List<Endpoint>> e : previous.entrySet()) {
      if (!"UDP".equals(e.getKey().protocol())) {
        continue;
      }
      Set<String> still = new HashSet<>();
      for (Endpoint ep : current.getOrDefault(e.getKey(), List.of())) {
        still.add(ep.endpoint());
      }
      for (Endpoint ep : e.getValue()) {
        // Only serving endpoints can have had traffic sent to them.
        if (ep.serving() && !still.contains(ep.endpoint())) {
          deleted.add(new DeletedUdpEndpoint(ep, e.getKey()));
        }
      }
    }
    for (Map.Entry<ServicePortName, List<Endpoint>> e : current.entrySet()) {
      if (!"UDP".equals(e.getKey().protocol())) {
        continue;
      }
      if (servingCount(previous.getOrDefault(e.getKey(), List.of())) == 0 && servingCount(e.getValue()) > 0) {
        newlyActive.add(e.getKey());
      }
    }
  }

  private static int servingCount(List<Endpoint> list) {
    int n = 0;
    for (Endpoint ep : list) {
      if (ep.serving()) {
        n++;
      }
    }
    return n;
  }

  public List<Endpoint> get(ServicePortName name) {
    return endpoints.getOrDefault(name, List.of());
  }

  /** Per service, the number of distinct IPs of its ready local endpoints (§4.6). */
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
