package dev.kubeproxy.cluster;

import dev.kubeproxy.EventBusAddresses;
import dev.kubeproxy.cluster.ClusterEvent.Kind;
import dev.kubeproxy.cluster.ClusterEvent.Type;
import dev.kubeproxy.cluster.ObjectValidator.FieldError;
import dev.kubeproxy.logging.Log;
import io.kubernetes.client.openapi.models.V1EndpointSlice;
import io.kubernetes.client.openapi.models.V1Node;
import io.kubernetes.client.openapi.models.V1Service;
import io.vertx.core.eventbus.EventBus;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

/**
 * Where both cluster sources (informers and the --manifests directory) deliver: publishes
 * upserts and deletes by key on the cluster.* addresses and lets the node handlers see the own
 * Node first, as upstream registers them before the proxier. Services and EndpointSlices pass
 * {@link ObjectValidator} first: an invalid version is not delivered (the last valid version of
 * that key, if any, stays in effect, as when an API server rejects an update), and is reported
 * once with a log line and a Warning event naming the object and the field. Safe to call from any
 * thread.
 */
final class ClusterEventSink {
  private final EventBus bus;
  private final NodeHandlers nodeHandlers;
  /** Per validated kind, the last valid version delivered of each key (the informers' caches hold the objects). */
  private final Map<Kind, Map<String, Object>> delivered = Map.of(
      Kind.SERVICE, new ConcurrentHashMap<>(), Kind.ENDPOINT_SLICE, new ConcurrentHashMap<>());
  /** What was last reported about each invalid key, so a resync or relist does not repeat it. */
  private final Map<String, String> reported = new ConcurrentHashMap<>();

  ClusterEventSink(EventBus bus, NodeHandlers nodeHandlers) {
    this.bus = bus;
    this.nodeHandlers = nodeHandlers;
  }

  static String address(Kind kind) {
    return switch (kind) {
      case SERVICE -> EventBusAddresses.SERVICES;
      case ENDPOINT_SLICE -> EventBusAddresses.ENDPOINT_SLICES;
      case NODE -> EventBusAddresses.NODE;
      case SERVICE_CIDR -> EventBusAddresses.SERVICE_CIDRS;
    };
  }

  void upsert(Kind kind, String key, Object object) {
    if (kind == Kind.NODE) {
      nodeHandlers.onUpsert((V1Node) object);
    }
    Map<String, Object> valid = delivered.get(kind);
    if (valid != null) {
      List<FieldError> errors = validate(object);
      if (!errors.isEmpty()) {
        invalid(kind, key, valid.containsKey(key), errors.stream().map(FieldError::toString)
            .collect(Collectors.joining("; ")));
        return;
      }
      reported.remove(kind + " " + key);
      valid.put(key, object);
    }
    bus.publish(address(kind), new ClusterEvent<>(kind, Type.UPSERT, key, object));
  }

  void delete(Kind kind, String key, Object lastState) {
    if (kind == Kind.NODE) {
      nodeHandlers.onDelete((V1Node) lastState);
    }
    Map<String, Object> valid = delivered.get(kind);
    if (valid != null) {
      reported.remove(kind + " " + key);
      Object last = valid.remove(key);
      if (last == null) {
        return; // never delivered: nothing to take back
      }
      lastState = last;
    }
    bus.publish(address(kind), new ClusterEvent<>(kind, Type.DELETE, key, lastState));
  }

  void synced(Kind kind) {
    bus.publish(EventBusAddresses.SYNCED, kind);
  }

  /**
   * An object that could not even be decoded (a list or watch item with e.g. {@code port: "eighty"}):
   * reported like an invalid one; the source leaves it out.
   */
  void undecodable(Kind kind, String namespace, String name, String problem) {
    String key = namespace == null || namespace.isEmpty() ? name : namespace + "/" + name;
    invalid(kind, key, delivered.containsKey(kind) && delivered.get(kind).containsKey(key), problem);
  }

  private static List<FieldError> validate(Object object) {
    if (object instanceof V1Service s) {
      return ObjectValidator.service(s);
    }
    if (object instanceof V1EndpointSlice s) {
      return ObjectValidator.endpointSlice(s);
    }
    return List.of(new FieldError("kind", "not a v1 Service or discovery.k8s.io/v1 EndpointSlice"));
  }

  private void invalid(Kind kind, String key, boolean hadValidVersion, String problem) {
    if (problem.equals(reported.put(kind + " " + key, problem))) {
      return;
    }
    String what = switch (kind) {
      case SERVICE -> "Service";
      case ENDPOINT_SLICE -> "EndpointSlice";
      case NODE -> "Node";
      case SERVICE_CIDR -> "ServiceCIDR";
    };
    Log.error("Ignoring an invalid " + what + " (an API server would reject it); fix or delete it",
        "object", ObjectValidator.quote(key), "err", problem,
        "inEffect", hadValidVersion ? "its last valid version" : "nothing");
    if (kind == Kind.NODE || kind == Kind.SERVICE_CIDR) {
      return;
    }
    int slash = key.indexOf('/');
    String namespace = slash < 0 ? "default" : key.substring(0, slash);
    String name = slash < 0 ? key : key.substring(slash + 1);
    bus.publish(EventBusAddresses.EVENTS, EventRequest.invalidObject(what, namespace, name,
        what + " " + ObjectValidator.quote(key) + " is invalid and not programmed: " + problem));
  }
}
