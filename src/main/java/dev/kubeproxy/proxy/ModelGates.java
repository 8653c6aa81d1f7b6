package dev.kubeproxy.proxy;

import java.util.Map;

/**
 * The feature gates the model depends on, with their 1.31 defaults (service-model.md §3.1, §4.2, §7).
 */
public record ModelGates(boolean loadBalancerIPMode, boolean topologyAwareHints, boolean serviceTrafficDistribution) {
  public static final ModelGates DEFAULTS = new ModelGates(true, true, true);

  public static ModelGates from(Map<String, Boolean> featureGates) {
    Map<String, Boolean> g = featureGates == null ? Map.of() : featureGates;
    return new ModelGates(
        g.getOrDefault("LoadBalancerIPMode", true),
        g.getOrDefault("TopologyAwareHints", true),
        g.getOrDefault("ServiceTrafficDistribution", true));
  }

  public EndpointCategorizer.TopologyGates topologyGates() {
    return new EndpointCategorizer.TopologyGates(topologyAwareHints, serviceTrafficDistribution);
  }
}
