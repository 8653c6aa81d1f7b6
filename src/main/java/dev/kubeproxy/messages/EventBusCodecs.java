package dev.kubeproxy.messages;

import dev.kubeproxy.messages.ClusterEvent;
import dev.kubeproxy.messages.EventRequest;
import dev.kubeproxy.messages.NodeInfo;
import dev.kubeproxy.messages.HealthUpdate;
import dev.kubeproxy.messages.ServiceHealthState;
import dev.kubeproxy.messages.DebugServicesQuery;
import dev.kubeproxy.messages.ProxierSnapshot;
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
