package dev.kubeproxy.model;

import java.util.List;
import java.util.Map;

/**
 * What a successful backend sync reports, for logs, metrics and events.
 *
 * @param full                     whether this was a full sync
 * @param ruleCounts               rules per table (iptables: "filter", "nat"; nftables: "kube-proxy")
 * @param noLocalEndpointsInternal service ports with endpoints but none usable for internal traffic
 * @param noLocalEndpointsExternal same for external traffic
 * @param refusedPorts             service ports whose rules the kernel refused, left out of this and
 *                                 the following syncs until they change; each is reported once (the
 *                                 proxier records an event on it)
 * @param removedLeftovers         chains of an older kube-proxy's layout that this sync removed
 *                                 (the proxier records an event naming them)
 */
public record SyncResult(
    boolean full,
    Map<String, Integer> ruleCounts,
    int noLocalEndpointsInternal,
    int noLocalEndpointsExternal,
    List<ServicePortName> refusedPorts,
    List<String> removedLeftovers) {

  public SyncResult {
    refusedPorts = List.copyOf(refusedPorts);
    removedLeftovers = List.copyOf(removedLeftovers);
  }

  /** A sync that removed no leftovers. */
  public SyncResult(boolean full, Map<String, Integer> ruleCounts, int noLocalEndpointsInternal,
      int noLocalEndpointsExternal, List<ServicePortName> refusedPorts) {
    this(full, ruleCounts, noLocalEndpointsInternal, noLocalEndpointsExternal, refusedPorts, List.of());
  }

  /** A sync that left nothing out. */
  public SyncResult(
      boolean full, Map<String, Integer> ruleCounts, int noLocalEndpointsInternal, int noLocalEndpointsExternal) {
    this(full, ruleCounts, noLocalEndpointsInternal, noLocalEndpointsExternal, List.of());
  }

  /** As a record prints, with refusedPorts only when some were refused (the usual line stays short). */
  @Override
  public String toString() {
    return "SyncResult[full=" + full + ", ruleCounts=" + ruleCounts + ", noLocalEndpointsInternal="
        + noLocalEndpointsInternal + ", noLocalEndpointsExternal=" + noLocalEndpointsExternal
        + (refusedPorts.isEmpty() ? "" : ", refusedPorts=" + refusedPorts)
        + (removedLeftovers.isEmpty() ? "" : ", removedLeftovers=" + removedLeftovers) + "]";
  }

  /** This result, reporting these ports as refused. */
  public SyncResult withRefused(List<ServicePortName> ports) {
    return new SyncResult(full, ruleCounts, noLocalEndpointsInternal, noLocalEndpointsExternal, ports,
        removedLeftovers);
  }

  /** This result, reporting these leftover chains as removed. */
  public SyncResult withRemovedLeftovers(List<String> chains) {
    return new SyncResult(full, ruleCounts, noLocalEndpointsInternal, noLocalEndpointsExternal, refusedPorts, chains);
  }
}
