package dev.kubeproxy.messages;

/**
 * One change as the cluster source delivers it, by key, with the states a receiver needs so
 * that it keeps no copy of its own: an upsert carries the previous delivered version (null for an
 * add) and the new one; a delete carries the last delivered version. A relist can deliver an add
 * as an update, so receivers treat every upsert alike.
 *
 * @param kind    what kind of object
 * @param type    upsert or delete
 * @param key     "namespace/name" (or "name" for cluster-scoped objects)
 * @param old     the version delivered before (null for an add)
 * @param current the new version (null for a delete)
 * @param <T>     the lean object type of the kind ({@link dev.kubeproxy.model.objects.Service},
 *                {@link dev.kubeproxy.model.objects.EndpointSlice}, {@link dev.kubeproxy.model.objects.Node}
 *                or {@link dev.kubeproxy.model.objects.ServiceCidr})
 */
public record ClusterEvent<T>(Kind kind, Type type, String key, T old, T current) {
  public enum Kind { SERVICE, ENDPOINT_SLICE, NODE, SERVICE_CIDR }

  public enum Type { UPSERT, DELETE }

  /** The state the event leaves or, for a delete, the last known one. */
  public T latest() {
    return current != null ? current : old;
  }
}
