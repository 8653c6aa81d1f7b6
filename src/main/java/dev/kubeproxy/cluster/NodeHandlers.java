package dev.kubeproxy.cluster;

import dev.kubeproxy.logging.Log;
import dev.kubeproxy.messages.EventBusAddresses;
import dev.kubeproxy.model.objects.Node;
import io.vertx.core.eventbus.EventBus;
import java.util.List;

/**
 * Upstream's node handlers (pkg/proxy/node.go NodeManager OnNodeChange / OnNodeDelete, and the
 * healthz server's node eligibility): the rules were built for the Node as first read, so the
 * agent ends, through the one fatal path, to be restarted when the Node's host IPs change or the
 * Node is deleted (1.37), and in NodeCIDR detect-local mode when its podCIDRs change. Node
 * eligibility (no deletionTimestamp, no ToBeDeletedByClusterAutoscaler taint) feeds the healthz state.
 */
final class NodeHandlers {
  static final String AUTOSCALER_TAINT = "ToBeDeletedByClusterAutoscaler";
  static final String PODCIDRS_CHANGED =
      "Using NodeCIDR LocalDetector mode, current PodCIDRs are different than previous PodCIDRs, restarting";

  private final EventBus bus;
  private final boolean nodeCidrMode;
  private List<String> podCIDRs;
  private List<String> hostIPs;
  private boolean fatalSent;

  /**
   * @param initialHostIPs the Node's host IPs the agent started with (empty: none were found in
   *                       time); null: the first Node seen gives them
   */
  NodeHandlers(EventBus bus, boolean nodeCidrMode, List<String> initialPodCIDRs, List<String> initialHostIPs) {
    this.bus = bus;
    this.nodeCidrMode = nodeCidrMode;
    this.podCIDRs = initialPodCIDRs == null ? List.of() : List.copyOf(initialPodCIDRs);
    this.hostIPs = initialHostIPs == null ? null : List.copyOf(initialHostIPs);
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
        fatal(message);
      }
    }
    hostIPsChange(node);
    bus.publish(EventBusAddresses.NODE_ELIGIBLE, eligible(node));
  }

  /** pkg/proxy/node.go OnNodeChange: a Node without a host IP is logged and changes nothing. */
  private void hostIPsChange(Node node) {
    List<String> current;
    try {
      current = NodeIpSelection.nodeHostIPs(node);
    } catch (IllegalArgumentException e) {
      Log.error("Failed to retrieve NodeIPs", "err", e.getMessage());
      return;
    }
    if (hostIPs == null) {
      hostIPs = current;
    } else if (!current.equals(hostIPs) && !fatalSent) {
      String name = node.metadata().name();
      Log.info("NodeIPs changed for the node", "node", name, "newNodeIPs", current, "oldNodeIPs", hostIPs);
      fatal("NodeIPs changed for the node (node " + name + ", newNodeIPs " + current + ", oldNodeIPs " + hostIPs
          + "), restarting");
    }
  }

  /** pkg/proxy/node.go OnNodeDelete: the Node this agent serves is gone. */
  synchronized void onDelete(Node node) {
    bus.publish(EventBusAddresses.NODE_ELIGIBLE, eligible(node));
    if (!fatalSent) {
      String name = node.metadata().name();
      Log.info("Node is being deleted", "node", name);
      fatal("Node is being deleted (node " + name + "), restarting");
    }
  }

  private void fatal(String message) {
    fatalSent = true;
    bus.send(EventBusAddresses.FATAL, message);
  }
}
