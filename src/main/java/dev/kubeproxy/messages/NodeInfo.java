package dev.kubeproxy.messages;

import java.util.List;
import java.util.Map;

/**
 * What kube-proxy learned about its own node before programming rules (cmd/kube-proxy/app/server.go
 * newProxyServer).
 *
 * @param name     the node name (hostname override or OS hostname, lower-cased)
 * @param nodeIPs  the detected node IPs, primary first, at most one per family (detectNodeIPs)
 * @param podCIDRs the Node's spec.podCIDRs (NodeCIDR detect-local mode), empty when unknown
 * @param labels   the Node's labels when it was found, empty otherwise
 * @param hostIPs  the Node's own host IPs as first read (pkg/util/node GetNodeHostIPs), empty when it
 *                 had none in time; null when not read (the Node watch then takes the first it sees)
 */
public record NodeInfo(String name, List<String> nodeIPs, List<String> podCIDRs, Map<String, String> labels,
    List<String> hostIPs) {
  public NodeInfo {
    nodeIPs = List.copyOf(nodeIPs);
    podCIDRs = List.copyOf(podCIDRs);
    labels = Map.copyOf(labels);
    hostIPs = hostIPs == null ? null : List.copyOf(hostIPs);
  }

  /** What was learned without reading the Node's host IPs. */
  public NodeInfo(String name, List<String> nodeIPs, List<String> podCIDRs, Map<String, String> labels) {
    this(name, nodeIPs, podCIDRs, labels, null);
  }
}
