package dev.kubeproxy.model;

import dev.kubeproxy.runtime.FamilyProxier;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
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
   */
  public record UpdateResult(Set<NamespacedName> updatedServices, List<ServicePort> deletedPorts) {}

  private final Map<ServicePortName, ServicePort> ports = new HashMap<>();
  /** The last snapshot, reused until the map changes. */
  private Map<ServicePortName, ServicePort> snapshot;

  public UpdateResult update(ServiceChangeTracker tracker) {
    Set<NamespacedName> updated = new HashSet<>();
    List<ServicePort> deleted = new ArrayList<>();
    for (Map.Entry<NamespacedName, ServiceChangeTracker.Change> e : tracker.checkout().entrySet()) {
      snapshot = null;
      updated.add(e.getKey());
      ServiceChangeTracker.Change change = e.getValue();
      ports.putAll(change.current());
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
    return new UpdateResult(Collections.unmodifiableSet(updated), List.copyOf(deleted));
  }

  public ServicePort get(ServicePortName name) {
    return ports.get(name);
  }

  public int size() {
    return ports.size();
  }

  /** An immutable copy for a backend to read on another thread. */
  public Map<ServicePortName, ServicePort> snapshot() {
    if (snapshot == null) {
      snapshot = Map.copyOf(ports);
    }
    return snapshot;
  }
}
