package dev.kubeproxy.model.objects;

import io.kubernetes.client.openapi.models.V1ObjectMeta;
import java.util.List;

/** A discovery.k8s.io/v1 EndpointSlice as kube-proxy reads it. */
public record EndpointSlice(ObjectMeta metadata, String addressType, List<Endpoint> endpoints, List<Port> ports)
    implements ClusterObject {

  /**
   * One endpoint. Conditions are null when absent (ready and serving then count as true).
   *
   * @param zoneHints names of hints.forZones
   * @param nodeHints names of hints.forNodes
   */
  public record Endpoint(List<String> addresses, Boolean ready, Boolean serving, Boolean terminating,
                         String hostname, String nodeName, String zone, List<String> zoneHints,
                         List<String> nodeHints) {
    public Endpoint {
      addresses = List.copyOf(addresses);
      zoneHints = List.copyOf(zoneHints);
      nodeHints = List.copyOf(nodeHints);
    }
  }

  /** One ports entry; a null name differs from "" (upstream ignores a port with a nil name). */
  public record Port(String name, String protocol, Integer port) {}

  public EndpointSlice {
    endpoints = List.copyOf(endpoints);
    ports = List.copyOf(ports);
  }

  @Override
  public V1ObjectMeta getMetadata() {
    return metadata.toV1();
  }

  @Override
  public String getApiVersion() {
    return "discovery.k8s.io/v1";
  }

  @Override
  public String getKind() {
    return "EndpointSlice";
  }
}
