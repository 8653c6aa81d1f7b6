package dev.kubeproxy.proxy;

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
 */
public record ProxyState(
    Map<ServicePortName, ServicePort> services,
    Map<ServicePortName, List<Endpoint>> endpoints,
    Set<NamespacedName> changedServices,
    Map<String, String> nodeLabels,
    List<String> serviceCIDRs,
    Map<NamespacedName, List<Instant>> triggerTimes) {

  public List<Endpoint> endpointsOf(ServicePortName name) {
    return endpoints.getOrDefault(name, List.of());
  }
}
