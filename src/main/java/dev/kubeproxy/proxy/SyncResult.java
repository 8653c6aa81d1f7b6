package dev.kubeproxy.proxy;

import java.util.Map;

/**
 * What a successful backend sync reports, for logs and metrics.
 *
 * @param full                     whether this was a full sync
 * @param ruleCounts               rules per table (iptables: "filter", "nat"; nftables: "kube-proxy")
 * @param noLocalEndpointsInternal service ports with endpoints but none usable for internal traffic
 * @param noLocalEndpointsExternal same for external traffic
 */
public record SyncResult(
    boolean full,
    Map<String, Integer> ruleCounts,
    int noLocalEndpointsInternal,
    int noLocalEndpointsExternal) {}
