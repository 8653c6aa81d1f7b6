package dev.kubeproxy.model;

import dev.kubeproxy.config.FeatureGates;

/**
 * The feature gates the model depends on, with their defaults (pkg/features/kube_features.go, as pkg/proxy/serviceport.go, endpointslicecache.go and topology.go read them;
 * PreferSameTrafficDistribution as upstream 1.34: beta, on).
 */
public record ModelGates(boolean loadBalancerIPMode, boolean topologyAwareHints, boolean serviceTrafficDistribution,
    boolean preferSameTrafficDistribution) {
  public static ModelGates from(FeatureGates gates) {
    return new ModelGates(
        gates.isEnabled("LoadBalancerIPMode"),
        gates.isEnabled("TopologyAwareHints"),
        gates.isEnabled("ServiceTrafficDistribution"),
        gates.isEnabled("PreferSameTrafficDistribution"));
  }

  public EndpointCategorizer.TopologyGates topologyGates() {
    return new EndpointCategorizer.TopologyGates(topologyAwareHints, serviceTrafficDistribution);
  }
}
