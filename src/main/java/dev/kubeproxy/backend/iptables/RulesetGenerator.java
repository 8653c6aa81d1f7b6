package dev.kubeproxy.backend.iptables;

import dev.kubeproxy.net.Cidr;
import dev.kubeproxy.backend.iptables.ChainNameCache.EndpointChain;
import dev.kubeproxy.backend.iptables.ChainNameCache.EndpointChains;
import dev.kubeproxy.backend.iptables.ChainNameCache.ServiceChains;
import static dev.kubeproxy.backend.iptables.ChainNames.KUBE_EXTERNAL_SERVICES;
import static dev.kubeproxy.backend.iptables.ChainNames.KUBE_FIREWALL;
import static dev.kubeproxy.backend.iptables.ChainNames.KUBE_FORWARD;
import static dev.kubeproxy.backend.iptables.ChainNames.KUBE_MARK_MASQ;
import static dev.kubeproxy.backend.iptables.ChainNames.KUBE_NODEPORTS;
import static dev.kubeproxy.backend.iptables.ChainNames.KUBE_POSTROUTING;
import static dev.kubeproxy.backend.iptables.ChainNames.KUBE_PROXY_FIREWALL;
import static dev.kubeproxy.backend.iptables.ChainNames.KUBE_SERVICES;

import dev.kubeproxy.model.Endpoint;
import dev.kubeproxy.net.IpFamily;
import dev.kubeproxy.model.LocalTrafficDetector;
import dev.kubeproxy.model.ProxyState;
import dev.kubeproxy.model.ServicePort;
import dev.kubeproxy.model.ServicePortName;
import dev.kubeproxy.model.ServicePortPlan;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * Turns the service model into upstream's iptables-restore input (pkg/proxy/iptables/proxier.go syncProxyRules): top-level
 * chains, static rules, per-service-port rules and chains, stale-chain deletion and the final
 * NodePort rule. Keeps chain-name ({@link ChainNameCache}) and probability caches between syncs,
 * so it is not thread safe: one generator per proxier, called from one thread at a time.
 */
public final class RulesetGenerator {
  /** Above this many endpoints in total, SVC/SEP rules lose their comments (upstream's large-cluster mode). */
  static final int LARGE_CLUSTER_ENDPOINTS_THRESHOLD = 1000;

  private static final String NODEPORTS_COMMENT =
      "\"kubernetes service nodeports; NOTE: this must be the last rule in this chain\"";

  private final ChainNameCache chainNames = new ChainNameCache();
  private final List<String> probabilities = new ArrayList<>(List.of(""));

  /** Service ports in ServicePortName order, without building their strings again for each comparison. */
  private static final java.util.Comparator<ServiceChains> SERVICE_ORDER = (a, b) -> {
    int c = a.spn().compareTo(b.spn());
    return c != 0 ? c : a.name().protocol().compareTo(b.name().protocol());
  };

  /** Whether the state puts the proxier into large-cluster mode (all endpoints, ready or not). */
  public static boolean largeClusterMode(ProxyState state) {
    long total = 0;
    for (ServicePortName name : state.services().keySet()) {
      total += state.endpointsOf(name).size();
    }
    return total > LARGE_CLUSTER_ENDPOINTS_THRESHOLD;
  }

  /**
   * Builds the restore input.
   *
   * @param fullSync        write every service's chains; else only those of state.changedServices()
   * @param knownNatChains  nat chains that may exist in the kernel (from iptables-save and/or the last
   *                        applied ruleset); those of ours that are not active any more are deleted
   */
  public Ruleset generate(
      RulesetOptions options, ProxyState state, boolean fullSync, Collection<String> knownNatChains) {
    int serviceCount = state.services().size();
    int endpointCount = 0;
    for (ServicePortName name : state.services().keySet()) {
      endpointCount += state.endpointsOf(name).size();
    }
    boolean large = endpointCount > LARGE_CLUSTER_ENDPOINTS_THRESHOLD;
    LineBuffer filterChains = LineBuffer.create();
    LineBuffer filterRules = LineBuffer.create();
    LineBuffer natChains = LineBuffer.create();
    LineBuffer natRules = LineBuffer.create();
    LineBuffer skippedChains = LineBuffer.discarding();
    LineBuffer skippedRules = LineBuffer.discarding();
    Set<String> active = new HashSet<>((serviceCount * 2 + endpointCount) * 4 / 3 + 16);
    String mark = options.masqueradeMark();
    boolean ipv6 = options.family() == IpFamily.IPv6;

    for (String chain : new String[] {
        KUBE_SERVICES, KUBE_EXTERNAL_SERVICES, KUBE_FORWARD, KUBE_NODEPORTS, KUBE_PROXY_FIREWALL}) {
      filterChains.chainLine(chain);
    }
    for (String chain : new String[] {KUBE_SERVICES, KUBE_NODEPORTS, KUBE_POSTROUTING, KUBE_MARK_MASQ}) {
      natChains.chainLine(chain);
    }
    natRules.t("-A").t(KUBE_POSTROUTING).t("-m mark ! --mark").t(mark + "/" + mark).t("-j RETURN").end();
    natRules.t("-A").t(KUBE_POSTROUTING).t("-j MARK --xor-mark").t(mark).end();
    natRules.t("-A").t(KUBE_POSTROUTING)
        .comment("kubernetes service traffic requiring SNAT", "").t("-j MASQUERADE");
    if (options.randomFully()) {
      natRules.t("--random-fully");
    }
    natRules.end();
    natRules.t("-A").t(KUBE_MARK_MASQ).t("-j MARK --or-mark").t(mark).end();
    if (!ipv6 && options.localhostNodePorts()) {
      filterChains.chainLine(KUBE_FIREWALL);
      filterRules.t("-A").t(KUBE_FIREWALL).comment("block incoming localnet connections", "")
          .t("-d 127.0.0.0/8 ! -s 127.0.0.0/8 -m conntrack ! --ctstate RELATED,ESTABLISHED,DNAT -j DROP").end();
    }

    List<ServiceChains> order = new ArrayList<>(serviceCount);
    for (ServicePortName name : state.services().keySet()) {
      order.add(chainNames.of(name));
    }
    order.sort(SERVICE_ORDER);
    int noLocalInternal = 0;
    int noLocalExternal = 0;
    int n = order.size();
    ServicePortName[] owners = new ServicePortName[n];
    int[][] starts = {new int[n + 1], new int[n + 1], new int[n + 1]};
    int index = 0;
    for (ServiceChains chains : order) {
      ServicePortName name = chains.name();
      owners[index] = name;
      starts[0][index] = filterRules.lines();
      starts[1][index] = natChains.lines();
      starts[2][index] = natRules.lines();
      index++;
      boolean write = fullSync || state.changedServices().contains(name.service());
      int flags = writeService(options, state.plan(name), large, active,
          filterRules, natRules, write ? natChains : skippedChains, write ? natRules : skippedRules);
      noLocalInternal += flags & 1;
      noLocalExternal += (flags >> 1) & 1;
    }
    starts[0][n] = filterRules.lines();
    starts[1][n] = natChains.lines();
    starts[2][n] = natRules.lines();

    int deleted = 0;
    if (knownNatChains != null) {
      Set<String> stale = new TreeSet<>();
      for (String chain : knownNatChains) {
        if (!active.contains(chain) && (ChainNames.isServiceChain(chain) || ChainNames.isObsoleteChain(chain))) {
          stale.add(chain);
        }
      }
      for (String chain : stale) {
        natChains.chainLine(chain);
        natRules.t("-X").t(chain).end();
        deleted++;
      }
    }

    if (options.nodePortMatchAll()) {
      natRules.t("-A").t(KUBE_SERVICES).t("-m comment --comment").t(NODEPORTS_COMMENT)
          .t("-m addrtype --dst-type LOCAL");
      if (ipv6) {
        natRules.t("! -d ::1/128");
      } else if (!options.localhostNodePorts()) {
        natRules.t("! -d 127.0.0.0/8");
      }
      natRules.t("-j").t(KUBE_NODEPORTS).end();
    } else {
      for (String ip : options.nodePortIPs()) {
        natRules.t("-A").t(KUBE_SERVICES).t("-m comment --comment").t(NODEPORTS_COMMENT)
            .t("-d").t(ip).t("-j").t(KUBE_NODEPORTS).end();
      }
    }

    if (!options.conntrackTcpLiberal()) {
      filterRules.t("-A").t(KUBE_FORWARD).t("-m conntrack --ctstate INVALID");
      if (options.nfacctCounters().contains(NfacctCounters.CT_STATE_INVALID_DROPPED)) {
        filterRules.t("-m nfacct --nfacct-name").t(NfacctCounters.CT_STATE_INVALID_DROPPED);
      }
      filterRules.t("-j DROP").end();
    }
    filterRules.t("-A").t(KUBE_FORWARD).comment("kubernetes forwarding rules", "")
        .t("-m mark --mark").t(mark + "/" + mark).t("-j ACCEPT").end();
    filterRules.t("-A").t(KUBE_FORWARD).comment("kubernetes forwarding conntrack rule", "")
        .t("-m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT").end();

    // The parts are moved into the payload a chunk at a time: the whole input is never held twice.
    RestoreText head = new RestoreText().append("*filter\n");
    filterChains.moveTo(head);
    filterRules.moveTo(head);
    head.append("COMMIT\n*nat\n");
    natChains.moveTo(head);
    RestoreText payload = natRules.between(head, "COMMIT\n");

    if (fullSync) {
      chainNames.retain(state.services().keySet());
    }
    // Line 1 is "*filter"; each table's rules follow its chain lines; "COMMIT" and "*nat" sit between.
    int filterFirst = 2 + filterChains.lines();
    int natChainsFirst = filterFirst + filterRules.lines() + 2;
    int natRulesFirst = natChainsFirst + natChains.lines();
    LineOwners lineOwners = new LineOwners(owners, starts, new int[] {filterFirst, natChainsFirst, natRulesFirst});
    return new Ruleset(payload, filterRules.lines(), natRules.lines(), skippedRules.lines(), deleted,
        active, noLocalInternal, noLocalExternal, large, lineOwners);
  }

  /** Writes one service port; returns bit 0 = no local endpoints internal, bit 1 = external. */
  private int writeService(
      RulesetOptions options, ServicePortPlan plan, boolean large, Set<String> active, LineBuffer filterRules, LineBuffer natServiceRules,
      LineBuffer natChains, LineBuffer natRules) {
    ServicePort svc = plan.service();
    ServiceChains chains = chainNames.of(svc.name());
    String spn = chains.spn();
    String proto = chains.protocol();
    List<Endpoint> clusterEndpoints = plan.clusterEndpoints();
    List<Endpoint> localEndpoints = plan.localEndpoints();
    boolean hasEndpoints = plan.hasEndpoints();
    boolean hasInternalEndpoints = plan.hasInternalEndpoints();
    boolean hasExternalEndpoints = plan.hasExternalEndpoints();
    boolean usesExternalChain = plan.usesExternalChain();
    String internalChain = svc.internalPolicyLocal() ? chains.svl() : chains.svc();
    String externalPolicyChain = svc.externalPolicyLocal() ? chains.svl() : chains.svc();
    // pkg/proxy/iptables/proxier.go syncProxyRules: usesFWChain also needs endpoints (the chain jumps to EXT)
    boolean usesFwChain = hasEndpoints && plan.hasSourceRangeFirewall();
    String lbTarget = usesFwChain ? chains.fw() : chains.ext();

    String internalFilterTarget = null;
    String internalFilterComment = null;
    String externalFilterTarget = null;
    String externalFilterComment = null;
    int flags = 0;
    if (!hasEndpoints) {
      internalFilterTarget = "REJECT";
      externalFilterTarget = "REJECT";
      internalFilterComment = " has no endpoints";
      externalFilterComment = internalFilterComment;
    } else {
      if (!hasInternalEndpoints) {
        internalFilterTarget = "DROP";
        internalFilterComment = " has no local endpoints";
        flags |= 1;
      }
      if (!hasExternalEndpoints) {
        externalFilterTarget = "DROP";
        externalFilterComment = " has no local endpoints";
        flags |= 2;
      }
    }

    String port = Integer.toString(svc.port());
    // Cluster IP.
    if (hasInternalEndpoints) {
      natServiceRules.t("-A").t(KUBE_SERVICES).comment(spn, " cluster IP").t("-m").t(proto).t("-p").t(proto)
          .t("-d").t(svc.clusterIP()).t("--dport").t(port).t("-j").t(internalChain).end();
    } else {
      filterRules.t("-A").t(KUBE_SERVICES).comment(spn, internalFilterComment).t("-m").t(proto).t("-p").t(proto)
          .t("-d").t(svc.clusterIP()).t("--dport").t(port).t("-j").t(internalFilterTarget).end();
    }
    // External IPs.
    for (String externalIP : svc.externalIPs()) {
      if (hasEndpoints) {
        natServiceRules.t("-A").t(KUBE_SERVICES).comment(spn, " external IP").t("-m").t(proto).t("-p").t(proto)
            .t("-d").t(externalIP).t("--dport").t(port).t("-j").t(chains.ext()).end();
      }
      if (!hasExternalEndpoints) {
        filterRules.t("-A").t(KUBE_EXTERNAL_SERVICES).comment(spn, externalFilterComment)
            .t("-m").t(proto).t("-p").t(proto).t("-d").t(externalIP).t("--dport").t(port)
            .t("-j").t(externalFilterTarget).end();
      }
    }
    // Load balancer IPs.
    for (String lbIP : svc.loadBalancerVIPs()) {
      if (hasEndpoints) {
        natServiceRules.t("-A").t(KUBE_SERVICES).comment(spn, " loadbalancer IP").t("-m").t(proto).t("-p").t(proto)
            .t("-d").t(lbIP).t("--dport").t(port).t("-j").t(lbTarget).end();
      }
      if (usesFwChain) {
        filterRules.t("-A").t(KUBE_PROXY_FIREWALL).comment(spn, " traffic not accepted by " + chains.fw())
            .t("-m").t(proto).t("-p").t(proto).t("-d").t(lbIP).t("--dport").t(port).t("-j DROP").end();
      }
    }
    if (!hasExternalEndpoints) {
      for (String lbIP : svc.loadBalancerVIPs()) {
        filterRules.t("-A").t(KUBE_EXTERNAL_SERVICES).comment(spn, externalFilterComment)
            .t("-m").t(proto).t("-p").t(proto).t("-d").t(lbIP).t("--dport").t(port)
            .t("-j").t(externalFilterTarget).end();
      }
    }
    // NodePort.
    if (svc.nodePort() != 0) {
      if (hasEndpoints) {
        if (options.localhostNodePorts() && options.family() == IpFamily.IPv4
            && options.nfacctCounters().contains(NfacctCounters.LOCALHOST_NODEPORT_ACCEPTED)) {
          // Counts localhost NodePort traffic (upstream 1.31 syncProxyRules): same jump, loopback only.
          natServiceRules.t("-A").t(KUBE_NODEPORTS).comment(spn, "").t("-m").t(proto).t("-p").t(proto)
              .t("-d 127.0.0.0/8 --dport").t(svc.nodePort())
              .t("-m nfacct --nfacct-name").t(NfacctCounters.LOCALHOST_NODEPORT_ACCEPTED)
              .t("-j").t(chains.ext()).end();
        }
        natServiceRules.t("-A").t(KUBE_NODEPORTS).comment(spn, "").t("-m").t(proto).t("-p").t(proto)
            .t("--dport").t(svc.nodePort()).t("-j").t(chains.ext()).end();
      }
      if (!hasExternalEndpoints) {
        filterRules.t("-A").t(KUBE_EXTERNAL_SERVICES).comment(spn, externalFilterComment)
            .t("-m addrtype --dst-type LOCAL").t("-m").t(proto).t("-p").t(proto)
            .t("--dport").t(svc.nodePort()).t("-j").t(externalFilterTarget).end();
      }
    }
    // Health check node port: accepted whatever the endpoints.
    if (svc.healthCheckNodePort() != 0) {
      filterRules.t("-A").t(KUBE_NODEPORTS).comment(spn, " health check node port")
          .t("-m tcp -p tcp --dport").t(svc.healthCheckNodePort()).t("-j ACCEPT").end();
    }

    // From here on: the service's own chains (into discarding buffers when unchanged in a partial sync).
    LocalTrafficDetector detector = options.localDetector();
    if (hasInternalEndpoints) {
      if (options.masqueradeAll()) {
        natRules.t("-A").t(internalChain).comment(spn, " cluster IP").t("-m").t(proto).t("-p").t(proto)
            .t("-d").t(svc.clusterIP()).t("--dport").t(port).t("-j").t(KUBE_MARK_MASQ).end();
      } else if (detector != null && detector.implemented()) {
        natRules.t("-A").t(internalChain).comment(spn, " cluster IP").t("-m").t(proto).t("-p").t(proto)
            .t("-d").t(svc.clusterIP()).t("--dport").t(port);
        ifNotLocal(natRules, detector).t("-j").t(KUBE_MARK_MASQ).end();
      }
    }

    if (usesExternalChain) {
      natChains.chainLine(chains.ext());
      active.add(chains.ext());
      if (!svc.externalPolicyLocal()) {
        natRules.t("-A").t(chains.ext()).comment("masquerade traffic for ", spn + " external destinations")
            .t("-j").t(KUBE_MARK_MASQ).end();
      } else {
        if (detector != null && detector.implemented()) {
          natRules.t("-A").t(chains.ext()).comment("pod traffic for ", spn + " external destinations");
          ifLocal(natRules, detector).t("-j").t(chains.svc()).end();
        }
        natRules.t("-A").t(chains.ext()).comment("masquerade LOCAL traffic for ", spn + " external destinations")
            .t("-m addrtype --src-type LOCAL -j").t(KUBE_MARK_MASQ).end();
        natRules.t("-A").t(chains.ext()).comment("route LOCAL traffic for ", spn + " external destinations")
            .t("-m addrtype --src-type LOCAL -j").t(chains.svc()).end();
      }
      if (hasExternalEndpoints) {
        natRules.t("-A").t(chains.ext()).t("-j").t(externalPolicyChain).end();
      }
    }

    if (usesFwChain) {
      natChains.chainLine(chains.fw());
      active.add(chains.fw());
      boolean allowFromNode = false;
      for (String range : svc.loadBalancerSourceRanges()) {
        natRules.t("-A").t(chains.fw()).comment(spn, " loadbalancer IP").t("-s").t(range)
            .t("-j").t(chains.ext()).end();
        allowFromNode |= containsAny(range, options.nodeIPs());
      }
      if (allowFromNode) {
        for (String lbIP : svc.loadBalancerVIPs()) {
          natRules.t("-A").t(chains.fw()).comment(spn, " loadbalancer IP").t("-s").t(lbIP)
              .t("-j").t(chains.ext()).end();
        }
      }
      natRules.t("-A").t(chains.fw())
          .comment("other traffic to ", spn + " will be dropped by KUBE-PROXY-FIREWALL").end();
    }

    EndpointChains sepNames = chainNames.endpoints(chains);
    if (plan.usesClusterPolicyChain()) {
      natChains.chainLine(chains.svc());
      active.add(chains.svc());
      writeDispatch(natRules, svc, chains, chains.svc(), clusterEndpoints, large, sepNames);
    }
    if (plan.usesLocalPolicyChain()) {
      natChains.chainLine(chains.svl());
      active.add(chains.svl());
      writeDispatch(natRules, svc, chains, chains.svl(), localEndpoints, large, sepNames);
    }
    List<Endpoint> reachable = plan.endpoints().allReachable();
    for (Endpoint ep : reachable) {
      EndpointChain sep = sepNames.of(ep);
      String chain = sep.chain();
      natChains.chainLine(chain);
      active.add(chain);
      natRules.t("-A").t(chain);
      if (!large) {
        natRules.comment(spn, "");
      }
      natRules.t("-s").t(ep.ip()).t("-j").t(KUBE_MARK_MASQ).end();
      natRules.t("-A").t(chain);
      if (!large) {
        natRules.comment(spn, "");
      }
      if (svc.sessionAffinityClientIP()) {
        natRules.t("-m recent --name").t(chain).t("--set");
      }
      natRules.t("-m").t(proto).t("-p").t(proto).t("-j DNAT --to-destination").t(sep.identity()).end();
    }
    chainNames.keep(sepNames, reachable);
    return flags;
  }

  private void writeDispatch(
      LineBuffer natRules, ServicePort svc, ServiceChains chains, String chain, List<Endpoint> endpoints,
      boolean large, EndpointChains sepNames) {
    String spn = chains.spn();
    if (svc.sessionAffinityClientIP()) {
      for (Endpoint ep : endpoints) {
        EndpointChain sep = sepNames.of(ep);
        natRules.t("-A").t(chain);
        if (!large) {
          natRules.comment(spn, " -> ", sep.identity());
        }
        natRules.t("-m recent --name").t(sep.chain()).t("--rcheck --seconds").t(svc.stickyMaxAgeSeconds())
            .t("--reap -j").t(sep.chain()).end();
      }
    }
    int n = endpoints.size();
    for (int i = 0; i < n; i++) {
      EndpointChain sep = sepNames.of(endpoints.get(i));
      natRules.t("-A").t(chain);
      if (!large) {
        natRules.comment(spn, " -> ", sep.identity());
      }
      if (i < n - 1) {
        natRules.t("-m statistic --mode random --probability").t(probability(n - i));
      }
      natRules.t("-j").t(sep.chain()).end();
    }
  }

  /** 1/k printed like Go's %0.10f (binary value rounded half-even). */
  String probability(int k) {
    while (probabilities.size() <= k) {
      int next = probabilities.size();
      probabilities.add(new BigDecimal(1.0 / next).setScale(10, RoundingMode.HALF_EVEN).toPlainString());
    }
    return probabilities.get(k);
  }

  private static LineBuffer ifLocal(LineBuffer out, LocalTrafficDetector detector) {
    if (detector.byCidr()) {
      return out.t("-s").t(detector.value());
    }
    if (detector.byInterfacePrefix()) {
      return out.t("-i").t(detector.value() + "+");
    }
    return out.t("-i").t(detector.value());
  }

  private static LineBuffer ifNotLocal(LineBuffer out, LocalTrafficDetector detector) {
    return ifLocal(out.t("!"), detector);
  }

  private static boolean containsAny(String cidr, List<String> ips) {
    if (ips.isEmpty()) {
      return false;
    }
    Cidr parsed;
    try {
      parsed = Cidr.parse(cidr);
    } catch (IllegalArgumentException e) {
      return false;
    }
    for (String ip : ips) {
      if (parsed.contains(ip)) {
        return true;
      }
    }
    return false;
  }
}
