package dev.kubeproxy.explain;

import dev.kubeproxy.backend.nftables.SingleEndpointServices;
import dev.kubeproxy.config.ProxyMode;

import dev.kubeproxy.explain.PacketPath.Choice;
import dev.kubeproxy.explain.PacketPath.Hop;
import dev.kubeproxy.explain.PacketPath.Verdict;
import dev.kubeproxy.net.Cidr;
import dev.kubeproxy.net.IpAddresses;
import dev.kubeproxy.model.Endpoint;
import dev.kubeproxy.net.IpFamily;
import dev.kubeproxy.model.LocalTrafficDetector;
import dev.kubeproxy.model.ProxierSettings;
import dev.kubeproxy.model.ServicePort;
import dev.kubeproxy.model.ServicePortPlan;
import java.util.ArrayList;
import java.util.List;

/**
 * The path of one packet through one service port's rules, decided from the model and the
 * {@link ServicePortPlan} the backends render (never by reading rules back). The decisions are
 * those of upstream's syncProxyRules, the same in both modes (pkg/proxy/iptables/proxier.go,
 * pkg/proxy/nftables/proxier.go): which address is hit, the source-range firewall, no endpoints
 * (reject) or no local endpoints (drop), the traffic policies, masquerading from local-traffic
 * detection and masqueradeAll, hairpin, affinity. Only the chain names and one ordering differ:
 * nftables checks loadBalancerSourceRanges before it looks at endpoints, iptables only when there
 * are endpoints.
 */
public final class PathTracer {
  private final ProxyMode mode;
  private final ProxierSettings settings;
  private final RuleNames names;

  /** @param mode the proxy mode whose rules are traced (ipvs: {@link IpvsPathTracer}) */
  public PathTracer(ProxyMode mode, ProxierSettings settings) {
    this.mode = mode;
    this.settings = settings;
    this.names = RuleNames.of(mode);
  }

  public PacketPath trace(ServicePortPlan plan, String source, String destinationIp, int destinationPort) {
    ServicePort svc = plan.service();
    String src = IpAddresses.normalize(source);
    String dst = IpAddresses.normalize(destinationIp);
    String destination = (dst != null && dst.indexOf(':') >= 0 ? "[" + dst + "]" : dst) + ":" + destinationPort;
    List<Hop> hops = new ArrayList<>();
    if (src == null || dst == null) {
      throw new IllegalArgumentException("not an IP address: " + (src == null ? source : destinationIp));
    }
    if (IpFamily.ofText(src) != IpFamily.ofText(dst)) {
      return new PacketPath(src, destination, "-", null, hops, Verdict.NOT_PROXIED,
          "source and destination are of different IP families", List.of(), null);
    }
    String sourceKind = sourceKind(src, dst);
    boolean fromPod = isPod(src);
    boolean fromNode = isNode(src, dst);
    Entry entry = entry(svc, dst, destinationPort);
    if (entry.kind == null) {
      return new PacketPath(src, destination, sourceKind, null, hops, Verdict.NOT_PROXIED, entry.why, List.of(), null);
    }
    String spn = svc.name().toString();
    String affinity = svc.sessionAffinityClientIP()
        ? "ClientIP affinity: a source that opened a connection within the last " + svc.stickyMaxAgeSeconds()
            + " s goes back to that endpoint; a new one picks as listed" : null;
    if (mode == ProxyMode.IPVS) {
      return new IpvsPathTracer(this, settings).trace(plan, src, dst, destination, destinationPort, sourceKind, entry,
          affinity);
    }

    // The source-range firewall of LoadBalancer IPs (nftables: before anything else, in a filter
    // chain ahead of DNAT; iptables: only with endpoints, as the LB IP's jump from KUBE-SERVICES).
    boolean nft = mode == ProxyMode.NFTABLES;
    boolean firewall = entry.kind.equals(LOAD_BALANCER) && plan.hasSourceRangeFirewall()
        && (nft || plan.hasEndpoints());
    if (firewall && !nft) {
      hops.add(new Hop(names.entry(entry.kind), "matches " + entry.why + " -> " + names.firewall(svc)));
    }
    if (firewall) {
      String allowedBy = allowedBySourceRanges(svc, src);
      if (allowedBy == null) {
        hops.add(new Hop(names.firewall(svc), "source " + src + " is not in loadBalancerSourceRanges "
            + svc.loadBalancerSourceRanges()));
        hops.add(new Hop(names.firewallDrop(svc), "drops it"));
        return new PacketPath(src, destination, sourceKind, entry.kind, hops, Verdict.DROP,
            "source outside loadBalancerSourceRanges", List.of(), affinity);
      }
      hops.add(new Hop(names.firewall(svc), "allowed: " + allowedBy + (nft ? "" : " -> " + names.external(svc))));
    }

    boolean clusterIp = entry.kind.equals(CLUSTER_IP);
    if (!plan.hasEndpoints()) {
      hops.add(new Hop(names.noEndpoints(clusterIp), "rejects it: " + spn + " has no endpoints"));
      return new PacketPath(src, destination, sourceKind, entry.kind, hops, Verdict.REJECT,
          spn + " has no endpoints", List.of(), affinity);
    }
    if (clusterIp) {
      if (!plan.hasInternalEndpoints()) {
        hops.add(new Hop(names.noEndpoints(true), "drops it: internalTrafficPolicy Local and " + spn
            + " has no endpoint on this node"));
        return new PacketPath(src, destination, sourceKind, entry.kind, hops, Verdict.DROP,
            "internalTrafficPolicy Local without local endpoints", List.of(), affinity);
      }
      boolean local = svc.internalPolicyLocal();
      boolean masq;
      String why;
      LocalTrafficDetector detector = settings.localDetector();
      if (settings.masqueradeAll()) {
        masq = true;
        why = "masqueradeAll";
      } else if (!detector.implemented()) {
        masq = false;
        why = "no local-traffic detection (detectLocalMode without its value, e.g. no --cluster-cidr): cluster IP"
            + " traffic is not masqueraded";
      } else if (fromPod) {
        masq = false;
        why = "pod traffic (" + detectorText(detector) + ") keeps its source";
      } else {
        masq = true;
        why = "not pod traffic (" + detectorText(detector) + "): masqueraded";
      }
      List<Endpoint> eps = local ? plan.localEndpoints() : plan.clusterEndpoints();
      if (nft && SingleEndpointServices.appliesTo(plan)) {
        hops.add(new Hop(RuleNames.Nftables.SINGLE_ENDPOINT, "matches " + entry.why + ", a service with one endpoint"
            + " and no chain of its own" + (masq ? "; marks it for masquerade" : "")));
        return dnat(src, destination, sourceKind, entry.kind, hops, eps, masq, why, affinity,
            RuleNames.Nftables.SINGLE_ENDPOINT);
      }
      hops.add(new Hop(names.entry(entry.kind), "matches " + entry.why + " -> " + names.policy(svc, local)));
      hops.add(new Hop(names.policy(svc, local), (masq ? "marks it for masquerade, " : "")
          + "picks one of " + eps.size() + (local ? " local" : "") + " endpoint(s)"));
      return dnat(src, destination, sourceKind, entry.kind, hops, eps, masq, why, affinity);
    }

    // NodePort, external IP, LoadBalancer IP: the external chain.
    if (!firewall || nft) {
      hops.add(new Hop(names.entry(entry.kind), "matches " + entry.why + " -> " + names.external(svc)));
    }
    if (!svc.externalPolicyLocal()) {
      hops.add(new Hop(names.external(svc), "marks it for masquerade (externalTrafficPolicy Cluster) -> "
          + names.policy(svc, false)));
      return dnat(src, destination, sourceKind, entry.kind, hops, plan.clusterEndpoints(), true,
          "externalTrafficPolicy Cluster: external traffic is masqueraded", affinity);
    }
    boolean hasClusterChain = plan.usesClusterPolicyChain();
    if (fromPod && settings.localDetector().implemented() && hasClusterChain) {
      hops.add(new Hop(names.external(svc), "pod traffic (" + detectorText(settings.localDetector())
          + ") short-circuits to the cluster-wide policy -> " + names.policy(svc, false)));
      return dnat(src, destination, sourceKind, entry.kind, hops, plan.clusterEndpoints(), false,
          "pod traffic keeps its source", affinity);
    }
    if (fromNode && hasClusterChain) {
      hops.add(new Hop(names.external(svc), "traffic from this node is masqueraded and short-circuits to the"
          + " cluster-wide policy -> " + names.policy(svc, false)));
      return dnat(src, destination, sourceKind, entry.kind, hops, plan.clusterEndpoints(), true,
          "sent from a local address of this node: masqueraded", affinity);
    }
    if (!plan.hasExternalEndpoints()) {
      hops.add(new Hop(names.external(svc), "has no rule for it (externalTrafficPolicy Local, no local endpoint)"));
      hops.add(new Hop(names.noEndpoints(false), "drops it: " + spn + " has no local endpoints"));
      return new PacketPath(src, destination, sourceKind, entry.kind, hops, Verdict.DROP,
          "externalTrafficPolicy Local without local endpoints", List.of(), affinity);
    }
    hops.add(new Hop(names.external(svc), "externalTrafficPolicy Local -> " + names.policy(svc, true)));
    return dnat(src, destination, sourceKind, entry.kind, hops, plan.localEndpoints(), false,
        "externalTrafficPolicy Local keeps the client's source", affinity);
  }

  private PacketPath dnat(String src, String destination, String sourceKind, String entry, List<Hop> hops,
      List<Endpoint> eps, boolean masq, String why, String affinity) {
    return dnat(src, destination, sourceKind, entry, hops, eps, masq, why, affinity, names.dnat());
  }

  /** @param step the rule, chain or map that DNATs */
  private PacketPath dnat(String src, String destination, String sourceKind, String entry, List<Hop> hops,
      List<Endpoint> eps, boolean masq, String why, String affinity, String step) {
    List<Choice> choices = new ArrayList<>();
    for (Endpoint ep : eps) {
      boolean hairpin = ep.ip().equals(src);
      choices.add(new Choice(ep.endpoint(), 1.0 / eps.size(), masq || hairpin,
          hairpin && !masq ? "hairpin: the endpoint reaches itself, so it is masqueraded" : why));
    }
    hops.add(new Hop(step, "DNAT to the chosen endpoint" + (eps.size() > 1 ? ", each with probability 1/"
        + eps.size() : "")));
    return new PacketPath(src, destination, sourceKind, entry, hops, Verdict.DNAT, why, choices, affinity);
  }

  static final String CLUSTER_IP = "cluster IP";
  static final String NODE_PORT = "NodePort";
  static final String EXTERNAL_IP = "external IP";
  static final String LOAD_BALANCER = "LoadBalancer IP";

  record Entry(String kind, String why) {}

  private Entry entry(ServicePort svc, String dst, int port) {
    String proto = svc.protocol();
    if (port == svc.port()) {
      if (dst.equals(svc.clusterIP())) {
        return new Entry(CLUSTER_IP, "cluster IP " + dst + " " + proto + " port " + port);
      }
      if (svc.externalIPs().contains(dst)) {
        return new Entry(EXTERNAL_IP, "external IP " + dst + " " + proto + " port " + port);
      }
      if (svc.loadBalancerVIPs().contains(dst)) {
        return new Entry(LOAD_BALANCER, "LoadBalancer IP " + dst + " " + proto + " port " + port);
      }
    }
    if (svc.nodePort() != 0 && port == svc.nodePort()) {
      if (IpAddresses.isLoopback(dst)) {
        boolean accepted = mode == ProxyMode.IPTABLES && settings.family() == IpFamily.IPv4
            && settings.localhostNodePorts() && nodePortAddressesAllow("127.0.0.1");
        return accepted
            ? new Entry(NODE_PORT, "NodePort " + port + " on localhost (iptables.localhostNodePorts)")
            : new Entry(null, "NodePorts are not served on localhost here (" + (mode != ProxyMode.IPTABLES
                ? mode + " mode never does" : "iptables.localhostNodePorts is off, IPv6, or nodePortAddresses"
                + " leaves out 127.0.0.1") + ")");
      }
      if (settings.nodeIPs().contains(dst) || (!settings.nodePortAddresses().isEmpty() && nodePortAddressesAllow(dst))) {
        if (!nodePortAddressesAllow(dst)) {
          return new Entry(null, dst + " is outside nodePortAddresses " + settings.nodePortAddresses());
        }
        return new Entry(NODE_PORT, "NodePort " + proto + " " + port + " on node address " + dst);
      }
    }
    List<String> own = new ArrayList<>();
    own.add(svc.clusterIP() + ":" + svc.port());
    svc.externalIPs().forEach(ip -> own.add(ip + ":" + svc.port()));
    svc.loadBalancerVIPs().forEach(ip -> own.add(ip + ":" + svc.port()));
    if (svc.nodePort() != 0) {
      own.add("<node IP>:" + svc.nodePort());
    }
    return new Entry(null, "the destination is none of " + svc.name() + "'s addresses " + own);
  }

  private boolean nodePortAddressesAllow(String ip) {
    if (settings.nodePortAddresses().isEmpty()) {
      return true;
    }
    for (String cidr : settings.nodePortAddresses()) {
      if (Cidr.parse(cidr).contains(ip)) {
        return true;
      }
    }
    return false;
  }

  /** The range that lets this source in, or null (upstream also lets the LB IPs in when a range holds a node IP). */
  String allowedBySourceRanges(ServicePort svc, String src) {
    boolean allowFromNode = false;
    for (String range : svc.loadBalancerSourceRanges()) {
      if (Cidr.parse(range).contains(src)) {
        return "source in loadBalancerSourceRanges " + range;
      }
      for (String nodeIp : settings.nodeIPs()) {
        allowFromNode |= Cidr.parse(range).contains(nodeIp);
      }
    }
    if (allowFromNode && svc.loadBalancerVIPs().contains(src)) {
      return "source is the LoadBalancer IP itself and a source range holds a node IP";
    }
    return null;
  }

  boolean isPod(String src) {
    LocalTrafficDetector d = settings.localDetector();
    return d.byCidr() && Cidr.parse(d.value()).contains(src);
  }

  boolean isNode(String src, String dst) {
    return settings.nodeIPs().contains(src) || IpAddresses.isLoopback(src) || src.equals(dst);
  }

  private String sourceKind(String src, String dst) {
    if (isPod(src)) {
      return "pod (in " + settings.localDetector().value() + ")";
    }
    if (isNode(src, dst)) {
      return "this node";
    }
    LocalTrafficDetector d = settings.localDetector();
    if (d.implemented() && !d.byCidr()) {
      return "outside, as far as an address tells (detectLocalMode " + d.mode()
          + " looks at the input interface, which an address does not show)";
    }
    return "outside this node and its pods";
  }

  static String detectorText(LocalTrafficDetector d) {
    return switch (d.mode()) {
      case "ClusterCIDR", "NodeCIDR" -> "detectLocalMode " + d.mode() + " " + d.value();
      case "BridgeInterface" -> "detectLocalMode BridgeInterface " + d.value();
      case "InterfaceNamePrefix" -> "detectLocalMode InterfaceNamePrefix " + d.value();
      default -> "no local-traffic detection";
    };
  }
}
