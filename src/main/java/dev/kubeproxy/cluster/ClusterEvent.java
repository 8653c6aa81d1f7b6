package dev.kubeproxy.cluster;

/**
 * One watch event as the cluster source delivers it: an upsert or a delete by key.
 * A relist can deliver an add as an update, so receivers treat every upsert alike.
 *
 * @param kind   what kind of object
 * @param type   upsert or delete
 * @param key    "namespace/name" (or "name" for cluster-scoped objects)
 * @param object the client-java model object (V1Service, V1EndpointSlice, V1Node, V1beta1ServiceCIDR
 *               or V1ServiceCIDR); for a delete, the last known state
 */
public record ClusterEvent<T>(Kind kind, Type type, String key, T object) {
  public enum Kind { SERVICE, ENDPOINT_SLICE, NODE, SERVICE_CIDR }

  public enum Type { UPSERT, DELETE }
}
