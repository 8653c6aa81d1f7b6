package dev.kubeproxy.explain;

import dev.kubeproxy.explain.DebugReport.EndpointEntry;
import dev.kubeproxy.model.Endpoint;
import dev.kubeproxy.model.EndpointCategorizer.TopologyMode;
import dev.kubeproxy.model.ServicePort;
import dev.kubeproxy.model.ServicePortPlan;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

/**
 * Which of a port's endpoint sets one endpoint falls in, and why, from the plan's categorization
 * (upstream pkg/proxy/topology.go CategorizeEndpoints): the cluster set, the local set, either of
 * them through the terminating fallback, filtered out by topology, or unused.
 */
final class EndpointSets {
  static final String CLUSTER = "cluster";
  static final String LOCAL = "local";
  static final String TERMINATING_FALLBACK = "terminating fallback";
  static final String FILTERED_BY_TOPOLOGY = "filtered by topology";
  static final String UNUSED = "unused";

  private EndpointSets() {}

  static EndpointEntry explain(Endpoint ep, ServicePortPlan plan, String nodeZone) {
    ServicePort svc = plan.service();
    boolean inCluster = plan.clusterEndpoints().contains(ep);
    boolean inLocal = plan.localEndpoints().contains(ep);
    List<String> sets = new ArrayList<>();
    List<String> why = new ArrayList<>();
    boolean servingTerminating = !ep.ready() && ep.serving() && ep.terminating();
    if (inCluster) {
      sets.add(CLUSTER);
      if (plan.clusterTerminatingFallback()) {
        why.add("serving and terminating; no ready endpoint" + (plan.topologyMode() == TopologyMode.NONE ? ""
            : " passed topology") + ", so the serving-terminating ones take cluster traffic");
      } else {
        why.add(topologyReason(ep, plan.topologyMode(), nodeZone, true));
      }
    }
    if (inLocal) {
      sets.add(LOCAL);
      why.add(plan.localTerminatingFallback()
          ? "on this node, serving and terminating; no local endpoint is ready, so it takes local traffic"
          : inCluster ? "on this node" : "ready, on this node");
    }
    if ((inCluster && plan.clusterTerminatingFallback()) || (inLocal && plan.localTerminatingFallback())) {
      sets.add(TERMINATING_FALLBACK);
    }
    if (sets.isEmpty()) {
      if (!ep.ready() && !servingTerminating) {
        sets.add(UNUSED);
        why.add(ep.terminating() ? "terminating and no longer serving" : "not ready");
      } else if (servingTerminating) {
        sets.add(UNUSED);
        why.add("serving but terminating: used only when no ready endpoint is left for the policy");
      } else if (svc.usesClusterEndpoints() && plan.topologyMode() != TopologyMode.NONE) {
        sets.add(FILTERED_BY_TOPOLOGY);
        why.add(topologyReason(ep, plan.topologyMode(), nodeZone, false));
      } else {
        sets.add(UNUSED);
        why.add(ep.local() ? "ready, but no policy of this port uses it"
            : "not on this node, and internalTrafficPolicy Local uses only this node's endpoints");
      }
    }
    return new EndpointEntry(ep.endpoint(), ep.ready(), ep.serving(), ep.terminating(), ep.nodeName(), ep.zone(),
        ep.local(), List.copyOf(sets), String.join("; ", why));
  }

  private static String topologyReason(Endpoint ep, TopologyMode mode, String nodeZone, boolean selected) {
    return switch (mode) {
      case NONE -> "ready";
      case PREFER_SAME_NODE -> selected ? "ready, hinted for this node (PreferSameNode)"
          : "ready, but hinted for other nodes only (PreferSameNode: this node has endpoints of its own)";
      case PREFER_SAME_ZONE -> selected ? "ready, hinted for zone " + nodeZone + ", this node's zone (PreferSameZone)"
          : "ready, but hinted for zone(s) " + (ep.zoneHints() == null ? "[]" : new TreeSet<>(ep.zoneHints()))
              + ", not this node's zone " + nodeZone + " (PreferSameZone)";
    };
  }
}
