package dev.kubeproxy.proxy.nftables;

import dev.kubeproxy.proxy.Endpoint;
import dev.kubeproxy.proxy.EndpointCategorizer;
import dev.kubeproxy.proxy.ProxierSettings;
import dev.kubeproxy.proxy.ServicePort;
import dev.kubeproxy.proxy.ServicePortName;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Everything one service port puts into the kube-proxy table: its chains with their rules, its
 * affinity sets, and its elements in the shared sets and maps (nftables.md §5, with the leaner
 * endpoint layout described in the package README).
 *
 * @param chains          chain name to its rules, in creation order
 * @param affinitySets    ClientIP affinity sets (one per endpoint, only with session affinity)
 * @param elements        elements of the shared sets and maps
 * @param noLocalInternal has endpoints, but none usable for internal traffic
 * @param noLocalExternal has endpoints, but none usable for external traffic
 */
public record ServicePortRules(
    Map<String, List<Rule>> chains,
    List<NftSet> affinitySets,
    List<Element> elements,
    boolean noLocalInternal,
    boolean noLocalExternal) {

  public int ruleCount() {
    int n = 0;
    for (List<Rule> rules : chains.values()) {
      n += rules.size();
    }
    return n;
  }

  /** The endpoint-targets shards this service port's rules pick from. */
  public java.util.Set<String> targetMaps() {
    java.util.Set<String> maps = new java.util.LinkedHashSet<>();
    for (Element e : elements) {
      if (EndpointSlots.isShard(e.container())) {
        maps.add(e.container());
      }
    }
    return maps;
  }

  /**
   * Computes the objects of one service port for the given endpoints.
   *
   * @param slots where the policy chains' endpoints go in the endpoint-targets maps
   */
  public static ServicePortRules compute(
      ServicePort svc, List<Endpoint> endpoints, Map<String, String> nodeLabels,
      ProxierSettings settings, FamilySyntax syntax, EndpointSlots slots) {
    return new Builder(svc, settings, syntax, slots).build(EndpointCategorizer.categorize(svc, endpoints, nodeLabels));
  }

  private static final class Builder {
    private final ServicePort svc;
    private final ServicePortName spn;
    private final ProxierSettings settings;
    private final FamilySyntax syntax;
    private final String ip;
    private final String proto;
    private final String spnText;
    private final Map<String, List<Rule>> chains = new LinkedHashMap<>();
    private final List<NftSet> affinitySets = new ArrayList<>();
    private final List<Element> elements = new ArrayList<>();

    private final EndpointSlots slots;

    Builder(ServicePort svc, ProxierSettings settings, FamilySyntax syntax, EndpointSlots slots) {
      this.slots = slots;
      this.svc = svc;
      this.spn = svc.name();
      this.settings = settings;
      this.syntax = syntax;
      this.ip = syntax.ip();
      this.proto = svc.protocol().toLowerCase(Locale.ROOT);
      this.spnText = spn.toString();
    }

    ServicePortRules build(EndpointCategorizer.Result cat) {
      boolean hasEndpoints = cat.hasAnyEndpoints();
      boolean usesClusterChain = !cat.cluster().isEmpty() && svc.usesClusterEndpoints();
      boolean usesLocalChain = !cat.local().isEmpty() && svc.usesLocalEndpoints();
      boolean hasInternal = hasEndpoints && !(svc.internalPolicyLocal() && cat.local().isEmpty());
      boolean hasExternal = hasEndpoints && !(svc.externalPolicyLocal() && cat.local().isEmpty());
      boolean usesExternalChain = hasEndpoints && svc.externallyAccessible();
      boolean usesFirewall = !svc.loadBalancerVIPs().isEmpty() && !svc.loadBalancerSourceRanges().isEmpty();

      ChainNames.ServiceChains names = ChainNames.ServiceChains.of(spn);
      String clusterChain = names.service();
      String localChain = names.local();
      String externalChain = names.external();
      String firewallChain = names.firewall();
      String internalPolicyChain = svc.internalPolicyLocal() ? localChain : clusterChain;
      String externalPolicyChain = svc.externalPolicyLocal() ? localChain : clusterChain;

      boolean affinity = svc.sessionAffinityClientIP();
      if (affinity) {
        for (Endpoint ep : cat.allReachable()) {
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

      String noEndpointsVerdict = "goto reject-chain";
      String internalVerdict = hasEndpoints ? "drop" : noEndpointsVerdict;
      String externalVerdict = hasEndpoints ? "drop" : noEndpointsVerdict;
      String dport = proto + " . " + svc.port();

      // Cluster IP.
      if (svc.clusterIP() != null && !svc.clusterIP().isEmpty()) {
        elements.add(Element.ofSet("cluster-ips", svc.clusterIP()));
        List<String> key = List.of(svc.clusterIP(), proto, Integer.toString(svc.port()));
        if (hasInternal) {
          elements.add(Element.ofMap("service-ips", key, "goto " + internalPolicyChain, null));
        } else {
          elements.add(Element.ofMap("no-endpoint-services", key, internalVerdict, spnText));
        }
      }
      // External IPs.
      for (String extIP : svc.externalIPs()) {
        List<String> key = List.of(extIP, proto, Integer.toString(svc.port()));
        if (usesExternalChain) {
          elements.add(Element.ofMap("service-ips", key, "goto " + externalChain, null));
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
        rule(firewallChain, ip + " saddr != { " + String.join(" , ", allowed) + " } drop");
      }
      for (String lbIP : svc.loadBalancerVIPs()) {
        List<String> key = List.of(lbIP, proto, Integer.toString(svc.port()));
        if (usesExternalChain) {
          elements.add(Element.ofMap("service-ips", key, "goto " + externalChain, null));
        }
        if (usesFirewall) {
          elements.add(Element.ofMap("firewall-ips", key, "goto " + firewallChain, spnText));
        }
        if (!hasExternal) {
          elements.add(Element.ofMap("no-endpoint-services", key, externalVerdict, spnText));
        }
      }
      // NodePort.
      if (svc.nodePort() != 0) {
        List<String> key = List.of(proto, Integer.toString(svc.nodePort()));
        if (usesExternalChain) {
          elements.add(Element.ofMap("service-nodeports", key, "goto " + externalChain, null));
        }
        if (!hasExternal) {
          elements.add(Element.ofMap("no-endpoint-nodeports", key, externalVerdict, spnText));
        }
      }

      // Masquerade off-cluster traffic to the cluster IP (first rule of the internal chain).
      if (hasInternal && svc.clusterIP() != null && !svc.clusterIP().isEmpty()) {
        String match = ip + " daddr " + svc.clusterIP() + " " + proto + " dport " + svc.port();
        if (settings.masqueradeAll()) {
          rule(internalPolicyChain, match + " jump mark-for-masquerade");
        } else if (settings.localDetector().implemented()) {
          rule(internalPolicyChain, match + " " + syntax.localTraffic(settings.localDetector(), false)
              + " jump mark-for-masquerade");
        }
      }

      if (usesExternalChain) {
        if (!svc.externalPolicyLocal()) {
          rule(externalChain, "jump mark-for-masquerade");
        } else if (chains.containsKey(clusterChain)) {
          if (settings.localDetector().implemented()) {
            rule(externalChain, syntax.localTraffic(settings.localDetector(), true) + " goto " + clusterChain,
                "short-circuit pod traffic");
          }
          rule(externalChain, "fib saddr type local jump mark-for-masquerade", "masquerade local traffic");
          rule(externalChain, "fib saddr type local goto " + clusterChain, "short-circuit local traffic");
        }
        if (externalTarget) {
          rule(externalChain, "goto " + externalPolicyChain);
        }
      }

      if (affinity) {
        for (Endpoint ep : cat.allReachable()) {
          affinitySets.add(new NftSet(ChainNames.affinitySet(spn, ep), syntax.addrType(),
              List.of("dynamic", "timeout"), svc.stickyMaxAgeSeconds(), null));
        }
      }
      if (usesClusterChain) {
        dispatch(clusterChain, cat.cluster());
      } else {
        slots.release(clusterChain);
      }
      if (usesLocalChain) {
        dispatch(localChain, cat.local());
      } else {
        slots.release(localChain);
      }
      if (affinity) {
        for (Endpoint ep : cat.allReachable()) {
          String chain = ChainNames.endpointChain(spn, ep);
          rule(chain, ip + " saddr " + ep.ip() + " jump mark-for-masquerade");
          rule(chain, "update @" + ChainNames.affinitySet(spn, ep) + " { " + ip + " saddr }");
          rule(chain, "meta l4proto " + proto + " dnat to " + syntax.hostPort(ep.ip(), ep.port()));
        }
      } else {
        // Hairpin: an endpoint reaching itself through the service is masqueraded in postrouting.
        for (Endpoint ep : cat.allReachable()) {
          elements.add(Element.ofSet("hairpin-connections", ep.ip(), ep.ip(), proto, Integer.toString(ep.port())));
        }
      }
      return new ServicePortRules(chains, List.copyOf(affinitySets), List.copyOf(elements),
          hasEndpoints && !hasInternal, hasEndpoints && !hasExternal);
    }

    /** Sends a new connection to one of the endpoints, each with probability 1/N. */
    private void dispatch(String chain, List<Endpoint> eps) {
      int n = eps.size();
      if (svc.sessionAffinityClientIP()) {
        slots.release(chain);
        for (Endpoint ep : eps) {
          rule(chain, ip + " saddr @" + ChainNames.affinitySet(spn, ep) + " goto " + ChainNames.endpointChain(spn, ep));
        }
        StringBuilder vmap = new StringBuilder("numgen random mod ").append(n).append(" vmap { ");
        for (int i = 0; i < n; i++) {
          vmap.append(i == 0 ? "" : " , ").append(i).append(" : goto ").append(ChainNames.endpointChain(spn, eps.get(i)));
        }
        rule(chain, vmap.append(" }").toString());
        return;
      }
      if (n == 1) {
        slots.release(chain);
        rule(chain, "meta l4proto " + proto + " dnat to " + syntax.hostPort(eps.get(0).ip(), eps.get(0).port()));
        return;
      }
      // One rule picks key offset..offset+N-1 of an endpoint-targets shard (no endpoint chains).
      EndpointSlots.Slot slot = slots.slotFor(chain, proto, n);
      rule(chain, "meta l4proto " + proto + " dnat " + ip + " addr . port to numgen random mod " + n + " offset "
          + slot.offset() + " map @" + slot.map());
      for (int i = 0; i < n; i++) {
        Endpoint ep = eps.get(i);
        elements.add(new Element(slot.map(), true, Integer.toString(slot.offset() + i),
            ep.ip() + " . " + ep.port(), null));
      }
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

    private void rule(String chain, String text) {
      rule(chain, text, null);
    }

    private void rule(String chain, String text, String comment) {
      chains.get(chain).add(new Rule(chain, text, comment));
    }
  }
}
