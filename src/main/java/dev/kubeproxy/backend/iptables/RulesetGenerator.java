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

import dev.kubeproxy.model.NamespacedName;
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
  private final SpareChunks spare = new SpareChunks();
  private final AppliedChains applied = new AppliedChains();
  /** The last input's service ports in {@link #SERVICE_ORDER}: the next one starts from it, so its sort is a merge of the few that changed. */
  private List<ServiceChains> lastOrder = List.of();

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
    LineBuffer filterChains = LineBuffer.create(spare);
    LineBuffer filterRules = LineBuffer.create(spare);
    LineBuffer natChains = LineBuffer.create(spare);
    LineBuffer natRules = LineBuffer.create(spare);
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

    Order sorted = order(state, fullSync);
    List<ServiceChains> order = sorted.ports();
    // A partial sync that follows the last input changes the applied chains by the changed ports'
    // chains before (read now: writing a port replaces them) and after; any other sync lists all.
    boolean incremental = sorted.changedBefore() != null;
    Set<String> before = new HashSet<>();
    if (incremental) {
      for (ServiceChains chains : sorted.changedBefore()) {
        chainNames.addLastWritten(chains, before);
      }
    }
    Set<String> active = incremental ? new HashSet<>() : new HashSet<>((serviceCount * 2 + endpointCount) * 4 / 3 + 16);
    int skippedRules = 0;
    int noLocalInternal = 0;
    int noLocalExternal = 0;
    int n = order.size();
    // Which port wrote which line, for a refused full input to be pinned on a Service (a refused
    // partial one blames nobody: RestoreRefusals).
    ServicePortName[] owners = fullSync ? new ServicePortName[n] : null;
    int[][] starts = fullSync ? new int[][] {new int[n + 1], new int[n + 1], new int[n + 1]} : null;
    int index = 0;
    for (ServiceChains chains : order) {
      ServicePortName name = chains.name();
      if (owners != null) {
        owners[index] = name;
        starts[0][index] = filterRules.lines();
        starts[1][index] = natChains.lines();
        starts[2][index] = natRules.lines();
      }
      index++;
      boolean write = fullSync || state.changedServices().contains(name.service());
      int flags = ports.write(options, state.plan(name), large, filterRules, natChains, natRules, write, active);
      if (!write) {
        skippedRules += chains.ownRules();
        if (!incremental) {
          chainNames.addLastWritten(chains, active);
        }
      }
      noLocalInternal += flags & 1;
      noLocalExternal += (flags >> 1) & 1;
    }
    if (owners != null) {
      starts[0][n] = filterRules.lines();
      starts[1][n] = natChains.lines();
      starts[2][n] = natRules.lines();
    }

    int deleted = 0;
    Set<String> stale = incremental ? applied.update(before, active, knownNatChains)
        : applied.replace(active, knownNatChains);
    for (String chain : stale) {
      natChains.chainLine(chain);
      natRules.deletion(chain);
      deleted++;
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

    RestoreAssembly input = new RestoreAssembly(spare);
    int filterHeader = input.table("filter", filterChains, filterRules);
    int natHeader = input.table("nat", natChains, natRules);

    if (fullSync) {
      chainNames.retain(state.services().keySet());
    }
    // 1-based lines where each section's first line is: a table's rules follow its chain lines.
    int filterFirst = filterHeader + 2 + filterChains.lines();
    int natChainsFirst = natHeader + 2;
    int natRulesFirst = natChainsFirst + natChains.lines();
    LineOwners lineOwners = owners == null ? LineOwners.none()
        : new LineOwners(owners, starts, new int[] {filterFirst, natChainsFirst, natRulesFirst});
    Map<String, Map<String, Integer>> topLevelRules = Map.of(
        "filter", input.rulesIn("filter", FILTER_TOP_LEVEL), "nat", input.rulesIn("nat", NAT_TOP_LEVEL));
    return new Ruleset(input.text(), input.sent(), filterRules.lines(), natRules.lines(), skippedRules,
        deleted, applied.view(), noLocalInternal, noLocalExternal, large, lineOwners, topLevelRules);
  }

  /**
   * A sync's service ports in {@link #SERVICE_ORDER}, and the last input's ports of the services
   * changed since (null when the sync does not follow the last input: a full one, the first one).
   */
  private record Order(List<ServiceChains> ports, List<ServiceChains> changedBefore) {}

  /**
   * The state's service ports in order. A partial sync starts from the last input's order without
   * the changed services' ports and adds their ports now: a sorted run and a few more, which the
   * sort merges in one pass instead of sorting every port again.
   */
  private Order order(ProxyState state, boolean fullSync) {
    Map<ServicePortName, ?> services = state.services();
    List<ServiceChains> order = new ArrayList<>(services.size());
    List<ServiceChains> changedBefore = new ArrayList<>();
    if (!fullSync && !lastOrder.isEmpty()) {
      Set<NamespacedName> changed = state.changedServices();
      for (ServiceChains chains : lastOrder) {
        if (!changed.contains(chains.name().service())) {
          order.add(chains);
        } else {
          changedBefore.add(chains);
        }
      }
      for (ServicePortName name : state.portsOfChangedServices(Set.of())) {
        if (services.containsKey(name)) {
          order.add(chainNames.of(name));
        }
      }
    }
    if (order.size() != services.size()) { // a full sync, the first one, or a state not following the last
      order.clear();
      changedBefore = null;
      for (ServicePortName name : services.keySet()) {
        order.add(chainNames.of(name));
      }
    }
    order.sort(SERVICE_ORDER);
    lastOrder = order;
    return new Order(order, changedBefore);
  }

  /**
   * The input was applied or refused: its text's chunks serve the next partial sync (the
   * ruleset's text is empty afterwards), and the applied chains are settled accordingly.
   */
  void release(Ruleset ruleset, boolean fullSync, boolean appliedToKernel) {
    ruleset.text().release();
    spare.afterSync(fullSync);
    applied.settle(appliedToKernel);
  }

  /** The service chains as of the last input (read-only; the next input changes them). */
  Set<String> appliedChains() {
    return applied.view();
  }

  /** No chain of ours is left in the kernel (after a cleanup). */
  void forgetApplied() {
    applied.clear();
  }

  SpareChunks spareChunks() {
    return spare;
  }
}
