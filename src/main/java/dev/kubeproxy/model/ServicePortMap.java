package dev.kubeproxy.model;

import dev.kubeproxy.runtime.FamilyProxier;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** The live ServicePorts of one family, updated from the tracker at the start of each sync
 * (pkg/proxy/servicechangetracker.go ServicePortMap.Update). Not thread-safe: owned by its {@link FamilyProxier}. */
public final class ServicePortMap {
  /**
   * @param updatedServices services whose ports changed
   * @param deletedPorts    ports that went away (upstream UpdateServiceMapResult.DeletedServices:
   *                        the conntrack reconciler clears their entries)
   * @param changedPorts    every port of the updated services, before and after
   */
  public record UpdateResult(Set<NamespacedName> updatedServices, List<ServicePort> deletedPorts,
      Set<ServicePortName> changedPorts) {}

  private final ShardedMap<ServicePortName, ServicePort> ports = new ShardedMap<>();
  /** Per service, its health-check node port when it has one, kept up to date per changed service. */
  private final PerServiceCounts healthCheckNodePorts = new PerServiceCounts();

  public UpdateResult update(ServiceChangeTracker tracker) {
    Set<NamespacedName> updated = new HashSet<>();
    List<ServicePort> deleted = new ArrayList<>();
    Set<ServicePortName> changedPorts = new HashSet<>();
    for (Map.Entry<NamespacedName, ServiceChangeTracker.Change> e : tracker.checkout().entrySet()) {
      updated.add(e.getKey());
      ServiceChangeTracker.Change change = e.getValue();
      change.current().forEach(ports::put);
      changedPorts.addAll(MapViews.keys(change.previous()));
      changedPorts.addAll(MapViews.keys(change.current()));
      updateHealthCheck(e.getKey(), change.current());
      for (Map.Entry<ServicePortName, ServicePort> prev : change.previous().entrySet()) {
        if (change.current().containsKey(prev.getKey())) {
          continue; // an update, not a deletion
        }
        ServicePort removed = ports.remove(prev.getKey());
        if (removed != null) {
          deleted.add(removed);
        }
      }
    }
    return new UpdateResult(Collections.unmodifiableSet(updated), List.copyOf(deleted),
        Collections.unmodifiableSet(changedPorts));
  }

  /**
   * The services with a health-check node port (ServicePortMap.HealthCheckNodePorts). The same
   * immutable map is returned until it changes, so a caller can tell "unchanged" by identity.
   */
  public Map<NamespacedName, Integer> healthCheckNodePorts() {
    return healthCheckNodePorts.copy();
  }

  /** One service's entry from all its ports (a change carries every port of the service). */
  private void updateHealthCheck(NamespacedName service, Map<ServicePortName, ServicePort> current) {
    int port = 0;
    for (ServicePort p : MapViews.values(current)) {
      if (p.healthCheckNodePort() != 0) {
        port = p.healthCheckNodePort();
      }
    }
    healthCheckNodePorts.set(service, port);
  }

  public ServicePort get(ServicePortName name) {
    return ports.get(name);
  }

  public int size() {
    return ports.size();
  }

  /** An immutable copy for a backend to read on another thread. */
  public Map<ServicePortName, ServicePort> snapshot() {
    return ports.snapshot();
  }
}
