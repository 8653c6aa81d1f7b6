package dev.kubeproxy.messages;

import dev.kubeproxy.messages.ClusterEvent;
import dev.kubeproxy.messages.EventRequest;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The Services and EndpointSlices the cluster source refused as invalid (its FailedValidation
 * events), until a valid version of the same object arrives or it is deleted. Fed from the event
 * bus on the proxier's event loop; read by the debug snapshot.
 */
public final class InvalidObjects {
  /**
   * @param kind      "Service" or "EndpointSlice"
   * @param namespace the object's namespace
   * @param name      the object's name
   * @param problem   the event's note: the field and what is wrong
   */
  public record Invalid(String kind, String namespace, String name, String problem, Instant at) {}

  private final Map<String, Invalid> byKey = new ConcurrentHashMap<>();
  private final Clock clock;

  public InvalidObjects(Clock clock) {
    this.clock = clock;
  }

  /** An event for the API: a FailedValidation one is remembered. */
  public void onEvent(Object body) {
    if (body instanceof EventRequest e && "FailedValidation".equals(e.reason()) && e.serviceName() != null) {
      byKey.put(e.regardingKind() + " " + e.serviceNamespace() + "/" + e.serviceName(),
          new Invalid(e.regardingKind(), e.serviceNamespace(), e.serviceName(), e.note(), clock.instant()));
    }
  }

  /** A Service or EndpointSlice was delivered (only valid ones are) or deleted: it is no longer invalid. */
  public void onClusterEvent(String kind, Object body) {
    if (body instanceof ClusterEvent<?> e) {
      byKey.remove(kind + " " + e.key());
    }
  }

  public List<Invalid> all() {
    return new ArrayList<>(byKey.values());
  }
}
