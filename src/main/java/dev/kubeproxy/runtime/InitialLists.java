package dev.kubeproxy.runtime;

import dev.kubeproxy.messages.ClusterEvent;

/**
 * Which initial lists have been delivered. Rules are first written once every watched kind's
 * initial list is in: Services and EndpointSlices (1.31), and since 1.32 also the own Node (its
 * topology labels) and the ServiceCIDRs (always watched since 1.33), so that the first sync
 * already knows them.
 */
final class InitialLists {
  private boolean services;
  private boolean endpointSlices;
  private boolean node;
  private boolean serviceCIDRs;
  private boolean complete;

  /**
   * One kind's initial list was delivered.
   *
   * @return true exactly once: when this delivery completes the set
   */
  boolean delivered(ClusterEvent.Kind kind) {
    switch (kind) {
      case SERVICE -> services = true;
      case ENDPOINT_SLICE -> endpointSlices = true;
      case NODE -> node = true;
      case SERVICE_CIDR -> serviceCIDRs = true;
      default -> {
        return false;
      }
    }
    if (!complete && services && endpointSlices && node && serviceCIDRs) {
      complete = true;
      return true;
    }
    return false;
  }

  /** Every initial list has been delivered. */
  boolean complete() {
    return complete;
  }
}
