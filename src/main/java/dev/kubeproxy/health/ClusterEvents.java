package dev.kubeproxy.health;

import dev.kubeproxy.EventBusAddresses;
import dev.kubeproxy.cluster.EventRequest;
import io.vertx.core.Vertx;

/**
 * Sends a Kubernetes event request to the cluster verticle (which alone talks to the API). A
 * missing recorder (no API, not deployed yet) just drops the event, as upstream's broadcaster
 * drops what it cannot deliver.
 */
final class ClusterEvents {
  private ClusterEvents() {}

  static void record(Vertx vertx, EventRequest event) {
    vertx.eventBus().publish(EventBusAddresses.EVENTS, event);
  }
}
