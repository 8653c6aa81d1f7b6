package dev.kubeproxy.explain;

import dev.kubeproxy.explain.PacketPath.Choice;
import dev.kubeproxy.explain.PacketPath.Hop;
import dev.kubeproxy.explain.PacketPath.Verdict;
import dev.kubeproxy.net.IpAddresses;
import dev.kubeproxy.model.Endpoint;
import dev.kubeproxy.model.LocalTrafficDetector;
import dev.kubeproxy.model.ProxierSettings;
import dev.kubeproxy.model.ServicePort;
import dev.kubeproxy.model.ServicePortPlan;
import dev.kubeproxy.backend.ipvs.IpSet;
import dev.kubeproxy.backend.ipvs.IpSets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The packet path in ipvs mode (pkg/proxy/ipvs/proxier.go, as IpvsRulesetGenerator renders it):
 * ipvs mode has no per-service chains. The nat rules match the service's entries in the ipsets to
 * decide the masquerade mark (KUBE-SERVICES, KUBE-NODE-PORT, KUBE-LOAD-BALANCER), the filter rules
 * apply loadBalancerSourceRanges (KUBE-PROXY-FIREWALL), then the IPVS virtual server of the
 * destination picks a real server (weight 1 each, by its scheduler) and forwards by NAT;
 * KUBE-POSTROUTING masquerades marked packets and a pod reaching itself (KUBE-LOOP-BACK). A
 * node-local policy without local endpoints falls back to every endpoint, as upstream's
 * syncEndpoint does; a virtual server without real servers leaves the packet to the node's own
 * stack, which refuses it.
 */
final class IpvsPathTracer {
  private final PathTracer tracer;
  private final ProxierSettings settings;

  IpvsPathTracer(PathTracer tracer, ProxierSettings settings) {
    this.tracer = tracer;
    this.settings = settings;
  }

  PacketPath trace(ServicePortPlan plan, String src, String dst, String destination, int destinationPort,
      String sourceKind, PathTracer.Entry entry, String affinity) {
    ServicePort svc = plan.service();
    String proto = svc.protocol().toLowerCase(Locale.ROOT);
    String entryText = dst + "," + proto + ":" + destinationPort;
    List<Hop> hops = new ArrayList<>();
    boolean masq;
    String why;
    boolean local;
    switch (entry.kind()) {
      case PathTracer.CLUSTER_IP -> {
        local = svc.internalPolicyLocal();
        LocalTrafficDetector detector = settings.localDetector();
        if (settings.masqueradeAll()) {
          masq = true;
          why = "masqueradeAll";
        } else if (detector.implemented()) {
          masq = !tracer.isPod(src);
          why = masq ? "not pod traffic (" + PathTracer.detectorText(detector) + "): masqueraded"
              : "pod traffic (" + PathTracer.detectorText(detector) + ") keeps its source";
        } else {
          masq = src.equals(dst);
          why = masq ? "the node's own connection from the service address (src,dst match): masqueraded"
              : "no local-traffic detection: only the node's own connections from a service address are masqueraded";
        }
        hops.add(new Hop("nat KUBE-SERVICES", "matches set " + set(IpSets.CLUSTER_IP) + " (dst,dst " + entryText
            + ")" + (masq ? " -> KUBE-MARK-MASQ" : "") + ", then ACCEPT: IPVS takes it"));
      }
      case PathTracer.NODE_PORT -> {
        local = svc.externalPolicyLocal();
        String p = proto.toUpperCase(Locale.ROOT);
        hops.add(new Hop("nat KUBE-SERVICES", "destination is a local address -> KUBE-NODE-PORT"));
        hops.add(new Hop("nat KUBE-NODE-PORT", local
            ? "matches set " + set("KUBE-NODE-PORT-LOCAL-" + p) + " (port " + destinationPort + "): RETURN, not marked"
            : "matches set " + set("KUBE-NODE-PORT-" + p) + " (port " + destinationPort + ") -> KUBE-MARK-MASQ"));
        masq = !local;
        why = local ? "externalTrafficPolicy Local keeps the client's source"
            : "externalTrafficPolicy Cluster: external traffic is masqueraded";
      }
      case PathTracer.EXTERNAL_IP -> {
        local = svc.externalPolicyLocal();
        hops.add(new Hop("nat KUBE-SERVICES", local
            ? "matches set " + set(IpSets.EXTERNAL_IP_LOCAL) + " (dst,dst " + entryText + "), not marked"
            : "matches set " + set(IpSets.EXTERNAL_IP) + " (dst,dst " + entryText + ") -> KUBE-MARK-MASQ"));
        masq = !local;
        why = local ? "externalTrafficPolicy Local keeps the client's source"
            : "externalTrafficPolicy Cluster: external traffic is masqueraded";
      }
      default -> { // LoadBalancer IP
        local = svc.externalPolicyLocal();
        hops.add(new Hop("nat KUBE-SERVICES", "matches set " + set(IpSets.LOAD_BALANCER) + " (dst,dst " + entryText
            + ") -> KUBE-LOAD-BALANCER"));
        hops.add(new Hop("nat KUBE-LOAD-BALANCER", local
            ? "matches set " + set(IpSets.LOAD_BALANCER_LOCAL) + ": RETURN, not marked" : "-> KUBE-MARK-MASQ"));
        masq = !local;
        why = local ? "externalTrafficPolicy Local keeps the client's source"
            : "externalTrafficPolicy Cluster: external traffic is masqueraded";
        if (plan.hasSourceRangeFirewall()) {
          hops.add(new Hop("filter KUBE-PROXY-FIREWALL", "matches set " + set(IpSets.LOAD_BALANCER_FW)
              + " -> KUBE-SOURCE-RANGES-FIREWALL"));
          String allowedBy = tracer.allowedBySourceRanges(svc, src);
          if (allowedBy == null) {
            hops.add(new Hop("filter KUBE-SOURCE-RANGES-FIREWALL", "source " + src
                + " is in neither " + set(IpSets.LOAD_BALANCER_SOURCE_CIDR) + " nor "
                + set(IpSets.LOAD_BALANCER_SOURCE_IP) + " (loadBalancerSourceRanges "
                + svc.loadBalancerSourceRanges() + "): DROP"));
            return new PacketPath(src, destination, sourceKind, entry.kind(), hops, Verdict.DROP,
                "source outside loadBalancerSourceRanges", List.of(), affinity);
          }
          hops.add(new Hop("filter KUBE-SOURCE-RANGES-FIREWALL", "RETURN: " + allowedBy));
        }
      }
    }

    String virtualServer = "IPVS " + svc.protocol() + " " + hostPort(dst, destinationPort);
    List<Endpoint> eps = plan.realServers(local);
    if (eps.isEmpty()) {
      String none = plan.hasEndpoints() ? svc.name() + " has no endpoint on this node for its Local policy"
          : svc.name() + " has no usable endpoint";
      hops.add(new Hop(virtualServer, "has no real server (" + none + "): IPVS leaves the packet to the node's own"
          + " stack, which refuses it"));
      return new PacketPath(src, destination, sourceKind, entry.kind(), hops, Verdict.REJECT, none, List.of(),
          affinity);
    }
    String fallback = local && plan.localEndpoints().isEmpty()
        ? " (no endpoint on this node for the Local policy: upstream falls back to every endpoint, kubernetes#97081)"
        : "";
    hops.add(new Hop(virtualServer, "picks one of " + eps.size() + " real server(s), weight 1 each, by its scheduler"
        + (svc.sessionAffinityClientIP() ? " (persistent " + svc.stickyMaxAgeSeconds() + " s)" : "") + fallback
        + "; forwards by NAT (Masq)"));
    List<Choice> choices = new ArrayList<>();
    boolean hairpins = false;
    for (Endpoint ep : eps) {
      boolean hairpin = ep.ip().equals(src) && ep.local();
      hairpins |= hairpin;
      choices.add(new Choice(ep.endpoint(), 1.0 / eps.size(), masq || hairpin,
          hairpin && !masq ? "hairpin: the pod reaches itself, masqueraded through " + set(IpSets.LOOP_BACK) : why));
    }
    if (masq || hairpins) {
      hops.add(new Hop("nat KUBE-POSTROUTING", (masq ? "masquerades the marked packet" : "")
          + (masq && hairpins ? "; " : "") + (hairpins ? "masquerades it when it goes back to its own source ("
          + set(IpSets.LOOP_BACK) + ")" : "")));
    }
    return new PacketPath(src, destination, sourceKind, entry.kind(), hops, Verdict.DNAT, why, choices, affinity);
  }

  /** The set's name in the kernel for this family (KUBE-6-… for IPv6). */
  private String set(String baseName) {
    return new IpSet(baseName, null, "", settings.family()).name();
  }

  private static String hostPort(String ip, int port) {
    return IpAddresses.familyOf(ip) == dev.kubeproxy.net.IpFamily.IPv6 ? "[" + ip + "]:" + port : ip + ":" + port;
  }
}
