package dev.kubeproxy.model;

import java.util.List;
import java.util.Map;

/**
 * What every backend does with one service port, decided once from the model: which endpoints
 * serve cluster and local traffic, and which of the per-port policy branches apply. Upstream
 * derives the same booleans at the top of the per-service loop of each backend's syncProxyRules
 * (pkg/proxy/iptables/proxier.go, pkg/proxy/nftables/proxier.go); here the backends read them.
 *
 * @param service                 the service port
 * @param endpoints               the categorized endpoints (cluster, local, every reachable one)
 * @param hasEndpoints            some usable endpoint exists anywhere
 * @param usesClusterPolicyChain  the cluster-policy chain has endpoints and the service uses it
 * @param usesLocalPolicyChain    the local-policy chain has endpoints and the service uses it
 * @param hasInternalEndpoints    cluster-internal traffic (ClusterIP) can reach an endpoint under
 *                                internalTrafficPolicy
 * @param hasExternalEndpoints    external traffic (NodePort, external and LoadBalancer IPs) can reach
 *                                an endpoint under externalTrafficPolicy
 * @param usesExternalChain       there are endpoints and the service is reachable from outside
 * @param hasSourceRangeFirewall  LoadBalancer VIPs with loadBalancerSourceRanges (iptables also
 *                                requires {@code hasEndpoints} before it writes the firewall chain)
 */
public record ServicePortPlan(
    ServicePort service,
    EndpointCategorizer.Result endpoints,
    boolean hasEndpoints,
    boolean usesClusterPolicyChain,
    boolean usesLocalPolicyChain,
    boolean hasInternalEndpoints,
    boolean hasExternalEndpoints,
    boolean usesExternalChain,
    boolean hasSourceRangeFirewall) {

  public static ServicePortPlan of(
      ServicePort svc, List<Endpoint> endpoints, Map<String, String> nodeLabels,
      EndpointCategorizer.TopologyGates gates) {
    EndpointCategorizer.Result cat = EndpointCategorizer.categorize(svc, endpoints, nodeLabels, gates);
    boolean hasEndpoints = cat.hasAnyEndpoints();
    boolean noLocal = cat.local().isEmpty();
    return new ServicePortPlan(
        svc,
        cat,
        hasEndpoints,
        !cat.cluster().isEmpty() && svc.usesClusterEndpoints(),
        !noLocal && svc.usesLocalEndpoints(),
        hasEndpoints && !(svc.internalPolicyLocal() && noLocal),
        hasEndpoints && !(svc.externalPolicyLocal() && noLocal),
        hasEndpoints && svc.externallyAccessible(),
        !svc.loadBalancerVIPs().isEmpty() && !svc.loadBalancerSourceRanges().isEmpty());
  }

  public static ServicePortPlan of(ServicePort svc, List<Endpoint> endpoints, Map<String, String> nodeLabels) {
    return of(svc, endpoints, nodeLabels, EndpointCategorizer.TopologyGates.DEFAULT);
  }

  public List<Endpoint> clusterEndpoints() {
    return endpoints.cluster();
  }

  public List<Endpoint> localEndpoints() {
    return endpoints.local();
  }

  /**
   * The endpoints one IPVS virtual server of the port forwards to (pkg/proxy/ipvs/proxier.go
   * syncEndpoint): under a node-local policy this node's endpoints when there are some, otherwise the
   * cluster endpoints (kubernetes#97081: pods on this node can still reach the service).
   */
  public List<Endpoint> realServers(boolean nodeLocalPolicy) {
    return nodeLocalPolicy && !localEndpoints().isEmpty() ? localEndpoints() : clusterEndpoints();
  }

  /** The topology mode that picked the cluster endpoints (upstream pkg/proxy/topology.go). */
  public EndpointCategorizer.TopologyMode topologyMode() {
    return endpoints.topology();
  }

  /** No ready endpoint passed topology: cluster traffic goes to the serving-terminating ones. */
  public boolean clusterTerminatingFallback() {
    return endpoints.clusterTerminatingFallback();
  }

  /** No local endpoint is ready: local-policy traffic goes to the local serving-terminating ones. */
  public boolean localTerminatingFallback() {
    return endpoints.localTerminatingFallback();
  }
}
