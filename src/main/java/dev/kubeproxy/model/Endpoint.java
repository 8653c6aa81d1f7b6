package dev.kubeproxy.model;

import java.util.Set;

/**
 * One endpoint of a Service port (pkg/proxy/endpoint.go BaseEndpointInfo).
 *
 * @param ip          the endpoint's address (addresses[0] of the slice endpoint), normalised text
 * @param port        the slice port number
 * @param local       its nodeName is this node
 * @param zoneHints   hints.forZones names, or null when there are none
 * @param nodeHint    what hints.forNodes says about this node (PreferSameNode, KEP-3015)
 * @param nodeName    the slice endpoint's nodeName, or null (shown by /debug/services; upstream's
 *                    BaseEndpointInfo keeps it too, so a move to another node counts as a change)
 * @param zone        the slice endpoint's zone, or null (same)
 */
public record Endpoint(
    String ip, int port, boolean local, boolean ready, boolean serving, boolean terminating,
    Set<String> zoneHints, NodeHint nodeHint, String nodeName, String zone) {

  /**
   * hints.forNodes relative to the node this agent runs on: the node is fixed for the process,
   * so the name comparison is done once, when the slice is read.
   */
  public enum NodeHint {
    /** No hints.forNodes (or the PreferSameTrafficDistribution gate is off). */
    NONE,
    /** Hinted for this node. */
    THIS_NODE,
    /** Hinted for other nodes only. */
    OTHER_NODES
  }

  /** An endpoint without node hints. */
  public Endpoint(String ip, int port, boolean local, boolean ready, boolean serving, boolean terminating,
      Set<String> zoneHints) {
    this(ip, port, local, ready, serving, terminating, zoneHints, NodeHint.NONE);
  }

  /** An endpoint without its node and zone names. */
  public Endpoint(String ip, int port, boolean local, boolean ready, boolean serving, boolean terminating,
      Set<String> zoneHints, NodeHint nodeHint) {
    this(ip, port, local, ready, serving, terminating, zoneHints, nodeHint, null, null);
  }

  public Endpoint {
    nodeHint = nodeHint == null ? NodeHint.NONE : nodeHint;
  }

  /** The identity string "ip:port" or "[ip]:port", which is also the sort order. */
  public String endpoint() {
    return ip.indexOf(':') >= 0 ? "[" + ip + "]:" + port : ip + ":" + port;
  }

  @Override
  public String toString() {
    return endpoint();
  }

  /**
   * Hand-written (same contract as the record's): endpoints are map keys of every sync (the
   * endpoint chains, the change trackers), and the record's generated method goes through method
   * handles that the C1-only JIT of the launcher does not flatten, a visible share of a large
   * first sync.
   */
  @Override
  public int hashCode() {
    int h = ip == null ? 0 : ip.hashCode();
    h = 31 * h + port;
    h = 31 * h + (local ? 1 : 0) + (ready ? 2 : 0) + (serving ? 4 : 0) + (terminating ? 8 : 0);
    h = 31 * h + (zoneHints == null ? 0 : zoneHints.hashCode());
    h = 31 * h + nodeHint.hashCode();
    h = 31 * h + (nodeName == null ? 0 : nodeName.hashCode());
    return 31 * h + (zone == null ? 0 : zone.hashCode());
  }

  @Override
  public boolean equals(Object o) {
    return o == this || o instanceof Endpoint e && port == e.port && local == e.local && ready == e.ready
        && serving == e.serving && terminating == e.terminating && java.util.Objects.equals(ip, e.ip)
        && nodeHint == e.nodeHint && java.util.Objects.equals(zoneHints, e.zoneHints)
        && java.util.Objects.equals(nodeName, e.nodeName) && java.util.Objects.equals(zone, e.zone);
  }
}
