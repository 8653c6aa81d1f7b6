package dev.kubeproxy.model;

import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What a backend programs in one sync: the whole current model of its family, plus what changed
 * since the previous sync so that a backend can write only that.
 *
 * @param services        every ServicePort of this family
 * @param endpoints       every Service port's endpoints, sorted by identity string
 * @param changedServices services whose ports or endpoints changed since the previous sync
 * @param nodeLabels      this node's labels (topology zone), empty when unknown
 * @param serviceCIDRs    this family's ServiceCIDRs (MultiCIDRServiceAllocator), empty when not watched
 * @param triggerTimes    per service, the last-change-trigger-times since the previous sync
 * @param fullSyncReason  why the model asks for a full sync, {@link FullSyncReason#NONE} when it does not
 * @param topologyGates   the configured topology gates every port's plan is decided with, so that
 *                        every backend and explain read the same plan
 * @param changedPorts    every port whose rules may have changed since the last successful sync
 *                        (the changed services' ports before and after, and those deleted since),
 *                        so that a partial sync need not look through every port to find them;
 *                        null when unknown (see {@link #portsOfChangedServices})
 */
public record ProxyState(
    Map<ServicePortName, ServicePort> services,
    Map<ServicePortName, List<Endpoint>> endpoints,
    Set<NamespacedName> changedServices,
    Map<String, String> nodeLabels,
    List<String> serviceCIDRs,
    Map<NamespacedName, List<Instant>> triggerTimes,
    FullSyncReason fullSyncReason,
    EndpointCategorizer.TopologyGates topologyGates,
    Set<ServicePortName> changedPorts) {

  public ProxyState {
    nodeLabels = nodeLabels == null ? Map.of() : nodeLabels;
    fullSyncReason = fullSyncReason == null ? FullSyncReason.NONE : fullSyncReason;
    if (topologyGates == null) {
      throw new IllegalArgumentException("a ProxyState needs the topology gates its plans are decided with");
    }
  }

  /** A state with upstream's default topology gates (both on), for tools and tests that configure none. */
  public ProxyState(
      Map<ServicePortName, ServicePort> services,
      Map<ServicePortName, List<Endpoint>> endpoints,
      Set<NamespacedName> changedServices,
      Map<String, String> nodeLabels,
      List<String> serviceCIDRs,
      Map<NamespacedName, List<Instant>> triggerTimes,
      FullSyncReason fullSyncReason) {
    this(services, endpoints, changedServices, nodeLabels, serviceCIDRs, triggerTimes, fullSyncReason,
        EndpointCategorizer.TopologyGates.DEFAULT, null);
  }

  /** A state whose changes are only the changed services (no full sync asked for by the model). */
  public ProxyState(
      Map<ServicePortName, ServicePort> services,
      Map<ServicePortName, List<Endpoint>> endpoints,
      Set<NamespacedName> changedServices,
      Map<String, String> nodeLabels,
      List<String> serviceCIDRs,
      Map<NamespacedName, List<Instant>> triggerTimes) {
    this(services, endpoints, changedServices, nodeLabels, serviceCIDRs, triggerTimes, FullSyncReason.NONE);
  }

  public List<Endpoint> endpointsOf(ServicePortName name) {
    return endpoints.getOrDefault(name, List.of());
  }

  /**
   * The policy of one of this state's service ports, decided from its endpoints, this node's labels
   * and the configured topology gates: the one place a port's plan is made.
   */
  public ServicePortPlan plan(ServicePortName name) {
    ServicePort port = services.get(name);
    if (port == null) {
      throw new IllegalArgumentException("no service port " + name + " in this state");
    }
    return plan(port);
  }

  /** {@link #plan(ServicePortName)} for a port the caller already holds. */
  public ServicePortPlan plan(ServicePort port) {
    return ServicePortPlan.of(port, endpointsOf(port.name()), nodeLabels, topologyGates);
  }

  /** This state with other service ports and endpoints (the same changes, labels and gates). */
  public ProxyState withServices(
      Map<ServicePortName, ServicePort> services, Map<ServicePortName, List<Endpoint>> endpoints) {
    return new ProxyState(services, endpoints, changedServices, nodeLabels, serviceCIDRs, triggerTimes,
        fullSyncReason, topologyGates, changedPorts);
  }

  /**
   * The ports of the changed services in this state, plus those of {@code others} (ports a backend
   * has programmed) that belong to a changed service and are gone from this state: the known
   * {@link #changedPorts} when the model gave them, else found by looking through every port.
   */
  public Set<ServicePortName> portsOfChangedServices(Set<ServicePortName> others) {
    if (changedPorts != null) {
      return changedPorts;
    }
    Set<ServicePortName> changed = new HashSet<>();
    if (changedServices.isEmpty()) {
      return changed;
    }
    for (ServicePortName spn : services.keySet()) {
      if (changedServices.contains(spn.service())) {
        changed.add(spn);
      }
    }
    for (ServicePortName spn : others) {
      if (changedServices.contains(spn.service()) && !services.containsKey(spn)) {
        changed.add(spn);
      }
    }
    return changed;
  }

  /** Whether the model asks for every service to be rewritten. */
  public boolean fullSyncRequested() {
    return fullSyncReason != FullSyncReason.NONE;
  }
}
