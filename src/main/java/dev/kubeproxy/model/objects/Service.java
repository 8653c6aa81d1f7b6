package dev.kubeproxy.model.objects;

import io.kubernetes.client.openapi.models.V1ObjectMeta;
import java.util.List;

/**
 * A v1 Service as kube-proxy reads it: the spec fields that make its rules (and that the
 * validator checks) and the load-balancer ingress of its status. Absent lists are empty; absent
 * scalars are null (the API server's defaults are applied by the readers, as upstream does).
 *
 * @param clientIPTimeoutSeconds spec.sessionAffinityConfig.clientIP.timeoutSeconds
 * @param ingress                status.loadBalancer.ingress
 */
public record Service(ObjectMeta metadata, String type, String clusterIP, List<String> clusterIPs,
                      List<String> ipFamilies, String ipFamilyPolicy, List<Port> ports, List<String> externalIPs,
                      List<String> loadBalancerSourceRanges, String sessionAffinity, Integer clientIPTimeoutSeconds,
                      String externalTrafficPolicy, String internalTrafficPolicy, Integer healthCheckNodePort,
                      String trafficDistribution, List<Ingress> ingress) implements ClusterObject {

  /** One spec.ports entry; targetPort is either a number or a name (or neither). */
  public record Port(String name, String protocol, Integer port, Integer nodePort, Integer targetPortNumber,
                     String targetPortName) {}

  /** One status.loadBalancer.ingress entry. */
  public record Ingress(String ip, String hostname, String ipMode) {}

  /** The ipFamilies nearly every Service has, shared rather than one list per Service. */
  private static final List<List<String>> COMMON_FAMILIES = List.of(List.of("IPv4"), List.of("IPv6"),
      List.of("IPv4", "IPv6"), List.of("IPv6", "IPv4"));

  public Service {
    clusterIPs = List.copyOf(clusterIPs);
    ipFamilies = shared(ipFamilies);
    ports = List.copyOf(ports);
    externalIPs = List.copyOf(externalIPs);
    loadBalancerSourceRanges = List.copyOf(loadBalancerSourceRanges);
    ingress = List.copyOf(ingress);
  }

  private static List<String> shared(List<String> families) {
    for (List<String> common : COMMON_FAMILIES) {
      if (common.equals(families)) {
        return common;
      }
    }
    return List.copyOf(families);
  }

  @Override
  public V1ObjectMeta getMetadata() {
    return metadata.toV1();
  }

  @Override
  public String getApiVersion() {
    return "v1";
  }

  @Override
  public String getKind() {
    return "Service";
  }
}
