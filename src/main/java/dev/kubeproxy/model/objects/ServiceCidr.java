package dev.kubeproxy.model.objects;

import io.kubernetes.client.openapi.models.V1ObjectMeta;
import java.util.List;

/** A networking.k8s.io ServiceCIDR (v1beta1 or v1): its spec.cidrs. */
public record ServiceCidr(ObjectMeta metadata, List<String> cidrs) implements ClusterObject {
  public ServiceCidr {
    cidrs = List.copyOf(cidrs);
  }

  @Override
  public V1ObjectMeta getMetadata() {
    return metadata.toV1();
  }

  @Override
  public String getApiVersion() {
    return "networking.k8s.io/v1beta1";
  }

  @Override
  public String getKind() {
    return "ServiceCIDR";
  }
}
