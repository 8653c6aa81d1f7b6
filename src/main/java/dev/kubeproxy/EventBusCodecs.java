package dev.kubeproxy;

import dev.kubeproxy.cluster.ClusterEvent;
import dev.kubeproxy.cluster.EventRequest;
import dev.kubeproxy.cluster.NodeInfo;
import dev.kubeproxy.health.HealthUpdate;
import dev.kubeproxy.health.ServiceHealthState;
import dev.kubeproxy.proxy.DebugServicesQuery;
import dev.kubeproxy.proxy.ProxierSnapshot;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.EventBus;
import java.util.List;

/**
 * Registers the local pass-through codecs for the records sent over the event bus. Call once per
 * Vertx instance before deploying verticles (the agent does; tests that send these records do too).
 * Calling it again on the same instance is harmless.
 */
public final class EventBusCodecs {
  private EventBusCodecs() {}

  /** The record types that travel over the bus as plain Java objects. */
  public static final List<Class<?>> TYPES =
      List.of(ClusterEvent.class, ClusterEvent.Kind.class, EventRequest.class, HealthUpdate.class,
          ServiceHealthState.class, NodeInfo.class, DebugServicesQuery.class, ProxierSnapshot.class);

  @SuppressWarnings({"unchecked", "rawtypes"})
  public static void register(Vertx vertx) {
    EventBus bus = vertx.eventBus();
    for (Class<?> type : TYPES) {
      try {
        bus.registerDefaultCodec((Class) type, new LocalCodec<>(type));
      } catch (IllegalStateException alreadyRegistered) {
        // a second call on the same Vertx: the codec is already there
      }
    }
  }
}
