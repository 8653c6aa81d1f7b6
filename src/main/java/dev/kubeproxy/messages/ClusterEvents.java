package dev.kubeproxy.messages;

import dev.kubeproxy.messages.EventBusAddresses;
import dev.kubeproxy.messages.EventRequest;
import io.vertx.core.Vertx;

/**
 * Sends a Kubernetes event request to the cluster verticle (which alone talks to the API). A
 * missing recorder (no API, not deployed yet) just drops the event, as upstream's broadcaster
 * drops what it cannot deliver.
 */
public final class ClusterEvents {
  private ClusterEvents() {}

  public static void record(Vertx vertx, EventRequest event) {
    vertx.eventBus().publish(EventBusAddresses.EVENTS, event);
  }
}
