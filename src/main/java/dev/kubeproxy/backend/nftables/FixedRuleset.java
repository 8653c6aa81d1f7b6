package dev.kubeproxy.backend.nftables;

import dev.kubeproxy.backend.nftables.objects.Chain;
import dev.kubeproxy.backend.nftables.objects.Element;
import dev.kubeproxy.backend.nftables.objects.Match;
import dev.kubeproxy.backend.nftables.objects.NftMap;
import dev.kubeproxy.backend.nftables.objects.NftSet;
import dev.kubeproxy.backend.nftables.objects.Rule;
import dev.kubeproxy.backend.nftables.objects.Statement;
import dev.kubeproxy.backend.nftables.objects.Table;
import dev.kubeproxy.backend.nftables.objects.Transaction;
import dev.kubeproxy.backend.nftables.objects.Verdict;

import dev.kubeproxy.model.ProxierSettings;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import dev.kubeproxy.backend.nftables.objects.Match.Field;

/**
 * The part of the table that does not depend on individual services: base chains with their
 * hooks and priorities, the dispatch chains and the shared sets and maps (pkg/proxy/nftables/proxier.go
 * setupNFTables, nftablesBaseChains, nftablesJumpChains),
 * plus the hairpin set of this implementation's layout. Written on every full sync.
 */
public final class FixedRuleset {
  static final int DSTNAT = -100;
  static final int SRCNAT = 100;

  static final int FILTER = 0;

  /**
   * The base chains in table order, with the layout of upstream v1.34
   * (pkg/proxy/nftables/proxier.go, nftablesBaseChains): only the
   * LoadBalancerSourceRanges check still runs before DNAT ("-pre-dnat", dstnat - 10); the
   * no-endpoint drop/reject and the ClusterIP checks run at filter priority 0, after DNAT, so that
   * local traffic to an external address, which the nat chains short-circuit to the endpoints, is
   * not dropped for lack of local endpoints.
   */
  static final List<Chain> BASE_CHAINS = List.of(
      Chain.base("filter-prerouting-pre-dnat", "filter", "prerouting", DSTNAT - 10),
      Chain.base("filter-output-pre-dnat", "filter", "output", DSTNAT - 10),
      Chain.base("filter-input", "filter", "input", FILTER),
      Chain.base("filter-forward", "filter", "forward", FILTER),
      Chain.base("filter-output", "filter", "output", FILTER),
      Chain.base("nat-prerouting", "nat", "prerouting", DSTNAT),
      Chain.base("nat-output", "nat", "output", DSTNAT),
      Chain.base("nat-postrouting", "nat", "postrouting", SRCNAT));

  /**
   * Base chains of the v1.31 layout that v1.34 no longer has: deleted with the others on the first
   * sync, so that an agent upgraded in place leaves no hook of the old layout behind.
   */
  static final List<String> RETIRED_BASE_CHAINS = List.of("filter-prerouting", "filter-output-post-dnat");

  private static final Set<String> BASE_CHAIN_NAMES = Set.copyOf(BASE_CHAINS.stream().map(Chain::name).toList());

  /**
   * Whether a command of {@link #write} adds a rule to a base chain: packets enter the rest of the
   * table only through those rules, so a base chain without them lets every packet pass untouched.
   */
  static boolean isBaseChainRule(Transaction.Operation op) {
    return op.object() instanceof Rule r && BASE_CHAIN_NAMES.contains(r.chain());
  }

  /** A jump from a base chain (upstream's order: proxier.go, nftablesJumpChains); new connections only, or all. */
  private record Jump(String from, boolean newOnly, String to) {}

  private static final List<Jump> JUMPS = List.of(
      new Jump("filter-input", true, "nodeport-endpoints-check"),
      new Jump("filter-input", true, "service-endpoints-check"),
      new Jump("filter-forward", true, "service-endpoints-check"),
      new Jump("filter-output", true, "service-endpoints-check"),
      new Jump("filter-prerouting-pre-dnat", true, "firewall-check"),
      new Jump("filter-output-pre-dnat", true, "firewall-check"),
      new Jump("nat-output", false, "services"),
      new Jump("nat-prerouting", false, "services"),
      new Jump("nat-postrouting", false, "masquerading"),
      new Jump("filter-forward", true, "cluster-ips-check"),
      new Jump("filter-output", true, "cluster-ips-check"));

  private final FamilySyntax syntax;
  private final String mark;
  /** When cluster IP traffic is masqueraded (null: never), as in a service's own chain. */
  private final List<Match> clusterIpMasquerade;
  private final List<String> serviceCIDRs;
  private final List<String> nodePortIPs;
  private final LocalhostRejects localhostRejects;
  private int ruleCount;

  /**
   * @param nodePortIPs      addresses accepting NodePorts, or null when every local address does
   * @param localhostRejects the NodePort protocols rejected on loopback (feature gate KubeProxyNFTablesLocalhostNodePorts)
   */
  FixedRuleset(FamilySyntax syntax, ProxierSettings settings, List<String> serviceCIDRs, List<String> nodePortIPs,
      LocalhostRejects localhostRejects) {
    this.localhostRejects = localhostRejects;
    this.syntax = syntax;
    this.mark = settings.masqueradeMark();
    this.clusterIpMasquerade = ServicePortRules.clusterIpMasquerade(settings);
    this.serviceCIDRs = List.copyOf(serviceCIDRs);
    this.nodePortIPs = nodePortIPs == null ? null : List.copyOf(nodePortIPs);
  }

  /** Rules written by {@link #write}. */
  public int ruleCount() {
    return ruleCount;
  }

  /**
   * Adds the fixed part to a full-sync transaction, flushing every shared set and map so that
   * the service part of the same transaction refills them.
   *
   * @param recreateBaseChains first sync of this process: delete and recreate the base chains so
   *                           that changed hooks or priorities take effect
   */
  public void write(Transaction tx, boolean recreateBaseChains) {
    String addr = syntax.addrType();
    ruleCount = 0;
    tx.add(new Table("rules for kube-proxy"));
    if (recreateBaseChains) {
      for (String retired : RETIRED_BASE_CHAINS) {
        tx.add(Chain.regular(retired));
        tx.delete(Chain.regular(retired));
      }
      for (Chain base : BASE_CHAINS) {
        tx.add(Chain.regular(base.name()));
        tx.delete(Chain.regular(base.name()));
      }
    }
    for (Chain base : BASE_CHAINS) {
      tx.add(base);
      tx.flush(base);
    }
    Set<String> ensured = new LinkedHashSet<>();
    for (Jump jump : JUMPS) {
      ensure(tx, ensured, Chain.regular(jump.to()));
      rule(tx, new Rule(jump.from(), jump.newOnly() ? List.of(new Match.NewConnection()) : List.of(),
          Verdict.jump(jump.to())));
    }
    ensure(tx, ensured, Chain.regular("services"));
    ensure(tx, ensured, Chain.regular("cluster-ips-check"));
    ensure(tx, ensured, Chain.regular("masquerading"));
    ensure(tx, ensured, Chain.regular("mark-for-masquerade"));

    NftSet hairpin = NftSet.of("hairpin-connections", addr + " . " + addr + " . inet_proto . inet_service",
        "endpoints that reach themselves through a service");
    tx.add(hairpin);
    Verdict masquerade = Verdict.jump("mark-for-masquerade");
    rule(tx, new Rule("mark-for-masquerade", new Statement.SetMark(false, mark)));
    rule(tx, new Rule("masquerading", List.of(new Match.DestinationNatted(), new Match.TupleInSet("hairpin-connections")),
        masquerade));
    rule(tx, new Rule("masquerading", List.of(new Match.MarkUnset(mark)), Verdict.RETURN));
    rule(tx, new Rule("masquerading", new Statement.SetMark(true, mark)));
    rule(tx, new Rule("masquerading", new Statement.Masquerade()));

    tx.add(NftSet.of("cluster-ips", addr, "Active ClusterIPs"));
    rule(tx, new Rule("cluster-ips-check", List.of(new Match.AddressInSet(Field.DESTINATION, "cluster-ips")),
        new Statement.Reject(), "Reject traffic to invalid ports of ClusterIPs"));
    if (!serviceCIDRs.isEmpty()) {
      rule(tx, new Rule("cluster-ips-check", List.of(new Match.AddressIn(Field.DESTINATION, false, serviceCIDRs)),
          Verdict.DROP, "Drop traffic to unallocated ClusterIPs"));
    }

    NftSet nodePortSet = NftSet.of("nodeport-ips", addr, "IPs that accept NodePort traffic");
    tx.add(nodePortSet);
    if (nodePortIPs == null) {
      tx.delete(nodePortSet);
    } else {
      tx.flush(nodePortSet);
      for (String nodeIP : nodePortIPs) {
        tx.add(Element.ofSet("nodeport-ips", nodeIP));
      }
    }
    // NodePorts on the listed addresses, or (no list) on every local address but loopback.
    List<Match> nodePortDestination = nodePortIPs == null
        ? List.of(syntax.notLoopbackDestination())
        : List.of(new Match.AddressInSet(Field.DESTINATION, "nodeport-ips"));

    tx.add(new NftMap("no-endpoint-services", addr + " . inet_proto . inet_service : verdict",
        "vmap to drop or reject packets to services with no endpoints"));
    tx.add(new NftMap("no-endpoint-nodeports", "inet_proto . inet_service : verdict",
        "vmap to drop or reject packets to service nodeports with no endpoints"));
    Chain reject = Chain.regular("reject-chain", "helper for @no-endpoint-services / @no-endpoint-nodeports");
    tx.add(reject);
    tx.flush(reject);
    rule(tx, new Rule("reject-chain", new Statement.Reject()));
    // Before the no-endpoint check, so that every loopback packet of a rejected protocol is counted.
    ruleCount += localhostRejects.write(tx, syntax);
    rule(tx, new Rule("service-endpoints-check", new Statement.DestinationVmap(true, "no-endpoint-services")));
    rule(tx, new Rule("nodeport-endpoints-check", nodePortDestination,
        new Statement.DestinationVmap(false, "no-endpoint-nodeports")));

    tx.add(new NftMap("firewall-ips", addr + " . inet_proto . inet_service : verdict",
        "destinations that are subject to LoadBalancerSourceRanges"));
    ensure(tx, ensured, Chain.regular("firewall-check"));
    rule(tx, new Rule("firewall-check", new Statement.DestinationVmap(true, "firewall-ips")));

    tx.add(new NftMap("service-ips", addr + " . inet_proto . inet_service : verdict",
        "ClusterIP, ExternalIP and LoadBalancer IP traffic"));
    tx.add(new NftMap("service-nodeports", "inet_proto . inet_service : verdict", "NodePort traffic"));
    tx.add(SingleEndpointServices.declaration(addr));
    for (Rule rule : SingleEndpointServices.rules("services", clusterIpMasquerade)) {
      rule(tx, rule);
    }
    rule(tx, new Rule("services", new Statement.DestinationVmap(true, "service-ips")));
    List<Match> nodePortMatches = new java.util.ArrayList<>();
    if (nodePortIPs == null) {
      nodePortMatches.add(new Match.LocalAddress(Field.DESTINATION));
    }
    nodePortMatches.addAll(nodePortDestination);
    rule(tx, new Rule("services", nodePortMatches, new Statement.DestinationVmap(false, "service-nodeports")));

    tx.flush(NftSet.of("cluster-ips", addr, null));
    tx.flush(hairpin);
    for (String map : List.of("firewall-ips", "no-endpoint-services", "no-endpoint-nodeports", "service-ips",
        "service-nodeports", SingleEndpointServices.MAP)) {
      tx.flush(new NftMap(map, "", null));
    }
  }

  private static void ensure(Transaction tx, Set<String> ensured, Chain chain) {
    if (ensured.add(chain.name())) {
      tx.add(chain);
      tx.flush(chain);
    }
  }

  private void rule(Transaction tx, Rule rule) {
    tx.add(rule);
    ruleCount++;
  }
}
