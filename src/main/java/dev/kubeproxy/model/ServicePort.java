package dev.kubeproxy.model;

import java.util.List;

/**
 * One Service port for one IP family, with every attribute the backends read
 * (pkg/proxy/serviceport.go BaseServicePortInfo). Immutable; equality is what the change tracker compares.
 *
 * @param clusterIP               the family's cluster IP, normalised text
 * @param protocol                TCP, UDP or SCTP
 * @param externalIPs             this family's external IPs, spec order
 * @param loadBalancerVIPs        this family's LB ingress IPs (ipMode Proxy left out), spec order
 * @param loadBalancerSourceRanges this family's source ranges, normalised CIDRs
 * @param sessionAffinityClientIP sessionAffinity == ClientIP
 * @param stickyMaxAgeSeconds     ClientIP affinity timeout, 0 without affinity
 * @param healthCheckNodePort     set only for LoadBalancer with externalTrafficPolicy Local
 * @param hintsAnnotation         topology-aware-hints or topology-mode annotation value
 */
public record ServicePort(
    ServicePortName name,
    String clusterIP,
    int port,
    String protocol,
    int nodePort,
    List<String> externalIPs,
    List<String> loadBalancerVIPs,
    List<String> loadBalancerSourceRanges,
    boolean sessionAffinityClientIP,
    int stickyMaxAgeSeconds,
    boolean externalPolicyLocal,
    boolean internalPolicyLocal,
    int healthCheckNodePort,
    String hintsAnnotation) {

  public ServicePort {
    externalIPs = List.copyOf(externalIPs);
    loadBalancerVIPs = List.copyOf(loadBalancerVIPs);
    loadBalancerSourceRanges = List.copyOf(loadBalancerSourceRanges);
  }

  /** nodePort, an LB VIP or an external IP of this family. */
  public boolean externallyAccessible() {
    return nodePort != 0 || !loadBalancerVIPs.isEmpty() || !externalIPs.isEmpty();
  }

  /** External traffic always needs the cluster set, even with externalTrafficPolicy Local. */
  public boolean usesClusterEndpoints() {
    return !internalPolicyLocal || externallyAccessible();
  }

  public boolean usesLocalEndpoints() {
    return internalPolicyLocal || (externalPolicyLocal && externallyAccessible());
  }
}
