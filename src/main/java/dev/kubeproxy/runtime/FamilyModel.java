package dev.kubeproxy.runtime;

import dev.kubeproxy.logging.Log;
import dev.kubeproxy.metrics.ProxyMetrics;
import dev.kubeproxy.model.Endpoint;
import dev.kubeproxy.model.EndpointCategorizer;
import dev.kubeproxy.model.EndpointsChangeTracker;
import dev.kubeproxy.model.EndpointsMap;
import dev.kubeproxy.model.FullSyncReason;
import dev.kubeproxy.model.ModelGates;
import dev.kubeproxy.model.NamespacedName;
import dev.kubeproxy.model.ProxyState;
import dev.kubeproxy.model.ServiceChangeTracker;
import dev.kubeproxy.model.ServicePort;
import dev.kubeproxy.model.ServicePortMap;
import dev.kubeproxy.model.ServicePortName;
import dev.kubeproxy.model.objects.EndpointSlice;
import dev.kubeproxy.model.objects.Service;
import dev.kubeproxy.net.IpFamily;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiConsumer;

/**
 * One family's model (upstream Proxier's serviceChanges, endpointsChanges, svcPortMap and
 * endpointsMap): the change trackers take the cluster's events, and each sync checks them out
 * into the live maps and an immutable {@link ProxyState}. Runs on the proxier verticle's context
 * like its {@link FamilyProxier}.
 */
final class FamilyModel {
  private final IpFamily family;
  private final ServiceChangeTracker serviceChanges;
  private final EndpointsChangeTracker endpointChanges;
  private final ServicePortMap services = new ServicePortMap();
  private final EndpointsMap endpoints = new EndpointsMap();
  /** The configured topology gates: every plan of every state this family hands out is decided with them. */
  private final EndpointCategorizer.TopologyGates topologyGates;
  private Map<String, String> nodeLabels;
  private List<String> serviceCIDRs = List.of();
  /** Services whose state changed in a sync that failed: the next sync reports them again. */
  private final Set<NamespacedName> unsyncedServices = new HashSet<>();
  /** Service ports deleted since the last successful sync: the conntrack reconciler clears their entries. */
  private final List<ServicePort> deletedPorts = new ArrayList<>();
  /** Node labels changed: topology may change the endpoints of every service. */
  private boolean topologyChanged;
  private final Set<ServicePortName> loggedOrphans = new HashSet<>();

  /**
   * @param incorrectIpVersion told of each endpoint of the other family (upstream's
   *                           KubeProxyIncorrectIPVersion event)
   */
  FamilyModel(IpFamily family, FamilyProxier.Settings settings, ProxyMetrics metrics, Clock clock,
      BiConsumer<NamespacedName, String> incorrectIpVersion) {
    this.family = family;
    this.nodeLabels = settings.nodeLabels();
    ModelGates gates = settings.gates();
    this.topologyGates = gates.topologyGates();
    this.serviceChanges = new ServiceChangeTracker(family, gates.allowServiceExternalIPs(), metrics);
    this.endpointChanges = new EndpointsChangeTracker(family, settings.nodeName(), gates.topologyAwareHints(),
        gates.preferSameTrafficDistribution(), metrics, clock, incorrectIpVersion);
  }

  /** @return whether the change is pending (a change back cancels out) */
  boolean serviceUpdated(Service old, Service current) {
    return serviceChanges.update(old, current);
  }

  /** @return whether the change is pending */
  boolean endpointSliceUpdated(EndpointSlice slice, boolean remove) {
    return endpointChanges.update(slice, remove);
  }

  /**
   * The node's labels (null or empty when the Node is gone); topology depends on them.
   *
   * @return whether they changed: the next sync is full and every Service counts as changed
   */
  boolean nodeLabelsUpdated(Map<String, String> labels) {
    Map<String, String> copy = labels == null ? Map.of() : Map.copyOf(labels);
    if (copy.equals(nodeLabels)) {
      return false;
    }
    nodeLabels = copy;
    topologyChanged = true;
    return true;
  }

  /** All ServiceCIDRs of the cluster; this family's are used from the next checkout on. */
  void serviceCIDRsUpdated(List<String> allCidrs) {
    List<String> mine = new ArrayList<>();
    for (String cidr : allCidrs) {
      if (IpFamily.ofText(cidr) == family) {
        mine.add(cidr);
      }
    }
    serviceCIDRs = List.copyOf(mine);
  }

  /**
   * The pending changes applied to the maps, and the state the backend programs next.
   *
   * @param firstSync no sync has succeeded yet: the state asks for a full sync
   */
  ProxyState checkout(boolean firstSync) {
    ServicePortMap.UpdateResult serviceUpdate = services.update(serviceChanges);
    deletedPorts.addAll(serviceUpdate.deletedPorts());
    EndpointsMap.UpdateResult endpointsUpdate = endpoints.update(endpointChanges);
    Set<NamespacedName> changed = new HashSet<>(unsyncedServices);
    changed.addAll(serviceUpdate.updatedServices());
    changed.addAll(endpointsUpdate.updatedServices());
    Map<ServicePortName, ServicePort> snapshot = services.snapshot();
    FullSyncReason reason = firstSync ? FullSyncReason.FIRST_SYNC
        : topologyChanged ? FullSyncReason.NODE_LABELS_CHANGED : FullSyncReason.NONE;
    boolean everyServiceChanged = topologyChanged;
    if (topologyChanged) {
      // Zone hints may select other endpoints for any service: every service counts as changed.
      snapshot.keySet().forEach(spn -> changed.add(spn.service()));
      topologyChanged = false;
    }
    Map<ServicePortName, List<Endpoint>> endpointSnapshot = endpoints.snapshot();
    Set<ServicePortName> changedPorts = null; // unknown: the services of a failed sync, or every service
    if (unsyncedServices.isEmpty() && reason == FullSyncReason.NONE && !everyServiceChanged) {
      changedPorts = new HashSet<>(serviceUpdate.changedPorts());
      changedPorts.addAll(endpointsUpdate.changedPorts());
      for (ServicePort gone : deletedPorts) {
        changedPorts.add(gone.name());
      }
    }
    logOrphansOnce(snapshot, endpointSnapshot, changed, changedPorts);
    return new ProxyState(snapshot, endpointSnapshot, Collections.unmodifiableSet(changed), nodeLabels, serviceCIDRs,
        endpointsUpdate.triggerTimes(), reason, topologyGates,
        changedPorts == null ? null : Collections.unmodifiableSet(changedPorts));
  }

  /** The sync of this state failed: its changed Services count as changed at the next checkout too. */
  void syncFailed(ProxyState state) {
    unsyncedServices.addAll(state.changedServices());
  }

  /**
   * The sync of the last checkout succeeded.
   *
   * @return the service ports deleted since the previous successful sync (for the conntrack reconciler)
   */
  List<ServicePort> syncSucceeded() {
    unsyncedServices.clear();
    List<ServicePort> deleted = List.copyOf(deletedPorts);
    deletedPorts.clear();
    return deleted;
  }

  /** Ready local endpoints per Service, for the health-check node ports (the same map until it changes). */
  Map<NamespacedName, Integer> localReadyEndpoints() {
    return endpoints.localReadyEndpoints();
  }

  /** The health-check node port per Service that has one (the same map until it changes). */
  Map<NamespacedName, Integer> healthCheckNodePorts() {
    return services.healthCheckNodePorts();
  }

  /**
   * Endpoints of a service port that no Service (of this family) has: an EndpointSlice without its
   * Service, or with a port name the Service lacks. Not proxied; logged at -v=2 once per port. At a
   * full sync every port is looked at (one lookup each: at the largest clusters three were a tenth
   * of the first sync): an unchanged Service's orphans were logged when it changed.
   */
  private void logOrphansOnce(Map<ServicePortName, ServicePort> services, Map<ServicePortName, List<Endpoint>> eps,
      Set<NamespacedName> changed, Set<ServicePortName> changedPorts) {
    boolean every = changedPorts == null;
    for (ServicePortName spn : every ? eps.keySet() : changedPorts) {
      if (!every && (!changed.contains(spn.service()) || !eps.containsKey(spn))) {
        continue;
      }
      if (services.containsKey(spn)) {
        if (!loggedOrphans.isEmpty()) {
          loggedOrphans.remove(spn);
        }
      } else if (loggedOrphans.add(spn)) {
        Log.v(2).info("Skipping endpoints without a matching service port", "servicePort", spn.toString(),
            "protocol", spn.protocol(), "ipFamily", family.toString());
      }
    }
    loggedOrphans.removeIf(spn -> changed.contains(spn.service()) && !eps.containsKey(spn));
  }
}
