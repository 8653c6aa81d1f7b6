package dev.kubeproxy.backend.iptables;

import dev.kubeproxy.backend.iptables.SyncPlanner.SyncPlan;
import dev.kubeproxy.backend.netfilter.BackendSelector;
import dev.kubeproxy.backend.netfilter.IptablesBackend;
import dev.kubeproxy.backend.netfilter.IptablesTool;
import dev.kubeproxy.backend.netfilter.Sysctls;

import dev.kubeproxy.logging.Log;
import dev.kubeproxy.metrics.ProxyMetrics;
import dev.kubeproxy.host.CommandRunner;
import dev.kubeproxy.net.IpFamily;
import dev.kubeproxy.model.ProxierSettings;
import dev.kubeproxy.model.ProxyBackend;
import dev.kubeproxy.model.ProxyState;
import dev.kubeproxy.model.SyncResult;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.function.Supplier;

/**
 * The iptables backend for one family (pkg/proxy/iptables/proxier.go Proxier): full and partial
 * syncs through iptables-restore --noflush --counters, jump rules and canaries at full syncs,
 * stale-chain deletion, cleanup, and --dry-run (print the restore input, touch nothing).
 *
 * <p>A sync goes: plan ({@link SyncPlanner}: full or partial, and why), prepare the kernel side
 * ({@link #prepare}: iptables-save, jump rules, nfacct counters at a full sync), build
 * ({@link RulesetGenerator}, over {@link NodePortIPs}), restore (the input as sent, in the tool's
 * fastest order), and record (metrics, the rules monitor's expected counts). A refused restore is
 * handled as {@link RestoreRefusals} decides, in the loop of {@link #sync}.
 *
 * <p>Called by the family's proxier on its sync worker, one call at a time.
 */
public class IptablesProxier implements ProxyBackend {
  private final ProxierSettings settings;
  private final CommandRunner runner;
  private final Sysctls sysctls;
  private final NodePortIPs nodePorts;
  private final ProxyMetrics metrics;
  private final RulesetGenerator generator = new RulesetGenerator();
  private final RulesMonitor monitor = new RulesMonitor();
  /** The last sync was in large-cluster mode: the rules check's nat read is then its stale-chain scan. */
  private boolean lastSyncLarge;
  private final BaseChains baseChains = new BaseChains();
  private final RestoreRefusals refusals = new RestoreRefusals();

  private final RuleCounters counters;

  private IptablesTool tool;
  /** Chooses iptables-legacy or -nft at the first use of {@link #tool()}, unless a backend was given. */
  private final BackendSelector backends;
  private Boolean conntrackTcpLiberal;
  private final SyncPlanner planner;
  /** --dry-run only: the last input printed (what /debug/services shows); an applied ruleset is not kept. */
  private volatile Ruleset lastPrinted;

  /** With the agent's command runner, metrics and its one iptables backend choice. */
  public IptablesProxier(ProxierSettings settings, CommandRunner commands, ProxyMetrics metrics, BackendSelector backends) {
    this(settings, commands, metrics, new Sysctls(), NodeAddresses.ofInterfaces(),
        backends, () -> NfacctCounters.open(null));
  }

  /**
   * With explicit sysctl root, interface-address source and backend (null = choose as
   * iptables-wrapper does): for tests, which run commands in a scratch namespace.
   * No nfacct counters (they would be created in the test process's own namespace).
   */
  public IptablesProxier(
      ProxierSettings settings, CommandRunner runner, ProxyMetrics metrics, Sysctls sysctls,
      Supplier<List<String>> interfaceAddresses, IptablesBackend backend) {
    this(settings, runner, metrics, sysctls, interfaceAddresses, backend, null);
  }

  /**
   * @param nfacct opens the nfacct client (in the namespace the rules go to) at the first full sync;
   *               null: no nfacct, the rules are written without their counters
   */
  public IptablesProxier(
      ProxierSettings settings, CommandRunner runner, ProxyMetrics metrics, Sysctls sysctls,
      Supplier<List<String>> interfaceAddresses, IptablesBackend backend, Callable<NfacctCounters> nfacct) {
    this(settings, runner, metrics, sysctls, interfaceAddresses, new BackendSelector(runner), nfacct);
    if (backend != null) {
      this.tool = new IptablesTool(runner, settings.family(), backend);
    }
  }

  private IptablesProxier(
      ProxierSettings settings, CommandRunner runner, ProxyMetrics metrics, Sysctls sysctls,
      Supplier<List<String>> interfaceAddresses, BackendSelector backends, Callable<NfacctCounters> nfacct) {
    this.backends = backends;
    this.counters = new RuleCounters(nfacct);
    this.settings = settings;
    this.runner = runner;
    this.metrics = metrics;
    this.sysctls = sysctls;
    this.nodePorts = new NodePortIPs(settings, interfaceAddresses);
    this.planner = new SyncPlanner(new FullSyncCadence(System::nanoTime, settings.syncPeriod()));
  }

  @Override
  public IpFamily family() {
    return settings.family();
  }

  /** The iptables tool in use (iptables-legacy, ip6tables-nft, ...); chooses the backend on first use. */
  public synchronized IptablesTool tool() {
    if (tool == null) {
      tool = new IptablesTool(runner, settings.family(), backends.choose());
    }
    return tool;
  }

  /**
   * The port's rules for /debug/services: in a dry run from the last printed input, else read from
   * the kernel. May be called from another thread than the syncs.
   */
  @Override
  public java.util.Optional<dev.kubeproxy.model.ProgrammedRules> programmedRules(
      dev.kubeproxy.model.ServicePort port, List<dev.kubeproxy.model.Endpoint> endpoints) {
    return java.util.Optional.of(settings.dryRun() ? IptablesRulesReader.fromDryRun(lastPrinted, port.name())
        : IptablesRulesReader.fromKernel(tool(), port.name()));
  }

  @Override
  public java.util.Optional<dev.kubeproxy.model.ProgrammedRuleset> programmedRuleset() {
    return java.util.Optional.of(settings.dryRun() ? IptablesRulesReader.wholeFromDryRun(lastPrinted)
        : IptablesRulesReader.wholeFromKernel(tool()));
  }

  @Override
  public void privilegedInit() throws SyncException {
    if (settings.dryRun()) {
      return;
    }
    if (nodePorts.localhost()) {
      try {
        sysctls.write("net.ipv4.conf.all.route_localnet", "1");
        Log.info("Set sysctl for localhost NodePorts", "sysctl", "net.ipv4.conf.all.route_localnet", "value", 1);
      } catch (IOException e) {
        throw new SyncException("cannot set sysctl net/ipv4/conf/all/route_localnet to 1 (needed for localhost"
            + " NodePorts; set iptables.localhostNodePorts to false to run without): " + e.getMessage(), e);
      }
    }
    conntrackTcpLiberal();
    IptablesTool t = tool();
    if (!t.available()) {
      throw new SyncException(t.command() + " is not installed or does not run; install iptables");
    }
    Log.info("iptables mode uses this command", "ipFamily", settings.family(), "command", t.command());
  }

  private boolean conntrackTcpLiberal() {
    if (conntrackTcpLiberal == null) {
      String value = sysctls.read("net.netfilter.nf_conntrack_tcp_be_liberal");
      conntrackTcpLiberal = value != null && !value.equals("0");
      if (conntrackTcpLiberal) {
        Log.info("nf_conntrack_tcp_be_liberal is set, not installing DROP rules for INVALID packets");
      }
    }
    return conntrackTcpLiberal;
  }

  /**
   * Syncs; a refused input is handled as {@link RestoreRefusals} decides: a refused partial sync is
   * retried at once as a full one, a refused full sync without the Service owning the refused line.
   * The result names the ports left out in this sync.
   */
  @Override
  public synchronized SyncResult sync(ProxyState state) throws SyncException {
    for (int attempt = 0; ; attempt++) {
      try {
        return syncOnce(refusals.withoutRefused(state)).withRefused(refusals.takeUnreported());
      } catch (RestoreRefusals.Refused e) {
        if (refusals.refused(state, e, attempt) == RestoreRefusals.Decision.GIVE_UP) {
          throw e;
        }
      }
    }
  }

  /** One attempt: plan, prepare, build, restore, record. */
  private SyncResult syncOnce(ProxyState state) throws SyncException {
    if (settings.dryRun()) {
      return dryRun(state);
    }
    long start = planner.now();
    long prepareStart = System.nanoTime();
    IptablesTool t = tool();
    int endpoints = RulesetGenerator.endpointCount(state);
    boolean large = RulesetGenerator.largeClusterMode(endpoints);
    lastSyncLarge = large;
    SyncPlan plan = planner.next(state, large);
    // No canary check here: as upstream's, the rules check every syncPeriod finds flushed tables,
    // and a partial input that meets one is refused and retried at once as a full sync.
    try {
      Set<String> known = prepare(plan, t, large);
      long generateStart = System.nanoTime();
      Ruleset ruleset = generator.generate(options(t), state, plan.full(), known, endpoints);
      long restoreStart = System.nanoTime();
      int bytes = ruleset.text().length();
      boolean restored = false;
      try {
        restore(t, plan, ruleset);
        restored = true;
      } finally {
        generator.release(ruleset, plan.full(), restored);
      }
      Log.v(2).info("iptables sync", "kind", plan.full() ? "full" : "partial", "reason", plan.reason(),
          "bytes", bytes, "prepare", Duration.ofNanos(generateStart - prepareStart),
          "generate", Duration.ofNanos(restoreStart - generateStart),
          "restore", Duration.ofNanos(System.nanoTime() - restoreStart));
      return withLeftoversRemoved(applied(plan, ruleset, start), known);
    } catch (RestoreRefusals.Refused e) {
      restoreFailed(plan);
      throw e;
    } catch (IptablesTool.RestoreException e) {
      restoreFailed(plan);
      throw new SyncException(restoreFailure(plan, e), e);
    } catch (IOException | RuntimeException e) {
      planner.fullNext("previous sync failed");
      throw new SyncException("iptables sync failed: " + e.getMessage(), e);
    } finally {
      Duration took = Duration.ofNanos(System.nanoTime() - start);
      if (plan.full()) {
        metrics.observeFullSyncDuration(settings.family().name(), took);
      } else {
        metrics.observePartialSyncDuration(settings.family().name(), took);
      }
    }
  }

  /**
   * The kernel side a sync needs before its ruleset is built: at a full sync, one iptables-save of
   * every table tells which chains and jump rules are there already (only the missing ones cost a
   * command) and which nat chains are stale; at a partial one, a nat save finds them (in large
   * clusters, the rules check's own read of nat every syncPeriod does, not the sync).
   *
   * @return nat chains read from the kernel, beside those the generator applied (none when not read)
   */
  private Set<String> prepare(SyncPlan plan, IptablesTool t, boolean large)
      throws IOException, IptablesTool.RestoreException {
    Set<String> known = Set.of();
    if (plan.full()) {
      Map<String, String> tables = null;
      try {
        tables = IptablesTool.tablesOf(t.save(null));
      } catch (IOException e) {
        Log.error("Failed to execute iptables-save: stale chains will not be deleted", e);
      }
      baseChains.ensure(t, tables);
      counters.ensure();
      if (tables != null) {
        known = IptablesTool.chainsOf(tables.getOrDefault("nat", ""));
        planner.staleScanned();
      }
    } else if (large && monitor.armed()) {
      known = monitor.takeUnknownChains(); // its check every syncPeriod read nat for them
    } else if (planner.staleScanDue(large)) {
      try {
        Set<String> applied = generator.appliedChains();
        known = t.chainsIn("nat", chain -> !applied.contains(chain)); // a large table's names, not held twice
        planner.staleScanned();
      } catch (IOException e) {
        Log.error("Failed to execute iptables-save: stale chains will not be deleted", e);
      }
    }
    return known;
  }

  /** Applies the ruleset; a refusal names the service port owning the refused line, if any. */
  private void restore(IptablesTool t, SyncPlan plan, Ruleset ruleset) throws RestoreRefusals.Refused {
    SentInput sent = ruleset.sent(); // the tool's fastest order, same rules
    try {
      t.restore(sent.input(), null);
    } catch (IptablesTool.RestoreException refused) {
      IptablesTool.RestoreException e = refused.renumbered(sent::originalLine);
      throw new RestoreRefusals.Refused(restoreFailure(plan, e), e, plan.kind(), ruleset.serviceAtLine(e.lineNumber()));
    }
  }

  private static String restoreFailure(SyncPlan plan, IptablesTool.RestoreException e) {
    // logged once, by the caller that handles it (FamilyProxier)
    return "Failed to execute iptables-restore (" + (plan.full() ? "full" : "partial")
        + " sync); the previous rules stay in place and a full sync follows: " + e.getMessage();
  }

  /** Chains of an older kube-proxy's layout that the applied input deleted, logged and reported for an event. */
  private SyncResult withLeftoversRemoved(SyncResult result, Set<String> known) {
    List<String> removed = known.stream().filter(ChainNames::isObsoleteChain).sorted().toList();
    if (removed.isEmpty()) {
      return result;
    }
    Log.info("Removed chains left by an older kube-proxy", "ipFamily", settings.family(), "chains", removed);
    return result.withRemovedLeftovers(removed);
  }

  private void restoreFailed(SyncPlan plan) {
    planner.fullNext("previous sync failed");
    metrics.incIptablesRestoreFailures(settings.family().name());
    if (!plan.full()) {
      metrics.incIptablesPartialRestoreFailures(settings.family().name());
    }
  }

  /** What a restored ruleset leaves behind: the next sync's state, the monitor's baseline, the metrics. */
  private SyncResult applied(SyncPlan plan, Ruleset ruleset, long start) {
    planner.applied(plan, start);
    monitor.applied(ruleset.topLevelRules());
    String family = settings.family().name();
    metrics.setIptablesRulesTotal(family, "filter", ruleset.filterRules());
    metrics.setIptablesRulesLast(family, "filter", ruleset.filterRules());
    metrics.setIptablesRulesTotal(family, "nat", ruleset.natRulesTotal());
    metrics.setIptablesRulesLast(family, "nat", ruleset.natRulesLast());
    return result(plan.full(), ruleset);
  }

  private static SyncResult result(boolean full, Ruleset ruleset) {
    return new SyncResult(full, Map.of("filter", ruleset.filterRules(), "nat", ruleset.natRulesTotal()),
        ruleset.noLocalEndpointsInternal(), ruleset.noLocalEndpointsExternal());
  }

  private SyncResult dryRun(ProxyState state) {
    IptablesTool probe = new IptablesTool(runner, settings.family(), IptablesBackend.LEGACY);
    int[] version = probe.version();
    boolean randomFully = version == null || probe.supportsRandomFully();
    // Printed as a host where the real run finds its nfacct counters would get it: with the
    // counting rules, although the dry run creates no counter.
    Ruleset ruleset = generator.generate(options(randomFully).withNfacctCounters(NfacctCounters.ALL), state, true, null);
    generator.forgetApplied(); // nothing printed reaches the kernel: no chain of it is ever stale
    lastPrinted = ruleset;
    settings.dryRunOutput().print("# " + (settings.family() == IpFamily.IPv6 ? "ip6tables" : "iptables")
        + "-restore --noflush --counters input (dry run, nothing applied)\n");
    settings.dryRunOutput().print(ruleset.payload());
    settings.dryRunOutput().flush();
    return result(true, ruleset);
  }

  RulesetOptions options(IptablesTool t) {
    return options(t.supportsRandomFully()).withNfacctCounters(counters.existing());
  }

  private RulesetOptions options(boolean randomFully) {
    boolean matchAll = nodePorts.matchAll();
    List<String> nodePortIPs = matchAll ? List.of() : nodePorts.resolve();
    return new RulesetOptions(settings.family(), settings.masqueradeMark(), settings.masqueradeAll(),
        nodePorts.localhost(), settings.localDetector(), randomFully, conntrackTcpLiberal(), matchAll, nodePortIPs,
        settings.nodeIPs());
  }

  @Override
  public synchronized boolean rulesDisturbed() {
    if (settings.dryRun() || !monitor.armed()) {
      return false;
    }
    try {
      String problem = monitor.check(tool(), lastSyncLarge ? generator.appliedChains() : null);
      if (problem == null) {
        return false;
      }
      Log.warn("iptables rules were changed by something else; forcing a full resync", "ipFamily", settings.family(),
          "change", problem);
      planner.fullNext("rules changed by something else");
      monitor.reset();
      return true;
    } catch (IOException e) {
      Log.warn("Could not read the iptables rules back to check them; will retry in one syncPeriod", "ipFamily",
          settings.family(), "err", e.getMessage());
      return false;
    }
  }

  @Override
  public synchronized void cleanup() throws SyncException {
    boolean ok = true;
    for (IptablesBackend backend : IptablesBackend.values()) {
      ok &= IptablesCleanup.cleanup(new IptablesTool(runner, settings.family(), backend), metrics);
    }
    planner.cleanedUp();
    generator.forgetApplied();
    monitor.reset();
    if (!ok) {
      throw new SyncException("iptables cleanup for " + settings.family() + " did not remove everything; see the"
          + " errors logged above");
    }
  }
}
