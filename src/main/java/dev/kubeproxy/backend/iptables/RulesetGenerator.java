package dev.kubeproxy.backend.iptables;

import dev.kubeproxy.backend.iptables.ChainNameCache.ServiceChains;
import static dev.kubeproxy.backend.iptables.ChainNames.FILTER_TOP_LEVEL;
import static dev.kubeproxy.backend.iptables.ChainNames.KUBE_FIREWALL;
import static dev.kubeproxy.backend.iptables.ChainNames.KUBE_FORWARD;
import static dev.kubeproxy.backend.iptables.ChainNames.KUBE_MARK_MASQ;
import static dev.kubeproxy.backend.iptables.ChainNames.KUBE_NODEPORTS;
import static dev.kubeproxy.backend.iptables.ChainNames.KUBE_POSTROUTING;
import static dev.kubeproxy.backend.iptables.ChainNames.KUBE_SERVICES;
import static dev.kubeproxy.backend.iptables.ChainNames.NAT_TOP_LEVEL;

import dev.kubeproxy.model.ProxyState;
import dev.kubeproxy.model.ServicePortName;
import dev.kubeproxy.net.IpFamily;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Turns the service model into upstream's iptables-restore input (pkg/proxy/iptables/proxier.go
 * syncProxyRules): top-level chains, static rules, each service port's rules and chains
 * ({@link ServicePortWriter}), stale-chain deletion and the final NodePort rule. The text keeps
 * upstream's order (the dry run prints it, tests compare it); what is sent to the tool is the same
 * lines in iptables-save's order ({@link SaveOrder}), assembled from what the buffers recorded as
 * they wrote. Keeps chain-name ({@link ChainNameCache}) and probability caches between syncs, so
 * it is not thread safe: one generator per proxier, called from one thread at a time.
 */
public final class RulesetGenerator {
  /** Above this many endpoints in total, SVC/SEP rules lose their comments (upstream's large-cluster mode). */
  static final int LARGE_CLUSTER_ENDPOINTS_THRESHOLD = 1000;

  private static final String NODEPORTS_COMMENT =
      "\"kubernetes service nodeports; NOTE: this must be the last rule in this chain\"";

  private final ChainNameCache chainNames = new ChainNameCache();
  private final ServicePortWriter ports = new ServicePortWriter(chainNames);

  /** Service ports in ServicePortName order, without building their strings again for each comparison. */
  private static final java.util.Comparator<ServiceChains> SERVICE_ORDER = (a, b) -> {
    int c = a.spn().compareTo(b.spn());
    return c != 0 ? c : a.name().protocol().compareTo(b.name().protocol());
  };

  /**
   * The endpoints of the state's service ports, ready or not (the count upstream's syncProxyRules
   * decides large-cluster mode by): one look-up per port, so a sync counts them once.
   */
  static int endpointCount(ProxyState state) {
    int total = 0;
    for (ServicePortName name : state.services().keySet()) {
      total += state.endpointsOf(name).size();
    }
    return total;
  }

  /** Whether this many endpoints put the proxier into large-cluster mode. */
  static boolean largeClusterMode(int endpointCount) {
    return endpointCount > LARGE_CLUSTER_ENDPOINTS_THRESHOLD;
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
    return generate(options, state, fullSync, knownNatChains, endpointCount(state));
  }

  /** {@link #generate(RulesetOptions, ProxyState, boolean, Collection)} with the state's endpoints counted already. */
  Ruleset generate(RulesetOptions options, ProxyState state, boolean fullSync, Collection<String> knownNatChains,
      int endpointCount) {
    int serviceCount = state.services().size();
    boolean large = largeClusterMode(endpointCount);
    LineBuffer filterChains = LineBuffer.create();
    LineBuffer filterRules = LineBuffer.create();
    LineBuffer natChains = LineBuffer.create();
    LineBuffer natRules = LineBuffer.create();
    LineBuffer skippedChains = LineBuffer.discarding();
    LineBuffer skippedRules = LineBuffer.discarding();
    Set<String> active = new HashSet<>((serviceCount * 2 + endpointCount) * 4 / 3 + 16);
    String mark = options.masqueradeMark();
    boolean ipv6 = options.family() == IpFamily.IPv6;

    for (String chain : FILTER_TOP_LEVEL) {
      filterChains.chainLine(chain);
    }
    for (String chain : NAT_TOP_LEVEL) {
      natChains.chainLine(chain);
    }
    natRules.rule(KUBE_POSTROUTING).t("-m mark ! --mark").t(mark + "/" + mark).t("-j RETURN").end();
    natRules.rule(KUBE_POSTROUTING).t("-j MARK --xor-mark").t(mark).end();
    natRules.rule(KUBE_POSTROUTING)
        .comment("kubernetes service traffic requiring SNAT", "").t("-j MASQUERADE");
    if (options.randomFully()) {
      natRules.t("--random-fully");
    }
    natRules.end();
    natRules.rule(KUBE_MARK_MASQ).t("-j MARK --or-mark").t(mark).end();
    if (!ipv6 && options.localhostNodePorts()) {
      filterChains.chainLine(KUBE_FIREWALL);
      filterRules.rule(KUBE_FIREWALL).comment("block incoming localnet connections", "")
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
      int flags = ports.write(options, state.plan(name), large, active,
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
        natRules.deletion(chain);
        deleted++;
      }
    }

    if (options.nodePortMatchAll()) {
      natRules.rule(KUBE_SERVICES).t("-m comment --comment").t(NODEPORTS_COMMENT)
          .t("-m addrtype --dst-type LOCAL");
      if (ipv6) {
        natRules.t("! -d ::1/128");
      } else if (!options.localhostNodePorts()) {
        natRules.t("! -d 127.0.0.0/8");
      }
      natRules.t("-j").t(KUBE_NODEPORTS).end();
    } else {
      for (String ip : options.nodePortIPs()) {
        natRules.rule(KUBE_SERVICES).t("-m comment --comment").t(NODEPORTS_COMMENT)
            .t("-d").t(ip).t("-j").t(KUBE_NODEPORTS).end();
      }
    }

    if (!options.conntrackTcpLiberal()) {
      filterRules.rule(KUBE_FORWARD).t("-m conntrack --ctstate INVALID");
      if (options.nfacctCounters().contains(NfacctCounters.CT_STATE_INVALID_DROPPED)) {
        filterRules.t("-m nfacct --nfacct-name").t(NfacctCounters.CT_STATE_INVALID_DROPPED);
      }
      filterRules.t("-j DROP").end();
    }
    filterRules.rule(KUBE_FORWARD).comment("kubernetes forwarding rules", "")
        .t("-m mark --mark").t(mark + "/" + mark).t("-j ACCEPT").end();
    filterRules.rule(KUBE_FORWARD).comment("kubernetes forwarding conntrack rule", "")
        .t("-m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT").end();

    RestoreAssembly input = new RestoreAssembly();
    int filterHeader = input.table("filter", filterChains, filterRules);
    int natHeader = input.table("nat", natChains, natRules);

    if (fullSync) {
      chainNames.retain(state.services().keySet());
    }
    // 1-based lines where each section's first line is: a table's rules follow its chain lines.
    int filterFirst = filterHeader + 2 + filterChains.lines();
    int natChainsFirst = natHeader + 2;
    int natRulesFirst = natChainsFirst + natChains.lines();
    LineOwners lineOwners = new LineOwners(owners, starts, new int[] {filterFirst, natChainsFirst, natRulesFirst});
    Map<String, Map<String, Integer>> topLevelRules = Map.of(
        "filter", input.rulesIn("filter", FILTER_TOP_LEVEL), "nat", input.rulesIn("nat", NAT_TOP_LEVEL));
    return new Ruleset(input.text(), input.sent(), filterRules.lines(), natRules.lines(), skippedRules.lines(),
        deleted, active, noLocalInternal, noLocalExternal, large, lineOwners, topLevelRules);
  }
}
