package dev.kubeproxy.backend.iptables;

import dev.kubeproxy.backend.iptables.ChainNameCache.EndpointChains;
import dev.kubeproxy.backend.iptables.ChainNameCache.ServiceChains;
import static dev.kubeproxy.backend.iptables.ChainNames.KUBE_EXTERNAL_SERVICES;
import static dev.kubeproxy.backend.iptables.ChainNames.KUBE_MARK_MASQ;
import static dev.kubeproxy.backend.iptables.ChainNames.KUBE_NODEPORTS;
import static dev.kubeproxy.backend.iptables.ChainNames.KUBE_PROXY_FIREWALL;
import static dev.kubeproxy.backend.iptables.ChainNames.KUBE_SERVICES;

import dev.kubeproxy.model.Endpoint;
import dev.kubeproxy.model.LocalTrafficDetector;
import dev.kubeproxy.model.ServicePort;
import dev.kubeproxy.model.ServicePortPlan;
import dev.kubeproxy.net.Cidr;
import dev.kubeproxy.net.IpFamily;
import java.util.List;
import java.util.Set;

/**
 * One service port's part of the restore input (the per-service-port loop of upstream's
 * pkg/proxy/iptables/proxier.go syncProxyRules): its rules in the top-level chains (cluster IP,
 * external and load-balancer IPs, NodePorts, the filter table's REJECT and DROP rules), then its own
 * chains (SVC, SVL, EXT, FW and one SEP per endpoint). Shares the generator's chain-name cache.
 */
final class ServicePortWriter {
  private final ChainNameCache chainNames;
  private final Probabilities probabilities = new Probabilities();

  ServicePortWriter(ChainNameCache chainNames) {
    this.chainNames = chainNames;
  }

  /**
   * Writes one service port: its rules in the top-level chains, then, unless ownChains is false (a
   * partial sync leaving the port as it is), its own chains, adding their names to active and
   * noting them in its {@link ServiceChains}. Returns bit 0 = no local endpoints internal, bit 1 =
   * external.
   */
  int write(
      RulesetOptions options, ServicePortPlan plan, boolean large, LineBuffer filterRules, LineBuffer natChains,
      LineBuffer natRules, boolean ownChains, Set<String> active) {
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
      natRules.rule(KUBE_SERVICES).comment(spn, " cluster IP").t("-m").t(proto).t("-p").t(proto)
          .t("-d").t(svc.clusterIP()).t("--dport").t(port).t("-j").t(internalChain).end();
    } else {
      filterRules.rule(KUBE_SERVICES).comment(spn, internalFilterComment).t("-m").t(proto).t("-p").t(proto)
          .t("-d").t(svc.clusterIP()).t("--dport").t(port).t("-j").t(internalFilterTarget).end();
    }
    // External IPs.
    for (String externalIP : svc.externalIPs()) {
      if (hasEndpoints) {
        natRules.rule(KUBE_SERVICES).comment(spn, " external IP").t("-m").t(proto).t("-p").t(proto)
            .t("-d").t(externalIP).t("--dport").t(port).t("-j").t(chains.ext()).end();
      }
      if (!hasExternalEndpoints) {
        filterRules.rule(KUBE_EXTERNAL_SERVICES).comment(spn, externalFilterComment)
            .t("-m").t(proto).t("-p").t(proto).t("-d").t(externalIP).t("--dport").t(port)
            .t("-j").t(externalFilterTarget).end();
      }
    }
    // Load balancer IPs.
    for (String lbIP : svc.loadBalancerVIPs()) {
      if (hasEndpoints) {
        natRules.rule(KUBE_SERVICES).comment(spn, " loadbalancer IP").t("-m").t(proto).t("-p").t(proto)
            .t("-d").t(lbIP).t("--dport").t(port).t("-j").t(lbTarget).end();
      }
      if (usesFwChain) {
        filterRules.rule(KUBE_PROXY_FIREWALL).comment(spn, " traffic not accepted by " + chains.fw())
            .t("-m").t(proto).t("-p").t(proto).t("-d").t(lbIP).t("--dport").t(port).t("-j DROP").end();
      }
    }
    if (!hasExternalEndpoints) {
      for (String lbIP : svc.loadBalancerVIPs()) {
        filterRules.rule(KUBE_EXTERNAL_SERVICES).comment(spn, externalFilterComment)
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
          natRules.rule(KUBE_NODEPORTS).comment(spn, "").t("-m").t(proto).t("-p").t(proto)
              .t("-d 127.0.0.0/8 --dport").t(svc.nodePort())
              .t("-m nfacct --nfacct-name").t(NfacctCounters.LOCALHOST_NODEPORT_ACCEPTED)
              .t("-j").t(chains.ext()).end();
        }
        natRules.rule(KUBE_NODEPORTS).comment(spn, "").t("-m").t(proto).t("-p").t(proto)
            .t("--dport").t(svc.nodePort()).t("-j").t(chains.ext()).end();
      }
      if (!hasExternalEndpoints) {
        filterRules.rule(KUBE_EXTERNAL_SERVICES).comment(spn, externalFilterComment)
            .t("-m addrtype --dst-type LOCAL").t("-m").t(proto).t("-p").t(proto)
            .t("--dport").t(svc.nodePort()).t("-j").t(externalFilterTarget).end();
      }
    }
    // Health check node port: accepted whatever the endpoints.
    if (svc.healthCheckNodePort() != 0) {
      filterRules.rule(KUBE_NODEPORTS).comment(spn, " health check node port")
          .t("-m tcp -p tcp --dport").t(svc.healthCheckNodePort()).t("-j ACCEPT").end();
    }

    if (!ownChains) {
      return flags;
    }
    int rulesBefore = natRules.lines();
    int declared = 0;
    LocalTrafficDetector detector = options.localDetector();
    if (hasInternalEndpoints) {
      if (options.masqueradeAll()) {
        natRules.rule(internalChain).comment(spn, " cluster IP").t("-m").t(proto).t("-p").t(proto)
            .t("-d").t(svc.clusterIP()).t("--dport").t(port).t("-j").t(KUBE_MARK_MASQ).end();
      } else if (detector != null && detector.implemented()) {
        natRules.rule(internalChain).comment(spn, " cluster IP").t("-m").t(proto).t("-p").t(proto)
            .t("-d").t(svc.clusterIP()).t("--dport").t(port);
        ifNotLocal(natRules, detector).t("-j").t(KUBE_MARK_MASQ).end();
      }
    }

    if (usesExternalChain) {
      natChains.chainLine(chains.ext());
      active.add(chains.ext());
      declared |= ServiceChains.EXT;
      if (!svc.externalPolicyLocal()) {
        natRules.rule(chains.ext()).comment("masquerade traffic for ", spn + " external destinations")
            .t("-j").t(KUBE_MARK_MASQ).end();
      } else {
        if (detector != null && detector.implemented()) {
          natRules.rule(chains.ext()).comment("pod traffic for ", spn + " external destinations");
          ifLocal(natRules, detector).t("-j").t(chains.svc()).end();
        }
        natRules.rule(chains.ext()).comment("masquerade LOCAL traffic for ", spn + " external destinations")
            .t("-m addrtype --src-type LOCAL -j").t(KUBE_MARK_MASQ).end();
        natRules.rule(chains.ext()).comment("route LOCAL traffic for ", spn + " external destinations")
            .t("-m addrtype --src-type LOCAL -j").t(chains.svc()).end();
      }
      if (hasExternalEndpoints) {
        natRules.rule(chains.ext()).t("-j").t(externalPolicyChain).end();
      }
    }

    if (usesFwChain) {
      natChains.chainLine(chains.fw());
      active.add(chains.fw());
      declared |= ServiceChains.FW;
      boolean allowFromNode = false;
      for (String range : svc.loadBalancerSourceRanges()) {
        natRules.rule(chains.fw()).comment(spn, " loadbalancer IP").t("-s").t(range)
            .t("-j").t(chains.ext()).end();
        allowFromNode |= containsAny(range, options.nodeIPs());
      }
      if (allowFromNode) {
        for (String lbIP : svc.loadBalancerVIPs()) {
          natRules.rule(chains.fw()).comment(spn, " loadbalancer IP").t("-s").t(lbIP)
              .t("-j").t(chains.ext()).end();
        }
      }
      natRules.rule(chains.fw())
          .comment("other traffic to ", spn + " will be dropped by KUBE-PROXY-FIREWALL").end();
    }

    EndpointChains sepNames = chainNames.endpoints(chains);
    if (plan.usesClusterPolicyChain()) {
      natChains.chainLine(chains.svc());
      active.add(chains.svc());
      declared |= ServiceChains.SVC;
      writeDispatch(natRules, svc, chains, chains.svc(), clusterEndpoints, large, sepNames);
    }
    if (plan.usesLocalPolicyChain()) {
      natChains.chainLine(chains.svl());
      active.add(chains.svl());
      declared |= ServiceChains.SVL;
      writeDispatch(natRules, svc, chains, chains.svl(), localEndpoints, large, sepNames);
    }
    List<Endpoint> reachable = plan.endpoints().allReachable();
    for (Endpoint ep : reachable) {
      String chain = sepNames.of(ep);
      natChains.chainLine(chain);
      active.add(chain);
      natRules.rule(chain);
      if (!large) {
        natRules.comment(spn, "");
      }
      natRules.t("-s").t(ep.ip()).t("-j").t(KUBE_MARK_MASQ).end();
      natRules.rule(chain);
      if (!large) {
        natRules.comment(spn, "");
      }
      if (svc.sessionAffinityClientIP()) {
        natRules.t("-m recent --name").t(chain).t("--set");
      }
      natRules.t("-m").t(proto).t("-p").t(proto).t("-j DNAT --to-destination").t(ep.endpoint()).end();
    }
    chainNames.keep(sepNames, reachable);
    chains.written(declared, natRules.lines() - rulesBefore);
    return flags;
  }

  private void writeDispatch(
      LineBuffer natRules, ServicePort svc, ServiceChains chains, String chain, List<Endpoint> endpoints,
      boolean large, EndpointChains sepNames) {
    String spn = chains.spn();
    if (svc.sessionAffinityClientIP()) {
      for (Endpoint ep : endpoints) {
        String sep = sepNames.of(ep);
        natRules.rule(chain);
        if (!large) {
          natRules.comment(spn, " -> ", ep.endpoint());
        }
        natRules.t("-m recent --name").t(sep).t("--rcheck --seconds").t(svc.stickyMaxAgeSeconds())
            .t("--reap -j").t(sep).end();
      }
    }
    int n = endpoints.size();
    for (int i = 0; i < n; i++) {
      Endpoint ep = endpoints.get(i);
      String sep = sepNames.of(ep);
      natRules.rule(chain);
      if (!large) {
        natRules.comment(spn, " -> ", ep.endpoint());
      }
      if (i < n - 1) {
        natRules.t("-m statistic --mode random --probability").t(probabilities.of(n - i));
      }
      natRules.t("-j").t(sep).end();
    }
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
