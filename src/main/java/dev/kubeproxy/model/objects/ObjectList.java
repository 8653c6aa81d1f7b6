package dev.kubeproxy.model.objects;

import io.kubernetes.client.common.KubernetesListObject;
import io.kubernetes.client.openapi.models.V1ListMeta;
import java.util.List;

/** A list answer as the informers read it: the list's resourceVersion and the items that decoded. */
public record ObjectList<T extends io.kubernetes.client.common.KubernetesObject>(String resourceVersion, List<T> items)
    implements KubernetesListObject {
  public ObjectList {
    items = List.copyOf(items);
  }

  @Override
  public V1ListMeta getMetadata() {
    return new V1ListMeta().resourceVersion(resourceVersion);
  }

  @Override
  public List<T> getItems() {
    return items;
  }

  @Override
  public String getApiVersion() {
    return "v1";
  }

  @Override
  public String getKind() {
    return "List";
  }
}
