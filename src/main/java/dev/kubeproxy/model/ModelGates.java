package dev.kubeproxy.model;

import dev.kubeproxy.config.FeatureGates;

/**
 * The feature gates the model depends on (pkg/features/kube_features.go, as pkg/proxy/serviceport.go, endpointslicecache.go and topology.go read them;
 * upstream 1.37: AllowServiceExternalIPs deprecated and on, the others GA and locked on).
 */
public record ModelGates(boolean allowServiceExternalIPs, boolean topologyAwareHints, boolean serviceTrafficDistribution,
    boolean preferSameTrafficDistribution) {
  public static ModelGates from(FeatureGates gates) {
    return new ModelGates(
        gates.isEnabled(FeatureGates.ALLOW_SERVICE_EXTERNAL_IPS),
        gates.isEnabled("TopologyAwareHints"),
        gates.isEnabled("ServiceTrafficDistribution"),
        gates.isEnabled("PreferSameTrafficDistribution"));
  }

  public EndpointCategorizer.TopologyGates topologyGates() {
    return new EndpointCategorizer.TopologyGates(topologyAwareHints, serviceTrafficDistribution);
  }
}
