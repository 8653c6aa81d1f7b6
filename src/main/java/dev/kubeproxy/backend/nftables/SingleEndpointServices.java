package dev.kubeproxy.backend.nftables;

import dev.kubeproxy.backend.nftables.objects.Element;
import dev.kubeproxy.backend.nftables.objects.ElementValue;
import dev.kubeproxy.backend.nftables.objects.Match;
import dev.kubeproxy.backend.nftables.objects.NftMap;
import dev.kubeproxy.backend.nftables.objects.Rule;
import dev.kubeproxy.backend.nftables.objects.Statement;
import dev.kubeproxy.backend.nftables.objects.Verdict;
import dev.kubeproxy.model.Endpoint;
import dev.kubeproxy.model.ServicePort;
import dev.kubeproxy.model.ServicePortPlan;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Service ports reached only through their cluster IP, without affinity, whose one endpoint serves
 * all their traffic: they have no chain. The port's "cluster IP . proto . port" maps to
 * "endpoint . port" in one map, which the services chain looks up before service-ips, to mark
 * off-cluster traffic for masquerade (the condition of a service chain's first rule) and to DNAT.
 *
 * <p>Why: a goto element in service-ips and a rule with a dnat each make the kernel revalidate the
 * whole table at commit (nf_tables_validate walks every chain reachable from the base chains), so
 * creating such a Service or replacing its endpoint would cost a walk over every chain. Elements of
 * a map whose values are data, not verdicts, mark nothing; and the map is bound by the few fixed
 * rules only, so adding an element does not walk thousands of bindings.
 */
public final class SingleEndpointServices {
  static final String MAP = "single-endpoint-services";

  private SingleEndpointServices() {}

  /** Whether the port takes this form (else it has chains of its own: {@link ServicePortRules}). */
  public static boolean appliesTo(ServicePortPlan plan) {
    ServicePort svc = plan.service();
    return plan.usesClusterPolicyChain() && !plan.usesLocalPolicyChain() && !plan.usesExternalChain()
        && !plan.hasSourceRangeFirewall() && plan.hasInternalEndpoints() && !svc.internalPolicyLocal()
        && !svc.sessionAffinityClientIP() && plan.clusterEndpoints().size() == 1
        && svc.clusterIP() != null && !svc.clusterIP().isEmpty() && svc.externalIPs().isEmpty()
        && svc.loadBalancerVIPs().isEmpty() && svc.nodePort() == 0;
  }

  /** The map, for addresses of the type addr ("ipv4_addr", "ipv6_addr"). */
  static NftMap declaration(String addr) {
    return new NftMap(MAP, addr + " . inet_proto . inet_service : " + addr + " . inet_service",
        "ClusterIP traffic of services with one endpoint, to that endpoint");
  }

  /**
   * The rules of the chain that dispatches service traffic: the masquerade mark under the given
   * further matches (none: no masquerade rule), then one dnat per protocol (a port needs its
   * protocol matched first).
   */
  static List<Rule> rules(String chain, List<Match> masqueradeWhen) {
    List<Rule> out = new ArrayList<>();
    if (masqueradeWhen != null) {
      List<Match> matches = new ArrayList<>();
      matches.add(new Match.DestinationInSet(MAP));
      matches.addAll(masqueradeWhen);
      out.add(new Rule(chain, matches, Verdict.jump("mark-for-masquerade")));
    }
    for (String proto : List.of("tcp", "udp", "sctp")) {
      out.add(new Rule(chain, List.of(new Match.Protocol(proto)), new Statement.DnatByDestination(MAP)));
    }
    return out;
  }

  /** The port's objects: no chain; its cluster IP, its key in the map, and its hairpin elements. */
  static ServicePortRules portRules(ServicePortPlan plan, String proto, NumberTexts texts) {
    ServicePort svc = plan.service();
    Endpoint ep = plan.clusterEndpoints().get(0);
    List<Element> elements = new ArrayList<>(3);
    elements.add(Element.ofSet("cluster-ips", svc.clusterIP()));
    elements.add(Element.ofMap(MAP, List.of(svc.clusterIP(), proto, texts.of(svc.port())),
        new ElementValue.Target(ep.ip(), ep.port()), null));
    for (Endpoint reachable : plan.endpoints().allReachable()) {
      elements.add(ServicePortRules.hairpin(reachable, proto, texts));
    }
    return new ServicePortRules(Map.of(), List.of(), List.copyOf(elements), elements.size(), List.of(), false,
        plan.hasEndpoints() && !plan.hasExternalEndpoints());
  }
}
