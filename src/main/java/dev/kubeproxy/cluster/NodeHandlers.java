package dev.kubeproxy.cluster;

import dev.kubeproxy.logging.Log;
import dev.kubeproxy.messages.EventBusAddresses;
import dev.kubeproxy.model.objects.Node;
import io.vertx.core.eventbus.EventBus;
import java.util.List;

/**
 * Upstream's two node handlers (pkg/proxy/node.go NodePodCIDRHandler, NodeEligibleHandler): in
 * NodeCIDR detect-local mode a change of the Node's podCIDRs ends the agent (the rules were built
 * for the old ones), and node eligibility (no deletionTimestamp, no ToBeDeletedByClusterAutoscaler
 * taint) feeds the healthz state.
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

  static List<String> podCIDRsOf(Node node) {
    return node.podCIDRs();
  }

  /** Eligible for traffic: not being deleted and not marked for removal by the cluster autoscaler. */
  static boolean eligible(Node node) {
    return node.metadata().deletionTimestamp() == null && !node.taintKeys().contains(AUTOSCALER_TAINT);
  }

  synchronized void onUpsert(Node node) {
    if (nodeCidrMode) {
      List<String> current = podCIDRsOf(node);
      if (podCIDRs.isEmpty() && !current.isEmpty()) {
        podCIDRs = current;
        Log.info("Setting current PodCIDRs", "podCIDRs", current);
      } else if (!current.equals(podCIDRs) && !fatalSent) {
        String name = node.metadata().name();
        Log.error(PODCIDRS_CHANGED, "node", name, "newPodCIDRs", current, "podCIDRs", podCIDRs);
        String message = PODCIDRS_CHANGED + " (node " + name + ", newPodCIDRs " + current + ", podCIDRs " + podCIDRs + ")";
        fatalSent = true;
        bus.send(EventBusAddresses.FATAL, message);
      }
    }
    bus.publish(EventBusAddresses.NODE_ELIGIBLE, eligible(node));
  }

  synchronized void onDelete(Node node) {
    if (nodeCidrMode) {
      Log.error("Current Node is being deleted", "node", node.metadata().name());
    }
    bus.publish(EventBusAddresses.NODE_ELIGIBLE, eligible(node));
  }
}
