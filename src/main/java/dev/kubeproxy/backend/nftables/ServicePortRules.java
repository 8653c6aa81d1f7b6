package dev.kubeproxy.backend.nftables;

import dev.kubeproxy.backend.nftables.objects.Element;
import dev.kubeproxy.backend.nftables.objects.ElementValue;
import dev.kubeproxy.backend.nftables.objects.Match;
import dev.kubeproxy.backend.nftables.objects.NftSet;
import dev.kubeproxy.backend.nftables.objects.Rule;
import dev.kubeproxy.backend.nftables.objects.Statement;
import dev.kubeproxy.backend.nftables.objects.Verdict;

import dev.kubeproxy.model.MapViews;
import dev.kubeproxy.model.Endpoint;
import dev.kubeproxy.model.Protocols;
import dev.kubeproxy.model.ProxierSettings;
import dev.kubeproxy.model.ServicePort;
import dev.kubeproxy.model.ServicePortName;
import dev.kubeproxy.model.ServicePortPlan;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import dev.kubeproxy.backend.nftables.objects.Match.Field;

/**
 * Everything one service port puts into the kube-proxy table: its chains with their rules, its
 * affinity sets, and its elements in the shared sets and maps (pkg/proxy/nftables/proxier.go
 * syncProxyRules, its loop over the service ports; with this implementation's leaner endpoint
 * layout, described in this package's package-info). The endpoint-ranges elements, most of a large
 * table, are kept as typed blocks (a map, an offset, the endpoints) and made into elements when
 * asked for.
 *
 * @param chains          chain name to its rules, in creation order
 * @param affinitySets    ClientIP affinity sets (one per endpoint, only with session affinity)
 * @param otherElements   elements of the shared sets and maps other than the endpoint-ranges maps
 * @param blocksAt        where in {@link #elements()} the endpoint blocks' elements go
 * @param blocks          the policy chains' endpoints in the endpoint-ranges maps
 * @param noLocalInternal has endpoints, but none usable for internal traffic
 * @param noLocalExternal has endpoints, but none usable for external traffic
 */
public record ServicePortRules(
    Map<String, List<Rule>> chains,
    List<NftSet> affinitySets,
    List<Element> otherElements,
    int blocksAt,
    List<EndpointBlock> blocks,
    boolean noLocalInternal,
    boolean noLocalExternal) {

  /** A policy chain's endpoints in equal key ranges of its region (from offset) of an endpoint-ranges map. */
  public record EndpointBlock(String map, int offset, List<Endpoint> endpoints) {
    /** Its elements, made one at a time. */
    void forEachElement(java.util.function.Consumer<Element> to) {
      EndpointSlots.Slot slot = new EndpointSlots.Slot(map, offset);
      for (int i = 0; i < endpoints.size(); i++) {
        Endpoint ep = endpoints.get(i);
        to.accept(Element.ofMap(map, List.of(slot.range(i, endpoints.size())), new ElementValue.Target(ep.ip(), ep.port()),
            null));
      }
    }
  }

  /** Every element of the shared sets and maps, in the order they were computed. */
  public List<Element> elements() {
    if (blocks.isEmpty()) {
      return otherElements;
    }
    List<Element> out = new ArrayList<>(otherElements.size() + 16);
    out.addAll(otherElements.subList(0, blocksAt));
    for (EndpointBlock b : blocks) {
      b.forEachElement(out::add);
    }
    out.addAll(otherElements.subList(blocksAt, otherElements.size()));
    return out;
  }

  public int ruleCount() {
    int n = 0;
    for (List<Rule> rules : MapViews.values(chains)) {
      n += rules.size();
    }
    return n;
  }

  /** The endpoint-ranges shards this service port's rules pick from. */
  public Set<String> targetMaps() {
    Set<String> maps = new LinkedHashSet<>();
    for (EndpointBlock b : blocks) {
      maps.add(b.map());
    }
    return maps;
  }

  /** The endpoint in hairpin-connections: its own connections through the service are masqueraded. */
  static Element hairpin(Endpoint ep, String proto, NumberTexts texts) {
    return Element.ofSet("hairpin-connections", ep.ip(), ep.ip(), proto, texts.of(ep.port()));
  }

  /**
   * The further matches under which traffic to a cluster IP is masqueraded (empty: always, with
   * masqueradeAll), or null when it never is (no local-traffic detector).
   */
  static List<Match> clusterIpMasquerade(ProxierSettings settings) {
    if (settings.masqueradeAll()) {
      return List.of();
    }
    return settings.localDetector().implemented()
        ? List.of(FamilySyntax.localTraffic(settings.localDetector(), false)) : null;
  }

  /**
   * Computes the objects of one service port from its plan (which endpoints serve which traffic,
   * and which policy branches apply).
   *
   * @param slots where the policy chains' endpoints go in the endpoint-ranges maps
   * @param texts the shared texts of the numbers the elements name
   */
  static ServicePortRules compute(ServicePortPlan plan, ProxierSettings settings, FamilySyntax syntax,
      LocalhostRejects localhostRejects, EndpointSlots slots, NumberTexts texts) {
    return new Builder(plan.service(), settings, syntax, localhostRejects, slots, texts).build(plan);
  }

  private static final class Builder {
    private final ServicePort svc;
    private final ServicePortName spn;
    private final ProxierSettings settings;
    private final FamilySyntax syntax;
    private final String proto;
    private final String spnText;
    private final Map<String, List<Rule>> chains = new LinkedHashMap<>();
    private final List<NftSet> affinitySets = new ArrayList<>();
    private final List<Element> elements = new ArrayList<>();
    private final List<EndpointBlock> blocks = new ArrayList<>();

    private final EndpointSlots slots;
    private final NumberTexts texts;
    private final LocalhostRejects localhostRejects;

    Builder(ServicePort svc, ProxierSettings settings, FamilySyntax syntax, LocalhostRejects localhostRejects,
        EndpointSlots slots, NumberTexts texts) {
      this.localhostRejects = localhostRejects;
      this.slots = slots;
      this.texts = texts;
      this.svc = svc;
      this.spn = svc.name();
      this.settings = settings;
      this.syntax = syntax;
      this.proto = Protocols.lowerCase(svc.protocol());
      this.spnText = spn.toString();
    }

    ServicePortRules build(ServicePortPlan plan) {
      if (SingleEndpointServices.appliesTo(plan)) {
        slots.release(() -> ChainNames.ServiceChains.of(spn).service());
        return SingleEndpointServices.portRules(plan, proto, texts);
      }
      boolean hasEndpoints = plan.hasEndpoints();
      boolean usesClusterChain = plan.usesClusterPolicyChain();
      boolean usesLocalChain = plan.usesLocalPolicyChain();
      boolean hasInternal = plan.hasInternalEndpoints();
      boolean hasExternal = plan.hasExternalEndpoints();
      boolean usesExternalChain = plan.usesExternalChain();
      boolean usesFirewall = plan.hasSourceRangeFirewall(); // with or without endpoints, as upstream's nftables

      ChainNames.ServiceChains names = ChainNames.ServiceChains.of(spn);
      String clusterChain = names.service();
      String localChain = names.local();
      String externalChain = names.external();
      String firewallChain = names.firewall();
      String internalPolicyChain = svc.internalPolicyLocal() ? localChain : clusterChain;
      String externalPolicyChain = svc.externalPolicyLocal() ? localChain : clusterChain;
      List<Endpoint> reachable = plan.endpoints().allReachable();

      boolean affinity = svc.sessionAffinityClientIP();
      if (affinity) {
        for (Endpoint ep : reachable) {
          chains.put(ChainNames.endpointChain(spn, ep), new ArrayList<>());
        }
      }
      if (usesClusterChain) {
        chains.put(clusterChain, new ArrayList<>());
      }
      if (usesLocalChain) {
        chains.put(localChain, new ArrayList<>());
      }
      if (usesExternalChain) {
        chains.put(externalChain, new ArrayList<>());
      }
      if (usesFirewall) {
        chains.put(firewallChain, new ArrayList<>());
      }
      // A policy chain may be missing when its endpoint list is empty; never point at it then.
      hasInternal &= chains.containsKey(internalPolicyChain);
      boolean externalTarget = hasExternal && chains.containsKey(externalPolicyChain);

      Verdict noEndpointsVerdict = Verdict.goTo("reject-chain");
      Verdict internalVerdict = hasEndpoints ? Verdict.DROP : noEndpointsVerdict;
      Verdict externalVerdict = hasEndpoints ? Verdict.DROP : noEndpointsVerdict;
      String port = texts.of(svc.port());

      // Cluster IP.
      if (svc.clusterIP() != null && !svc.clusterIP().isEmpty()) {
        elements.add(Element.ofSet("cluster-ips", svc.clusterIP()));
        List<String> key = List.of(svc.clusterIP(), proto, port);
        if (hasInternal) {
          elements.add(Element.ofMap("service-ips", key, Verdict.goTo(internalPolicyChain), null));
        } else {
          elements.add(Element.ofMap("no-endpoint-services", key, internalVerdict, spnText));
        }
      }
      // External IPs.
      for (String extIP : svc.externalIPs()) {
        List<String> key = List.of(extIP, proto, port);
        if (usesExternalChain) {
          elements.add(Element.ofMap("service-ips", key, Verdict.goTo(externalChain), null));
        }
        if (!hasExternal) {
          elements.add(Element.ofMap("no-endpoint-services", key, externalVerdict, spnText));
        }
      }
      // LoadBalancer VIPs, with the source-range firewall.
      if (usesFirewall) {
        List<String> allowed = new ArrayList<>(svc.loadBalancerSourceRanges());
        if (sourceRangesContainNode()) {
          allowed.addAll(svc.loadBalancerVIPs());
        }
        rule(firewallChain).match(new Match.AddressIn(Field.SOURCE, true, allowed)).then(Verdict.DROP);
      }
      for (String lbIP : svc.loadBalancerVIPs()) {
        List<String> key = List.of(lbIP, proto, port);
        if (usesExternalChain) {
          elements.add(Element.ofMap("service-ips", key, Verdict.goTo(externalChain), null));
        }
        if (usesFirewall) {
          elements.add(Element.ofMap("firewall-ips", key, Verdict.goTo(firewallChain), spnText));
        }
        if (!hasExternal) {
          elements.add(Element.ofMap("no-endpoint-services", key, externalVerdict, spnText));
        }
      }
      // NodePort.
      if (svc.nodePort() != 0) {
        List<String> key = List.of(proto, texts.of(svc.nodePort()));
        if (usesExternalChain) {
          elements.add(Element.ofMap("service-nodeports", key, Verdict.goTo(externalChain), null));
        }
        if (!hasExternal) {
          elements.add(Element.ofMap("no-endpoint-nodeports", key, externalVerdict, spnText));
        }
        if (localhostRejects.rejects(proto)) {
          elements.add(LocalhostRejects.element(proto, key.get(1)));
        }
      }

      // Masquerade off-cluster traffic to the cluster IP (first rule of the internal chain).
      List<Match> masqueradeWhen = clusterIpMasquerade(settings);
      if (hasInternal && svc.clusterIP() != null && !svc.clusterIP().isEmpty() && masqueradeWhen != null) {
        RuleAppender masquerade = clusterIpMatch(internalPolicyChain);
        masqueradeWhen.forEach(masquerade::match);
        masquerade.then(Verdict.jump("mark-for-masquerade"));
      }

      if (usesExternalChain) {
        if (!svc.externalPolicyLocal()) {
          rule(externalChain).then(Verdict.jump("mark-for-masquerade"));
        } else if (chains.containsKey(clusterChain)) {
          if (settings.localDetector().implemented()) {
            rule(externalChain).match(FamilySyntax.localTraffic(settings.localDetector(), true))
                .then(Verdict.goTo(clusterChain), "short-circuit pod traffic");
          }
          Match local = new Match.LocalAddress(Field.SOURCE);
          rule(externalChain).match(local).then(Verdict.jump("mark-for-masquerade"), "masquerade local traffic");
          rule(externalChain).match(local).then(Verdict.goTo(clusterChain), "short-circuit local traffic");
        }
        if (externalTarget) {
          rule(externalChain).then(Verdict.goTo(externalPolicyChain));
        }
      }

      if (affinity) {
        for (Endpoint ep : reachable) {
          affinitySets.add(new NftSet(ChainNames.affinitySet(spn, ep), syntax.addrType(),
              List.of("dynamic", "timeout"), svc.stickyMaxAgeSeconds(), null));
        }
      }
      int blocksAt = elements.size();
      if (usesClusterChain) {
        dispatch(clusterChain, plan.clusterEndpoints());
      } else {
        slots.release(clusterChain);
      }
      if (usesLocalChain) {
        dispatch(localChain, plan.localEndpoints());
      } else {
        slots.release(localChain);
      }
      if (affinity) {
        for (Endpoint ep : reachable) {
          String chain = ChainNames.endpointChain(spn, ep);
          rule(chain).match(new Match.Address(Field.SOURCE, false, ep.ip())).then(Verdict.jump("mark-for-masquerade"));
          rule(chain).then(new Statement.RememberSource(ChainNames.affinitySet(spn, ep)));
          rule(chain).match(new Match.Protocol(proto)).then(new Statement.Dnat(ep.ip(), ep.port()));
        }
      } else {
        // Hairpin: an endpoint reaching itself through the service is masqueraded in postrouting.
        for (Endpoint ep : reachable) {
          elements.add(hairpin(ep, proto, texts));
        }
      }
      return new ServicePortRules(compact(chains), List.copyOf(affinitySets), List.copyOf(elements), blocksAt,
          List.copyOf(blocks), hasEndpoints && !hasInternal, hasEndpoints && !hasExternal);
    }

    /**
     * The chains as kept until the port changes: immutable rule lists of their own size, and one
     * chain (most ports) without a hash table; the applied table holds one of these per port.
     */
    private static Map<String, List<Rule>> compact(Map<String, List<Rule>> chains) {
      if (chains.size() == 1) {
        Map.Entry<String, List<Rule>> only = chains.entrySet().iterator().next();
        return Map.of(only.getKey(), List.copyOf(only.getValue()));
      }
      chains.replaceAll((name, rules) -> List.copyOf(rules));
      return chains;
    }

    /** Sends a new connection to one of the endpoints, each with probability 1/N. */
    private void dispatch(String chain, List<Endpoint> eps) {
      int n = eps.size();
      if (svc.sessionAffinityClientIP()) {
        slots.release(chain);
        List<String> targets = new ArrayList<>(n);
        for (Endpoint ep : eps) {
          rule(chain).match(new Match.AddressInSet(Field.SOURCE, ChainNames.affinitySet(spn, ep)))
              .then(Verdict.goTo(ChainNames.endpointChain(spn, ep)));
          targets.add(ChainNames.endpointChain(spn, ep));
        }
        rule(chain).then(new Statement.RandomGoto(targets));
        return;
      }
      if (n == 1) {
        slots.release(chain);
        rule(chain).match(new Match.Protocol(proto)).then(new Statement.Dnat(eps.get(0).ip(), eps.get(0).port()));
        return;
      }
      // One rule draws a key of the chain's region; each endpoint holds an equal range of them.
      EndpointSlots.Slot slot = slots.slotFor(chain, proto);
      rule(chain).match(new Match.Protocol(proto))
          .then(new Statement.DnatFromMap(EndpointSlots.modulus(n), slot.offset(), slot.map()));
      blocks.add(new EndpointBlock(slot.map(), slot.offset(), List.copyOf(eps)));
    }

    /** "ip daddr CLUSTER-IP PROTO dport PORT" at the start of a rule of the chain. */
    private RuleAppender clusterIpMatch(String chain) {
      return rule(chain).match(new Match.Address(Field.DESTINATION, false, svc.clusterIP()))
          .match(new Match.DestinationPort(proto, svc.port()));
    }

    private boolean sourceRangesContainNode() {
      for (String range : svc.loadBalancerSourceRanges()) {
        for (String nodeIP : settings.nodeIPs()) {
          if (Cidrs.contains(range, nodeIP)) {
            return true;
          }
        }
      }
      return false;
    }

    /** A rule appended to the chain once its statement is given. */
    private RuleAppender rule(String chain) {
      return new RuleAppender(chain, chains.get(chain));
    }
  }

  /** Builds a rule and appends it to its chain's list. */
  private static final class RuleAppender {
    private final Rule.Builder rule;
    private final List<Rule> into;

    RuleAppender(String chain, List<Rule> into) {
      this.rule = new Rule.Builder(chain);
      this.into = into;
    }

    RuleAppender match(Match m) {
      rule.match(m);
      return this;
    }

    void then(Statement statement) {
      into.add(rule.then(statement));
    }

    void then(Statement statement, String comment) {
      into.add(rule.then(statement, comment));
    }
  }
}
