package dev.kubeproxy.model.objects;

import io.kubernetes.client.common.KubernetesObject;

/** One of the lean cluster objects: client-java's informers cache it; its metadata is {@link ObjectMeta}. */
public interface ClusterObject extends KubernetesObject {
  ObjectMeta metadata();
}
