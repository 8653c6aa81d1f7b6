package dev.kubeproxy.explain;

import java.util.List;

/**
 * Where a packet from one source to one destination goes through the rules of one service port,
 * as computed from the model ({@link PathTracer}).
 *
 * @param source      the source address
 * @param destination the destination "ip:port"
 * @param sourceKind  how the rules see the source: a pod (local-traffic detection), this node, or outside
 * @param entry       which address of the service it hit: cluster IP, NodePort, external IP,
 *                    LoadBalancer IP; null when it hits none
 * @param hops        the chains in order, each with what it does to this packet
 * @param verdict     what finally happens
 * @param endpoints   where a DNATed packet can go, each with its probability and masquerading
 * @param affinity    how ClientIP affinity changes the choice, or null without affinity
 */
public record PacketPath(
    String source, String destination, String sourceKind, String entry, List<Hop> hops, Verdict verdict,
    String reason, List<Choice> endpoints, String affinity) {

  public PacketPath {
    hops = List.copyOf(hops);
    endpoints = List.copyOf(endpoints);
  }

  /** What happens to the packet in the end. */
  public enum Verdict {
    /** Sent to one of {@code endpoints} (DNAT). */
    DNAT,
    /** Refused at once (ICMP unreachable / TCP reset): the service has no endpoints. */
    REJECT,
    /** Dropped silently (no local endpoints for the policy, or outside loadBalancerSourceRanges). */
    DROP,
    /** No rule of this service port matches: the packet goes on as if kube-proxy were not there. */
    NOT_PROXIED
  }

  /** One chain the packet walks, and what that chain does with it. */
  public record Hop(String chain, String action) {}

  /**
   * One endpoint the packet may reach.
   *
   * @param endpoint    "ip:port"
   * @param probability for a new connection (without an affinity entry), 0..1
   * @param masquerade  whether the source is rewritten to the node's address on the way
   * @param why         why it is or is not masqueraded
   */
  public record Choice(String endpoint, double probability, boolean masquerade, String why) {}
}
