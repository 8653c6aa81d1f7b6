package dev.kubeproxy.backend.ipvs;

import dev.kubeproxy.net.Cidr;
import dev.kubeproxy.model.Endpoint;
import dev.kubeproxy.model.EndpointCategorizer;
import dev.kubeproxy.net.IpFamily;
import dev.kubeproxy.model.LocalTrafficDetector;
import dev.kubeproxy.model.ProxyState;
import dev.kubeproxy.model.ServicePort;
import dev.kubeproxy.model.ServicePortName;
import dev.kubeproxy.model.ServicePortPlan;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Computes the whole ipvs state of one family from the model, as pkg/proxy/ipvs/proxier.go
 * syncProxyRules decides it (its per-service loop, syncEndpoint's choice of endpoints, and
 * writeIptablesRules), with the per-port policy from {@link ServicePortPlan}. Pure: the proxier
 * compares the result with the kernel and applies the differences.
 */
public final class IpvsRulesetGenerator {
  static final String KUBE_SERVICES = "KUBE-SERVICES";
  static final String KUBE_POSTROUTING = "KUBE-POSTROUTING";
  static final String KUBE_MARK_MASQ = "KUBE-MARK-MASQ";
  static final String KUBE_NODE_PORT = "KUBE-NODE-PORT";
  static final String KUBE_LOAD_BALANCER = "KUBE-LOAD-BALANCER";
  static final String KUBE_FORWARD = "KUBE-FORWARD";
  static final String KUBE_PROXY_FIREWALL = "KUBE-PROXY-FIREWALL";
  static final String KUBE_SOURCE_RANGES_FIREWALL = "KUBE-SOURCE-RANGES-FIREWALL";
  static final String KUBE_IPVS_FILTER = "KUBE-IPVS-FILTER";
  static final String KUBE_IPVS_OUT_FILTER = "KUBE-IPVS-OUT-FILTER";

  /** upstream iptablesChains: the chains ipvs mode owns, per table, in creation order. */
  public static final List<String> NAT_CHAINS =
      List.of(KUBE_SERVICES, KUBE_POSTROUTING, KUBE_NODE_PORT, KUBE_LOAD_BALANCER, KUBE_MARK_MASQ);
  public static final List<String> FILTER_CHAINS = List.of(KUBE_FORWARD, KUBE_NODE_PORT, KUBE_PROXY_FIREWALL,
      KUBE_SOURCE_RANGES_FIREWALL, KUBE_IPVS_FILTER, KUBE_IPVS_OUT_FILTER);

  /** upstream iptablesJumpChain: the jumps from the built-in chains into ipvs mode's chains. */
  public record Jump(String table, String from, String to, String comment) {
    /** The rule's arguments after the chain: {@code -m comment --comment ... -j to}. */
    List<String> args() {
      return List.of("-m", "comment", "--comment", comment, "-j", to);
    }
  }

  public static final List<Jump> JUMPS = List.of(
      new Jump("nat", "OUTPUT", KUBE_SERVICES, "kubernetes service portals"),
      new Jump("nat", "PREROUTING", KUBE_SERVICES, "kubernetes service portals"),
      new Jump("nat", "POSTROUTING", KUBE_POSTROUTING, "kubernetes postrouting rules"),
      new Jump("filter", "FORWARD", KUBE_FORWARD, "kubernetes forwarding rules"),
      new Jump("filter", "INPUT", KUBE_NODE_PORT, "kubernetes health check rules"),
      new Jump("filter", "INPUT", KUBE_PROXY_FIREWALL, "kube-proxy firewall rules"),
      new Jump("filter", "FORWARD", KUBE_PROXY_FIREWALL, "kube-proxy firewall rules"),
      new Jump("filter", "INPUT", KUBE_IPVS_FILTER, "kubernetes ipvs access filter"),
      new Jump("filter", "OUTPUT", KUBE_IPVS_OUT_FILTER, "kubernetes ipvs access filter"));

  /** upstream ipsetWithIptablesChain: a set matched in a chain, jumping to a target. */
  private record SetJump(String set, boolean filterTable, String from, String to, String match, String protocol) {}

  private static final List<SetJump> SET_JUMPS = List.of(
      new SetJump(IpSets.LOOP_BACK, false, KUBE_POSTROUTING, "MASQUERADE", "dst,dst,src", ""),
      new SetJump(IpSets.LOAD_BALANCER, false, KUBE_SERVICES, KUBE_LOAD_BALANCER, "dst,dst", ""),
      new SetJump(IpSets.LOAD_BALANCER_LOCAL, false, KUBE_LOAD_BALANCER, "RETURN", "dst,dst", ""),
      new SetJump(IpSets.NODE_PORT_LOCAL_TCP, false, KUBE_NODE_PORT, "RETURN", "dst", "tcp"),
      new SetJump(IpSets.NODE_PORT_TCP, false, KUBE_NODE_PORT, KUBE_MARK_MASQ, "dst", "tcp"),
      new SetJump(IpSets.NODE_PORT_LOCAL_UDP, false, KUBE_NODE_PORT, "RETURN", "dst", "udp"),
      new SetJump(IpSets.NODE_PORT_UDP, false, KUBE_NODE_PORT, KUBE_MARK_MASQ, "dst", "udp"),
      new SetJump(IpSets.NODE_PORT_LOCAL_SCTP, false, KUBE_NODE_PORT, "RETURN", "dst,dst", "sctp"),
      new SetJump(IpSets.NODE_PORT_SCTP, false, KUBE_NODE_PORT, KUBE_MARK_MASQ, "dst,dst", "sctp"),
      new SetJump(IpSets.LOAD_BALANCER_FW, true, KUBE_PROXY_FIREWALL, KUBE_SOURCE_RANGES_FIREWALL, "dst,dst", ""),
      new SetJump(IpSets.LOAD_BALANCER_SOURCE_CIDR, true, KUBE_SOURCE_RANGES_FIREWALL, "RETURN", "dst,dst,src", ""),
      new SetJump(IpSets.LOAD_BALANCER_SOURCE_IP, true, KUBE_SOURCE_RANGES_FIREWALL, "RETURN", "dst,dst,src", ""));

  private final EndpointCategorizer.TopologyGates gates;

  public IpvsRulesetGenerator() {
    this(EndpointCategorizer.TopologyGates.DEFAULT);
  }

  public IpvsRulesetGenerator(EndpointCategorizer.TopologyGates gates) {
    this.gates = gates;
  }

  /** One sync's worth of state, being filled. */
  private static final class Build {
    final IpvsRulesetOptions options;
    final Map<String, IpSet> sets = new LinkedHashMap<>();
    final Map<String, Set<String>> entries = new LinkedHashMap<>();
    final Map<String, VirtualServer> virtualServers = new TreeMap<>();
    final Map<String, List<RealServer>> realServers = new TreeMap<>();
    final Map<String, ServicePortName> owners = new TreeMap<>();
    final Set<String> bind = new TreeSet<>();
    final Set<String> noLocalInternal = new TreeSet<>();
    final Set<String> noLocalExternal = new TreeSet<>();
    /** LB IP, protocol and port that the node itself may not reach (upstream lbNoNodeAccessIPPortProtocolEntries). */
    final List<String[]> lbNoNodeAccess = new ArrayList<>();

    Build(IpvsRulesetOptions options) {
      this.options = options;
      for (IpSet set : IpSets.all(options.family())) {
        sets.put(set.baseName(), set);
        entries.put(set.baseName(), new TreeSet<>());
      }
    }

    void entry(String baseName, String entry) {
      entries.get(baseName).add(entry);
    }

    boolean empty(String baseName) {
      return entries.get(baseName).isEmpty();
    }

    String name(String baseName) {
      return sets.get(baseName).name();
    }
  }

  public IpvsRuleset generate(IpvsRulesetOptions options, ProxyState state) {
    Build b = new Build(options);
    for (ServicePort svc : state.services().values()) {
      service(b, state, svc);
    }
    b.entries.get(IpSets.IPVS_IPS).addAll(b.bind);

    Map<String, Set<String>> ipsets = new LinkedHashMap<>();
    b.entries.forEach((base, entries) -> ipsets.put(b.name(base), Collections.unmodifiableSet(entries)));
    Map<String, List<RealServer>> rs = new TreeMap<>();
    b.realServers.forEach((k, v) -> rs.put(k, List.copyOf(v)));
    return new IpvsRuleset(Collections.unmodifiableMap(b.virtualServers), Collections.unmodifiableMap(rs),
        Collections.unmodifiableMap(b.owners), Collections.unmodifiableSet(b.bind), Collections.unmodifiableMap(ipsets),
        iptables(b), Collections.unmodifiableSet(b.noLocalInternal), Collections.unmodifiableSet(b.noLocalExternal));
  }

  private void service(Build b, ProxyState state, ServicePort svc) {
    IpvsRulesetOptions o = b.options;
    ServicePortPlan plan = ServicePortPlan.of(svc, state.endpointsOf(svc.name()), state.nodeLabels(), gates);
    String protocol = svc.protocol().toLowerCase(java.util.Locale.ROOT);

    // Traffic from a local endpoint to its own service loops back: SNAT it (KUBE-LOOP-BACK).
    for (Endpoint ep : state.endpointsOf(svc.name())) {
      if (ep.local()) {
        b.entry(IpSets.LOOP_BACK, ep.ip() + "," + protocol + ":" + ep.port() + "," + ep.ip());
      }
    }

    b.entry(IpSets.CLUSTER_IP, svc.clusterIP() + "," + protocol + ":" + svc.port());
    VirtualServer clusterVs = virtualServer(o, svc, svc.clusterIP(), svc.port());
    add(b, plan, clusterVs, svc.internalPolicyLocal());
    b.bind.add(svc.clusterIP());

    for (String externalIP : svc.externalIPs()) {
      String entry = externalIP + "," + protocol + ":" + svc.port();
      b.entry(svc.externalPolicyLocal() ? IpSets.EXTERNAL_IP_LOCAL : IpSets.EXTERNAL_IP, entry);
      add(b, plan, virtualServer(o, svc, externalIP, svc.port()), svc.externalPolicyLocal());
      if (!o.nodeAddresses().contains(externalIP)) { // an address of the node stays where it is
        b.bind.add(externalIP);
      }
    }

    for (String ingress : svc.loadBalancerVIPs()) {
      String entry = ingress + "," + protocol + ":" + svc.port();
      b.entry(IpSets.LOAD_BALANCER, entry);
      if (svc.externalPolicyLocal()) {
        b.entry(IpSets.LOAD_BALANCER_LOCAL, entry);
      }
      if (!svc.loadBalancerSourceRanges().isEmpty()) {
        b.entry(IpSets.LOAD_BALANCER_FW, entry);
        boolean allowFromNode = false;
        for (String cidr : svc.loadBalancerSourceRanges()) {
          b.entry(IpSets.LOAD_BALANCER_SOURCE_CIDR, entry + "," + cidr);
          allowFromNode |= o.nodeIP() != null && Cidr.parse(cidr).contains(o.nodeIP());
        }
        // The LB's own backends may reach the VIP through the node; allow that when the ranges allow the node.
        if (allowFromNode) {
          b.entry(IpSets.LOAD_BALANCER_SOURCE_IP, entry + "," + ingress);
        } else {
          b.lbNoNodeAccess.add(new String[] {ingress, protocol, Integer.toString(svc.port())});
        }
      }
      add(b, plan, virtualServer(o, svc, ingress, svc.port()), svc.externalPolicyLocal());
      if (!o.nodeAddresses().contains(ingress)) {
        b.bind.add(ingress);
      }
    }

    if (svc.nodePort() != 0 && !o.nodePortIPs().isEmpty()) {
      List<String> entries = new ArrayList<>();
      String set;
      String localSet;
      switch (protocol) {
        case "tcp" -> {
          set = IpSets.NODE_PORT_TCP;
          localSet = IpSets.NODE_PORT_LOCAL_TCP;
          entries.add(Integer.toString(svc.nodePort()));
        }
        case "udp" -> {
          set = IpSets.NODE_PORT_UDP;
          localSet = IpSets.NODE_PORT_LOCAL_UDP;
          entries.add(Integer.toString(svc.nodePort()));
        }
        default -> { // sctp: hash:ip,port, one entry per node IP
          set = IpSets.NODE_PORT_SCTP;
          localSet = IpSets.NODE_PORT_LOCAL_SCTP;
          for (String ip : o.nodePortIPs()) {
            entries.add(ip + "," + protocol + ":" + svc.nodePort());
          }
        }
      }
      entries.forEach(e -> b.entry(set, e));
      if (svc.externalPolicyLocal()) {
        entries.forEach(e -> b.entry(localSet, e));
      }
      for (String nodeIP : o.nodePortIPs()) {
        add(b, plan, virtualServer(o, svc, nodeIP, svc.nodePort()), svc.externalPolicyLocal());
      }
    }

    if (svc.healthCheckNodePort() != 0) {
      b.entry(IpSets.HEALTH_CHECK_NODE_PORT, Integer.toString(svc.healthCheckNodePort()));
    }
  }

  /** upstream: every virtual server of the port has the same scheduler, affinity and mh flag. */
  private static VirtualServer virtualServer(IpvsRulesetOptions o, ServicePort svc, String address, int port) {
    int flags = 0;
    int timeout = 0;
    if (svc.sessionAffinityClientIP()) {
      flags |= VirtualServer.FLAG_PERSISTENT;
      timeout = svc.stickyMaxAgeSeconds();
    }
    if (o.scheduler().equals("mh")) {
      flags |= VirtualServer.FLAG_SOURCE_HASH;
    }
    return new VirtualServer(address, svc.protocol(), port, o.scheduler(), flags, timeout);
  }

  /**
   * upstream syncEndpoint's choice: local endpoints for a node-local policy when there are some,
   * otherwise the cluster endpoints (pods on this node can still reach the service;
   * external traffic would get answers from the pod's address and be dropped).
   */
  private static void add(Build b, ServicePortPlan plan, VirtualServer vs, boolean onlyNodeLocal) {
    List<Endpoint> endpoints = plan.realServers(onlyNodeLocal);
    if (onlyNodeLocal && plan.localEndpoints().isEmpty()) {
      if (plan.hasEndpoints()) {
        if (plan.service().internalPolicyLocal()) {
          b.noLocalInternal.add(plan.service().name().service().toString());
        }
        if (plan.service().externalPolicyLocal()) {
          b.noLocalExternal.add(plan.service().name().service().toString());
        }
      }
    }
    Map<String, RealServer> byKey = new TreeMap<>();
    for (Endpoint ep : endpoints) {
      RealServer rs = RealServer.of(ep.ip(), ep.port(), 1);
      byKey.put(rs.key(), rs);
    }
    b.virtualServers.put(vs.key(), vs);
    b.realServers.put(vs.key(), new ArrayList<>(byKey.values()));
    b.owners.put(vs.key(), plan.service().name());
  }

  /** upstream createAndLinkKubeChain's chain lines and writeIptablesRules. */
  private static String iptables(Build b) {
    IpvsRulesetOptions o = b.options;
    List<String> nat = new ArrayList<>();
    List<String> filter = new ArrayList<>();
    String mark = o.masqueradeMark();

    nat.add("-A KUBE-SERVICES -s " + (o.family() == IpFamily.IPv6 ? "::1/128" : "127.0.0.0/8") + " -j RETURN");
    for (SetJump j : SET_JUMPS) {
      if (b.empty(j.set())) {
        continue;
      }
      String rule = "-A " + j.from() + (j.protocol().isEmpty() ? "" : " -p " + j.protocol())
          + " -m comment --comment " + b.sets.get(j.set()).quotedComment()
          + " -m set --match-set " + b.name(j.set()) + " " + j.match() + " -j " + j.to();
      (j.filterTable() ? filter : nat).add(rule);
    }

    if (!b.empty(IpSets.CLUSTER_IP)) {
      String match = "-A KUBE-SERVICES -m comment --comment " + b.sets.get(IpSets.CLUSTER_IP).quotedComment()
          + " -m set --match-set " + b.name(IpSets.CLUSTER_IP);
      if (o.masqueradeAll()) {
        nat.add(match + " dst,dst -j KUBE-MARK-MASQ");
      } else if (o.localDetector().implemented()) {
        // Off-cluster traffic to a service IP (a route to the service range through this node) is masqueraded.
        nat.add(match + " dst,dst " + ifNotLocal(o.localDetector()) + " -j KUBE-MARK-MASQ");
      } else {
        // The node picks a service IP of kube-ipvs0 as source towards a service IP: masquerade that.
        nat.add(match + " src,dst -j KUBE-MARK-MASQ");
      }
    }
    if (!b.empty(IpSets.EXTERNAL_IP)) {
      String match = "-A KUBE-SERVICES -m comment --comment " + b.sets.get(IpSets.EXTERNAL_IP).quotedComment()
          + " -m set --match-set " + b.name(IpSets.EXTERNAL_IP) + " dst,dst";
      nat.add(match + " -j KUBE-MARK-MASQ");
      externalIPRules(nat, match);
    }
    if (!b.empty(IpSets.EXTERNAL_IP_LOCAL)) {
      externalIPRules(nat, "-A KUBE-SERVICES -m comment --comment "
          + b.sets.get(IpSets.EXTERNAL_IP_LOCAL).quotedComment() + " -m set --match-set "
          + b.name(IpSets.EXTERNAL_IP_LOCAL) + " dst,dst");
    }
    nat.add("-A KUBE-SERVICES -m addrtype --dst-type LOCAL -j KUBE-NODE-PORT");
    nat.add("-A KUBE-LOAD-BALANCER -j KUBE-MARK-MASQ");
    filter.add("-A KUBE-SOURCE-RANGES-FIREWALL -j DROP");
    // For IPVS, a node's own connection to an LB IP has that IP as source and destination.
    for (String[] e : b.lbNoNodeAccess) {
      filter.add("-A KUBE-IPVS-OUT-FILTER -s " + e[0] + " -m ipvs --vaddr " + e[0] + " --vproto " + e[1]
          + " --vport " + e[2] + " -j DROP");
    }
    // Accept whatever goes to a virtual server, whatever other rules say (upstream acceptIPVSTraffic).
    for (String set : List.of(IpSets.CLUSTER_IP, IpSets.LOAD_BALANCER)) {
      if (!b.empty(set)) {
        nat.add("-A KUBE-SERVICES -m set --match-set " + b.name(set) + " "
            + b.sets.get(set).type().destinationMatch() + " -j ACCEPT");
      }
    }
    filter.add("-A KUBE-FORWARD -m comment --comment \"kubernetes forwarding rules\" -m mark --mark "
        + mark + "/" + mark + " -j ACCEPT");
    filter.add("-A KUBE-FORWARD -m comment --comment \"kubernetes forwarding conntrack rule\" -m conntrack"
        + " --ctstate RELATED,ESTABLISHED -j ACCEPT");
    filter.add("-A KUBE-NODE-PORT -m comment --comment " + b.sets.get(IpSets.HEALTH_CHECK_NODE_PORT).quotedComment()
        + " -m set --match-set " + b.name(IpSets.HEALTH_CHECK_NODE_PORT) + " dst -j ACCEPT");
    // Service IPs on kube-ipvs0 answer only for their service ports (pkg/proxy/ipvs/proxier.go
    // writeIptablesRules, the KUBE-IPVS-FILTER chain).
    for (String set : List.of(IpSets.LOAD_BALANCER, IpSets.CLUSTER_IP, IpSets.EXTERNAL_IP, IpSets.EXTERNAL_IP_LOCAL)) {
      filter.add("-A KUBE-IPVS-FILTER -m set --match-set " + b.name(set) + " dst,dst -j RETURN");
    }
    filter.add("-A KUBE-IPVS-FILTER -m set --match-set " + b.name(IpSets.HEALTH_CHECK_NODE_PORT) + " dst -j RETURN");
    filter.add("-A KUBE-IPVS-FILTER -m conntrack --ctstate NEW -m set --match-set " + b.name(IpSets.IPVS_IPS)
        + " dst -j REJECT");
    nat.add("-A KUBE-POSTROUTING -m mark ! --mark " + mark + "/" + mark + " -j RETURN");
    nat.add("-A KUBE-POSTROUTING -j MARK --xor-mark " + mark);
    nat.add("-A KUBE-POSTROUTING -m comment --comment \"kubernetes service traffic requiring SNAT\" -j MASQUERADE"
        + (o.randomFully() ? " --random-fully" : ""));
    nat.add("-A KUBE-MARK-MASQ -j MARK --or-mark " + mark);

    StringBuilder out = new StringBuilder("*nat\n");
    NAT_CHAINS.forEach(c -> out.append(':').append(c).append(" - [0:0]\n"));
    nat.forEach(l -> out.append(l).append('\n'));
    out.append("COMMIT\n*filter\n");
    FILTER_CHAINS.forEach(c -> out.append(':').append(c).append(" - [0:0]\n"));
    filter.forEach(l -> out.append(l).append('\n'));
    out.append("COMMIT\n");
    return out.toString();
  }

  /**
   * External IPs: accept traffic from off the machine (not from a bridge port, not from a local
   * address), and traffic to an external IP that is a local address of the node.
   */
  private static void externalIPRules(List<String> nat, String match) {
    nat.add(match + " -m physdev ! --physdev-is-in -m addrtype ! --src-type LOCAL -j ACCEPT");
    nat.add(match + " -m addrtype --dst-type LOCAL -j ACCEPT");
  }

  private static String ifNotLocal(LocalTrafficDetector d) {
    if (d.byCidr()) {
      return "! -s " + d.value();
    }
    return "! -i " + d.value() + (d.byInterfacePrefix() ? "+" : "");
  }
}
