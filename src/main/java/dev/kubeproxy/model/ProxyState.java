package dev.kubeproxy.model;

import java.time.Instant;
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
 */
public record ProxyState(
    Map<ServicePortName, ServicePort> services,
    Map<ServicePortName, List<Endpoint>> endpoints,
    Set<NamespacedName> changedServices,
    Map<String, String> nodeLabels,
    List<String> serviceCIDRs,
    Map<NamespacedName, List<Instant>> triggerTimes,
    FullSyncReason fullSyncReason) {

  public ProxyState {
    nodeLabels = nodeLabels == null ? Map.of() : nodeLabels;
    fullSyncReason = fullSyncReason == null ? FullSyncReason.NONE : fullSyncReason;
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

  /** The policy of one of this state's service ports, decided from its endpoints and this node's labels. */
  public ServicePortPlan plan(ServicePortName name) {
    ServicePort port = services.get(name);
    if (port == null) {
      throw new IllegalArgumentException("no service port " + name + " in this state");
    }
    return ServicePortPlan.of(port, endpointsOf(name), nodeLabels);
  }

  /** Whether the model asks for every service to be rewritten. */
  public boolean fullSyncRequested() {
    return fullSyncReason != FullSyncReason.NONE;
  }
}
