package dev.kubeproxy.cluster;

import dev.kubeproxy.messages.ClusterEvent;
import dev.kubeproxy.messages.EventRequest;

import dev.kubeproxy.messages.EventBusAddresses;
import dev.kubeproxy.messages.ClusterEvent.Kind;
import dev.kubeproxy.messages.ClusterEvent.Type;
import dev.kubeproxy.logging.Log;
import dev.kubeproxy.model.objects.EndpointSlice;
import dev.kubeproxy.model.objects.Node;
import dev.kubeproxy.model.objects.Service;
import io.vertx.core.eventbus.EventBus;
import java.util.EnumMap;
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
 * once with a log line and a Warning event naming the object and the field. It remembers the last
 * version delivered of each key (the same objects the informers' caches hold), so that every event
 * carries the version it replaces and receivers keep no copies. Safe to call from any thread.
 */
final class ClusterEventSink {
  private final EventBus bus;
  private final NodeHandlers nodeHandlers;
  /** Per kind, the last (valid) version delivered of each key. */
  private final Map<Kind, Map<String, Object>> delivered = new EnumMap<>(Kind.class);
  /** Per kind, what was last reported about each invalid key, so a resync or relist does not repeat it. */
  private final Map<Kind, Map<String, String>> reported = new EnumMap<>(Kind.class);

  ClusterEventSink(EventBus bus, NodeHandlers nodeHandlers) {
    this.bus = bus;
    this.nodeHandlers = nodeHandlers;
    for (Kind kind : Kind.values()) {
      delivered.put(kind, new ConcurrentHashMap<>());
      reported.put(kind, new ConcurrentHashMap<>());
    }
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
      nodeHandlers.onUpsert((Node) object);
    }
    Map<String, Object> valid = delivered.get(kind);
    List<FieldError> errors = validate(kind, object);
    if (!errors.isEmpty()) {
      invalid(kind, key, valid.containsKey(key), errors.stream().map(FieldError::toString)
          .collect(Collectors.joining("; ")));
      return;
    }
    reported.get(kind).remove(key);
    Object old = valid.put(key, object);
    bus.publish(address(kind), new ClusterEvent<>(kind, Type.UPSERT, key, old, object));
  }

  void delete(Kind kind, String key, Object lastState) {
    if (kind == Kind.NODE) {
      nodeHandlers.onDelete((Node) lastState);
    }
    reported.get(kind).remove(key);
    Object last = delivered.get(kind).remove(key);
    if (last == null) {
      return; // never delivered: nothing to take back
    }
    bus.publish(address(kind), new ClusterEvent<>(kind, Type.DELETE, key, last, null));
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
    invalid(kind, key, delivered.get(kind).containsKey(key), problem);
  }

  /** Services and EndpointSlices pass the API server's validation; the other kinds are taken as they are. */
  private static List<FieldError> validate(Kind kind, Object object) {
    return switch (kind) {
      case SERVICE -> ObjectValidator.service((Service) object);
      case ENDPOINT_SLICE -> ObjectValidator.endpointSlice((EndpointSlice) object);
      case NODE, SERVICE_CIDR -> List.of();
    };
  }

  private void invalid(Kind kind, String key, boolean hadValidVersion, String problem) {
    if (problem.equals(reported.get(kind).put(key, problem))) {
      return;
    }
    String what = switch (kind) {
      case SERVICE -> "Service";
      case ENDPOINT_SLICE -> "EndpointSlice";
      case NODE -> "Node";
      case SERVICE_CIDR -> "ServiceCIDR";
    };
    Log.error("Ignoring an invalid " + what + " (an API server would reject it); fix or delete it",
        "object", FieldError.quote(key), "err", problem,
        "inEffect", hadValidVersion ? "its last valid version" : "nothing");
    if (kind == Kind.NODE || kind == Kind.SERVICE_CIDR) {
      return;
    }
    int slash = key.indexOf('/');
    String namespace = slash < 0 ? "default" : key.substring(0, slash);
    String name = slash < 0 ? key : key.substring(slash + 1);
    bus.publish(EventBusAddresses.EVENTS, EventRequest.invalidObject(what, namespace, name,
        what + " " + FieldError.quote(key) + " is invalid and not programmed: " + problem));
  }
}
