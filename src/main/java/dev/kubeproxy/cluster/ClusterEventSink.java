package dev.kubeproxy.cluster;

import dev.kubeproxy.EventBusAddresses;
import dev.kubeproxy.cluster.ClusterEvent.Kind;
import dev.kubeproxy.cluster.ClusterEvent.Type;
import io.kubernetes.client.openapi.models.V1Node;
import io.vertx.core.eventbus.EventBus;

/**
 * Where both cluster sources (informers and the --manifests directory) deliver: publishes
 * upserts and deletes by key on the cluster.* addresses and lets the node handlers see the own
 * Node first, as upstream registers them before the proxier. Safe to call from any thread.
 */
final class ClusterEventSink {
  private final EventBus bus;
  private final NodeHandlers nodeHandlers;

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
    bus.publish(address(kind), new ClusterEvent<>(kind, Type.UPSERT, key, object));
  }

  void delete(Kind kind, String key, Object lastState) {
    if (kind == Kind.NODE) {
      nodeHandlers.onDelete((V1Node) lastState);
    }
    bus.publish(address(kind), new ClusterEvent<>(kind, Type.DELETE, key, lastState));
  }

  void synced(Kind kind) {
    bus.publish(EventBusAddresses.SYNCED, kind);
  }
}
