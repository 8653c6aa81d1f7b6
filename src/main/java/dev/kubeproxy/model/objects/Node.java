package dev.kubeproxy.model.objects;

import io.kubernetes.client.openapi.models.V1ObjectMeta;
import java.util.List;

/**
 * The v1 Node as kube-proxy reads it: labels (topology) and deletionTimestamp in the metadata,
 * the podCIDRs, the taints' keys (eligibility) and the status addresses (node IPs).
 */
public record Node(ObjectMeta metadata, String podCIDR, List<String> podCIDRs, List<String> taintKeys,
                   List<Address> addresses) implements ClusterObject {

  /** One status.addresses entry. */
  public record Address(String type, String address) {}

  public Node {
    podCIDRs = List.copyOf(podCIDRs);
    taintKeys = List.copyOf(taintKeys);
    addresses = List.copyOf(addresses);
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
    return "Node";
  }
}
