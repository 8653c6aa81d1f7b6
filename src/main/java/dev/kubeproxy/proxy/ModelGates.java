package dev.kubeproxy.proxy;

import dev.kubeproxy.config.FeatureGates;

/**
 * The feature gates the model depends on, with their defaults (service-model.md §3.1, §4.2, §7;
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
