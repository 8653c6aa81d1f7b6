package dev.kubeproxy.cluster;

import dev.kubeproxy.logging.Log;
import dev.kubeproxy.EventBusAddresses;
import io.kubernetes.client.openapi.models.V1Node;
import io.kubernetes.client.openapi.models.V1NodeSpec;
import io.vertx.core.eventbus.EventBus;
import java.util.List;

/**
 * Upstream's two node handlers (server.md §11): in NodeCIDR detect-local mode a change of the
 * Node's podCIDRs ends the agent (the rules were built for the old ones), and node eligibility
 * (no deletionTimestamp, no ToBeDeletedByClusterAutoscaler taint) feeds the healthz state.
 */
final class NodeHandlers {
  static final String AUTOSCALER_TAINT = "ToBeDeletedByClusterAutoscaler";
  static final String PODCIDRS_CHANGED =
      "Using NodeCIDR LocalDetector mode, current PodCIDRs are different than previous PodCIDRs, restarting";

  private final EventBus bus;
  private final boolean nodeCidrMode;
  private List<String> podCIDRs;
  private boolean fatalSent;

  NodeHandlers(EventBus bus, boolean nodeCidrMode, List<String> initialPodCIDRs) {
    this.bus = bus;
    this.nodeCidrMode = nodeCidrMode;
    this.podCIDRs = initialPodCIDRs == null ? List.of() : List.copyOf(initialPodCIDRs);
  }

  static List<String> podCIDRsOf(V1Node node) {
    V1NodeSpec spec = node.getSpec();
    return spec == null || spec.getPodCIDRs() == null ? List.of() : List.copyOf(spec.getPodCIDRs());
  }

  /** Eligible for traffic: not being deleted and not marked for removal by the cluster autoscaler. */
  static boolean eligible(V1Node node) {
    if (node.getMetadata() != null && node.getMetadata().getDeletionTimestamp() != null) {
      return false;
    }
    V1NodeSpec spec = node.getSpec();
    return spec == null || spec.getTaints() == null
        || spec.getTaints().stream().noneMatch(t -> AUTOSCALER_TAINT.equals(t.getKey()));
  }

  synchronized void onUpsert(V1Node node) {
    if (nodeCidrMode) {
      List<String> current = podCIDRsOf(node);
      if (podCIDRs.isEmpty() && !current.isEmpty()) {
        podCIDRs = current;
        Log.info("Setting current PodCIDRs", "podCIDRs", current);
      } else if (!current.equals(podCIDRs) && !fatalSent) {
        String name = node.getMetadata() == null ? "" : node.getMetadata().getName();
        Log.error(PODCIDRS_CHANGED, "node", name, "newPodCIDRs", current, "podCIDRs", podCIDRs);
        String message = PODCIDRS_CHANGED + " (node " + name + ", newPodCIDRs " + current + ", podCIDRs " + podCIDRs + ")";
        fatalSent = true;
        bus.send(EventBusAddresses.FATAL, message);
      }
    }
    bus.publish(EventBusAddresses.NODE_ELIGIBLE, eligible(node));
  }

  synchronized void onDelete(V1Node node) {
    if (nodeCidrMode) {
      Log.error("Current Node is being deleted", "node", node.getMetadata() == null ? "" : node.getMetadata().getName());
    }
    bus.publish(EventBusAddresses.NODE_ELIGIBLE, eligible(node));
  }
}
