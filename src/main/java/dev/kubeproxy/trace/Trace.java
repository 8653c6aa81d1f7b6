package dev.kubeproxy.trace;

import java.util.List;
import java.util.SortedSet;

/**
 * The answer of a trace.
 *
 * @param path each chain entered and the rule that matched there, in order
 * @param verdict what the rules finally do with the packet
 * @param dnatTargets every "ip:port" (IPv6 as "[ip]:port") a random choice can DNAT the packet to; empty when
 *     not DNATed
 * @param masqueraded whether the packet is masqueraded (SNAT to the node)
 */
public record Trace(List<Step> path, Verdict verdict, SortedSet<String> dnatTargets, boolean masqueraded) {
}
