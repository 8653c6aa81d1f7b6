package dev.kubeproxy.model;

import dev.kubeproxy.logging.Log;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Picks which endpoints of a service port serve cluster traffic and which serve local traffic
 * (pkg/proxy/topology.go CategorizeEndpoints), with the topology modes of upstream
 * 1.33+ pkg/proxy/topology.go: PreferSameNode from hints.forNodes (KEP-3015), else PreferSameZone
 * from hints.forZones. The EndpointSlice controller writes the hints for trafficDistribution
 * PreferSameNode, PreferSameZone and its alias PreferClose; kube-proxy reads only the hints.
 */
public final class EndpointCategorizer {
  static final String ZONE_LABEL = "topology.kubernetes.io/zone";

  private EndpointCategorizer() {}

  /**
   * @param cluster        endpoints for cluster-policy traffic
   * @param local          endpoints for local-policy traffic
   * @param allReachable   every endpoint some rule may send to (which per-endpoint chains must exist)
   * @param hasAnyEndpoints whether the port has any usable endpoint at all, anywhere
   * @param topology        the topology mode that picked the cluster endpoints (NONE when the
   *                        service uses no cluster endpoints)
   * @param clusterTerminatingFallback no ready endpoint passed topology, so the cluster set is the
   *                        serving-terminating endpoints
   * @param localTerminatingFallback no local endpoint is ready, so the local set is the local
   *                        serving-terminating endpoints
   */
  public record Result(
      List<Endpoint> cluster, List<Endpoint> local, List<Endpoint> allReachable, boolean hasAnyEndpoints,
      TopologyMode topology, boolean clusterTerminatingFallback, boolean localTerminatingFallback) {}

  /** The feature gates that decide topology routing; 1.31 has both on. */
  public record TopologyGates(boolean topologyAwareHints, boolean serviceTrafficDistribution) {
    public static final TopologyGates DEFAULT = new TopologyGates(true, true);
  }

  public static Result categorize(ServicePort svc, List<Endpoint> endpoints, Map<String, String> nodeLabels) {
    return categorize(svc, endpoints, nodeLabels, TopologyGates.DEFAULT);
  }

  public static Result categorize(
      ServicePort svc, List<Endpoint> endpoints, Map<String, String> nodeLabels, TopologyGates gates) {
    if (nodeLabels == null) {
      nodeLabels = Map.of();
    }
    boolean useTopology = false;
    boolean hasAny = false;
    TopologyMode mode = TopologyMode.NONE;
    boolean clusterFallback = false;
    List<Endpoint> cluster = List.of();
    if (svc.usesClusterEndpoints()) {
      mode = topologyMode(svc, endpoints, nodeLabels, gates);
      useTopology = mode != TopologyMode.NONE;
      String zone = nodeLabels.get(ZONE_LABEL);
      List<Endpoint> selected = new ArrayList<>();
      for (Endpoint ep : endpoints) {
        if (ep.ready() && availableForTopology(ep, mode, zone)) {
          selected.add(ep);
        }
      }
      if (selected.isEmpty()) {
        // Fall back to serving-terminating endpoints, topology ignored.
        for (Endpoint ep : endpoints) {
          if (ep.serving() && ep.terminating()) {
            selected.add(ep);
          }
        }
        clusterFallback = !selected.isEmpty();
      }
      cluster = List.copyOf(selected);
      hasAny = !cluster.isEmpty();
    }
    if (!svc.usesLocalEndpoints()) {
      return new Result(cluster, List.of(), cluster, hasAny, mode, clusterFallback, false);
    }

    boolean hasLocalReady = false;
    boolean hasLocalServingTerminating = false;
    for (Endpoint ep : endpoints) {
      if (ep.ready()) {
        hasAny = true;
        hasLocalReady |= ep.local();
      } else if (ep.serving() && ep.terminating()) {
        hasAny = true;
        hasLocalServingTerminating |= ep.local();
      }
    }
    List<Endpoint> local = new ArrayList<>();
    boolean terminatingFallback = false;
    if (hasLocalReady) {
      for (Endpoint ep : endpoints) {
        if (ep.local() && ep.ready()) {
          local.add(ep);
        }
      }
    } else if (hasLocalServingTerminating) {
      terminatingFallback = true;
      for (Endpoint ep : endpoints) {
        if (ep.local() && ep.serving() && ep.terminating()) {
          local.add(ep);
        }
      }
    }
    List<Endpoint> localList = List.copyOf(local);
    if (!svc.usesClusterEndpoints()) {
      return new Result(cluster, localList, localList, hasAny, mode, clusterFallback, terminatingFallback);
    }
    if (!useTopology && !terminatingFallback) {
      return new Result(cluster, localList, cluster, hasAny, mode, clusterFallback, terminatingFallback);
    }
    Map<String, Endpoint> union = new LinkedHashMap<>();
    for (Endpoint ep : cluster) {
      union.put(ep.endpoint(), ep);
    }
    for (Endpoint ep : localList) {
      union.putIfAbsent(ep.endpoint(), ep);
    }
    return new Result(cluster, localList, List.copyOf(union.values()), hasAny, mode, clusterFallback,
        terminatingFallback);
  }

  /** Upstream's topology modes: none (every ready endpoint), same node, same zone. */
  public enum TopologyMode { NONE, PREFER_SAME_NODE, PREFER_SAME_ZONE }

  /**
   * upstream topologyModeFromHints: same node when every ready endpoint has node hints and one is
   * hinted for this node; else same zone when every ready endpoint has zone hints and one is
   * hinted for this node's zone; else none. (Node hints are only in the model when the
   * PreferSameTrafficDistribution gate is on.)
   */
  static TopologyMode topologyMode(
      ServicePort svc, List<Endpoint> endpoints, Map<String, String> nodeLabels, TopologyGates gates) {
    boolean hasReady = false;
    boolean allHaveNodeHints = true;
    boolean hasEndpointForNode = false;
    for (Endpoint ep : endpoints) {
      if (!ep.ready()) {
        continue;
      }
      hasReady = true;
      allHaveNodeHints &= ep.nodeHint() != Endpoint.NodeHint.NONE;
      hasEndpointForNode |= ep.nodeHint() == Endpoint.NodeHint.THIS_NODE;
    }
    if (!hasReady) {
      return TopologyMode.NONE;
    }
    if (allHaveNodeHints && hasEndpointForNode) {
      return TopologyMode.PREFER_SAME_NODE;
    }
    if (allHaveNodeHints) {
      Log.v(2).info("Ignoring same-node topology hints for service since no hints were provided for node",
          "service", svc.name());
    }
    return canUseZoneTopology(svc, endpoints, nodeLabels, gates) ? TopologyMode.PREFER_SAME_ZONE : TopologyMode.NONE;
  }

  private static boolean availableForTopology(Endpoint ep, TopologyMode mode, String zone) {
    return switch (mode) {
      case NONE -> true;
      case PREFER_SAME_NODE -> ep.nodeHint() == Endpoint.NodeHint.THIS_NODE;
      case PREFER_SAME_ZONE -> ep.zoneHints().contains(zone);
    };
  }

  static boolean canUseZoneTopology(
      ServicePort svc, List<Endpoint> endpoints, Map<String, String> nodeLabels, TopologyGates gates) {
    if (!gates.topologyAwareHints() && !gates.serviceTrafficDistribution()) {
      return false;
    }
    if (!gates.serviceTrafficDistribution()) {
      String hints = svc.hintsAnnotation();
      if (hints.isEmpty() || hints.equals("disabled") || hints.equals("Disabled")) {
        return false;
      }
    }
    String zone = nodeLabels.get(ZONE_LABEL);
    if (zone == null || zone.isEmpty()) {
      return false;
    }
    boolean hasEndpointForZone = false;
    for (Endpoint ep : endpoints) {
      if (!ep.ready()) {
        continue;
      }
      if (ep.zoneHints() == null || ep.zoneHints().isEmpty()) {
        return false;
      }
      hasEndpointForZone |= ep.zoneHints().contains(zone);
    }
    return hasEndpointForZone;
  }
}
