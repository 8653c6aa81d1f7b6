package dev.kubeproxy.proxy.iptables;

import dev.kubeproxy.logging.Log;
import dev.kubeproxy.platform.Cidr;
import static dev.kubeproxy.proxy.iptables.ChainNames.KUBE_PROXY_CANARY;

import dev.kubeproxy.metrics.ProxyMetrics;
import dev.kubeproxy.platform.CommandRunner;
import dev.kubeproxy.proxy.IpFamily;
import dev.kubeproxy.proxy.ProxierSettings;
import dev.kubeproxy.proxy.ProxyBackend;
import dev.kubeproxy.proxy.ProxyState;
import dev.kubeproxy.proxy.RefusedServicePorts;
import dev.kubeproxy.proxy.ServicePortName;
import dev.kubeproxy.proxy.SyncResult;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.function.Supplier;

/**
 * The iptables backend for one family (iptables.md): full and partial syncs through
 * iptables-restore --noflush --counters, jump rules at full syncs, stale-chain deletion, the canary
 * check (done at the start of every partial sync: a missing mangle canary forces a full sync), cleanup,
 * and --dry-run (print the restore input, touch nothing). A sync is full at start, after a failure,
 * after a node-label change, when the canary is gone, and once per syncPeriod (not in large clusters).
 */
public class IptablesProxier implements ProxyBackend {
  private static final List<String> CANARY_TABLES = List.of("mangle", "nat", "filter");

  private final ProxierSettings settings;
  private final CommandRunner runner;
  private final Sysctls sysctls;
  private final Supplier<List<String>> interfaceAddresses;
  private final RulesetGenerator generator = new RulesetGenerator();
  private final RulesMonitor monitor = new RulesMonitor();
  private final RefusedServicePorts refused = new RefusedServicePorts("iptables-restore");
  /** A bound on the restores one sync may try while it leaves refused Services out. */
  static final int MAX_REFUSED_PER_SYNC = 8;
  private final ProxyMetrics metrics = ProxyMetrics.global();
  private final boolean localhostNodePorts;

  private final Callable<NfacctCounters> nfacctOpener;
  private NfacctCounters nfacct;
  private boolean nfacctTried;
  /** The nfacct counters that exist, as found at the last full sync; their rules count packets. */
  private Set<String> nfacctCounters = Set.of();

  private IptablesTool tool;
  private Boolean conntrackTcpLiberal;
  private boolean needFullSync = true;
  /** Whether the last restore tried was a full one (only a full one's refusal is blamed on a Service). */
  private boolean lastAttemptFull;
  /** Whether the last restore tried was the generated ruleset (not the jump rules' or canaries' input). */
  private boolean restoreOfRuleset;
  private boolean canariesCreated;
  /** Service chains of the last applied ruleset: any of them not active any more is deleted. */
  private Set<String> appliedChains = Set.of();
  private long lastStaleScanNanos;
  private long lastFullSyncNanos;
  private boolean staleScanDone;
  private Ruleset lastRuleset;
  private SyncTimings lastTimings;

  /**
   * Where the time of the last successful sync went: the agent's own work (generating the input)
   * versus the tools (iptables-restore; jump-rule, canary and save commands).
   */
  public record SyncTimings(
      long generateNanos, long generateCpuNanos, long restoreNanos, long otherCommandsNanos, long totalNanos) {}

  private static final java.lang.management.ThreadMXBean THREADS =
      java.lang.management.ManagementFactory.getThreadMXBean();

  public IptablesProxier(ProxierSettings settings, CommandRunner runner) {
    this(settings, runner, new Sysctls(), NodeAddresses.ofInterfaces(), null, () -> NfacctCounters.open(null));
  }

  /**
   * With explicit sysctl root, interface-address source and backend (null = choose as
   * iptables-wrapper does): for tests and the benchmark, which run commands in a scratch namespace.
   * No nfacct counters (they would be created in the test process's own namespace).
   */
  public IptablesProxier(
      ProxierSettings settings, CommandRunner runner, Sysctls sysctls,
      Supplier<List<String>> interfaceAddresses, IptablesBackend backend) {
    this(settings, runner, sysctls, interfaceAddresses, backend, null);
  }

  /**
   * @param nfacct opens the nfacct client (in the namespace the rules go to) at the first full sync;
   *               null: no nfacct, the rules are written without their counters
   */
  public IptablesProxier(
      ProxierSettings settings, CommandRunner runner, Sysctls sysctls,
      Supplier<List<String>> interfaceAddresses, IptablesBackend backend, Callable<NfacctCounters> nfacct) {
    this.nfacctOpener = nfacct;
    this.settings = settings;
    this.runner = runner;
    this.sysctls = sysctls;
    this.interfaceAddresses = interfaceAddresses;
    this.localhostNodePorts = settings.family() == IpFamily.IPv4 && settings.localhostNodePorts()
        && containsIPv4Loopback(settings.nodePortAddresses());
    if (backend != null) {
      this.tool = new IptablesTool(runner, settings.family(), backend);
    }
  }

  @Override
  public IpFamily family() {
    return settings.family();
  }

  /** The iptables tool in use (iptables-legacy, ip6tables-nft, ...); chooses the backend on first use. */
  public synchronized IptablesTool tool() {
    if (tool == null) {
      tool = new IptablesTool(runner, settings.family(), BackendSelector.choose(runner));
    }
    return tool;
  }

  /** The last ruleset generated (applied or printed), for diagnostics and tests. */
  public Ruleset lastRuleset() {
    return lastRuleset;
  }

  /** Timings of the last successful sync (null before the first). */
  public SyncTimings lastTimings() {
    return lastTimings;
  }

  /** Whether the next sync will be a full one. */
  public boolean needsFullSync() {
    return needFullSync;
  }

  @Override
  public void privilegedInit() throws SyncException {
    if (settings.dryRun()) {
      return;
    }
    if (localhostNodePorts) {
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
   * Syncs; a failed partial sync is retried at once as a full one. When iptables-restore refuses,
   * in a full sync, a line that one Service's rules hold, that Service is left
   * out (logged with the line) and the others are synced again at once, up to
   * {@link #MAX_REFUSED_PER_SYNC} Services per sync. A left-out Service is tried again once its
   * ports or endpoints change.
   */
  @Override
  public synchronized SyncResult sync(ProxyState state) throws SyncException {
    ProxyState effective = refused.filter(state);
    for (int attempt = 0; ; attempt++) {
      try {
        return syncOnce(effective);
      } catch (SyncException e) {
        if (!(e.getCause() instanceof IptablesTool.RestoreException) || attempt >= MAX_REFUSED_PER_SYNC) {
          throw e;
        }
        if (!lastAttemptFull) {
          // A partial restore can fail for reasons outside its own lines (a chain deleted behind our back):
          // blame nobody, retry at once as a full sync.
          continue;
        }
        ServicePortName culprit = !restoreOfRuleset || lastRuleset == null ? null
            : lastRuleset.serviceAtLine(((IptablesTool.RestoreException) e.getCause()).lineNumber());
        if (culprit == null) {
          throw e;
        }
        IptablesTool.RestoreException re = (IptablesTool.RestoreException) e.getCause();
        Log.error("iptables-restore refused the rules of this Service; leaving it out and programming every other one;"
            + " it is tried again when it changes", "service", culprit.service(), "servicePort", culprit,
            "refusedLine", re.failingLine());
        for (ServicePortName port : state.services().keySet()) {
          if (port.service().equals(culprit.service())) {
            refused.add(state, port); // the whole Service: a bad field (a name, an IP) is usually all its ports'
          }
        }
        effective = refused.filter(state);
      }
    }
  }

  @Override
  public synchronized List<ServicePortName> takeRefusedServicePorts() {
    return refused.takeUnreported();
  }

  private SyncResult syncOnce(ProxyState state) throws SyncException {
    long start = System.nanoTime();
    restoreOfRuleset = false;
    if (settings.dryRun()) {
      return dryRun(state);
    }
    IptablesTool t = tool();
    boolean full = needFullSync;
    if (state.fullSyncRequested()) {
      full = true;
    }
    boolean large = RulesetGenerator.largeClusterMode(state);
    if (!full && !large && System.nanoTime() - lastFullSyncNanos >= settings.syncPeriod().toNanos()) {
      // A full sync every syncPeriod repairs anything a partial sync cannot see. Large clusters skip it,
      // as upstream does since it became too costly there (#138571): a full restore takes seconds.
      full = true;
    }
    boolean tryPartial = !full;
    lastAttemptFull = full;
    try {
      if (!full && canariesCreated && canaryMissing(t)) {
        Log.warn("iptables canary was deleted (tables flushed by something else); forcing a full resync",
            "chain", KUBE_PROXY_CANARY);
        full = true;
        lastAttemptFull = true;
      }
      Set<String> known = new HashSet<>(appliedChains);
      if (full) {
        // One iptables-save of every existing table tells which chains and jump rules are there already,
        // so only the missing ones cost a command; its nat part also finds stale chains.
        Map<String, String> tables = null;
        try {
          tables = IptablesTool.tablesOf(t.save(null));
        } catch (IOException e) {
          Log.error("Failed to execute iptables-save: stale chains will not be deleted", e);
        }
        ensureJumpRulesAndCanaries(t, tables);
        ensureNfacctCounters();
        if (tables != null) {
          known.addAll(IptablesTool.chainsOf(tables.getOrDefault("nat", "")));
          staleScanDone = true;
          lastStaleScanNanos = System.nanoTime();
        }
      } else if (!large || !staleScanDone
          || System.nanoTime() - lastStaleScanNanos > settings.syncPeriod().toNanos()) {
        try {
          known.addAll(IptablesTool.chainsOf(t.save("nat")));
          staleScanDone = true;
          lastStaleScanNanos = System.nanoTime();
        } catch (IOException e) {
          Log.error("Failed to execute iptables-save: stale chains will not be deleted", e);
        }
      }
      long generateStart = System.nanoTime();
      long generateCpuStart = THREADS.getCurrentThreadCpuTime();
      Ruleset ruleset = generator.generate(options(t), state, full, known);
      lastRuleset = ruleset;
      long generateCpu = THREADS.getCurrentThreadCpuTime() - generateCpuStart;
      long restoreStart = System.nanoTime();
      restoreOfRuleset = true;
      t.restore(ruleset.payload(), null);
      long end = System.nanoTime();
      lastTimings = new SyncTimings(restoreStart - generateStart, generateCpu, end - restoreStart,
          generateStart - start, end - start);
      Log.v(2).info("iptables sync", "kind", tryPartial ? "partial" : "full", "bytes", ruleset.payload().length(),
          "generate", Duration.ofNanos(lastTimings.generateNanos()), "restore",
          Duration.ofNanos(lastTimings.restoreNanos()));

      needFullSync = false;
      if (full) {
        lastFullSyncNanos = start;
      }
      appliedChains = ruleset.activeNatChains();
      monitor.applied(ruleset.payload());
      metrics.setIptablesRulesTotal(settings.family().name(), "filter", ruleset.filterRules());
      metrics.setIptablesRulesLast(settings.family().name(), "filter", ruleset.filterRules());
      metrics.setIptablesRulesTotal(settings.family().name(), "nat", ruleset.natRulesTotal());
      metrics.setIptablesRulesLast(settings.family().name(), "nat", ruleset.natRulesLast());
      return new SyncResult(full, Map.of("filter", ruleset.filterRules(), "nat", ruleset.natRulesTotal()),
          ruleset.noLocalEndpointsInternal(), ruleset.noLocalEndpointsExternal());
    } catch (IptablesTool.RestoreException e) {
      needFullSync = true;
      metrics.incIptablesRestoreFailures(settings.family().name());
      if (tryPartial) {
        metrics.incIptablesPartialRestoreFailures(settings.family().name());
      }
      // logged once, by the caller that handles it (FamilyProxier)
      throw new SyncException("Failed to execute iptables-restore (" + (full ? "full" : "partial")
          + " sync); the previous rules stay in place and a full sync follows: " + e.getMessage(), e);
    } catch (IOException | RuntimeException e) {
      needFullSync = true;
      throw new SyncException("iptables sync failed: " + e.getMessage(), e);
    } finally {
      Duration took = Duration.ofNanos(System.nanoTime() - start);
      if (tryPartial) {
        metrics.observePartialSyncDuration(settings.family().name(), took);
      } else {
        metrics.observeFullSyncDuration(settings.family().name(), took);
      }
    }
  }

  private SyncResult dryRun(ProxyState state) {
    IptablesTool probe = new IptablesTool(runner, settings.family(), IptablesBackend.LEGACY);
    int[] version = probe.version();
    boolean randomFully = version == null || probe.supportsRandomFully();
    Ruleset ruleset = generator.generate(options(randomFully), state, true, null);
    lastRuleset = ruleset;
    settings.dryRunOutput().print("# " + (settings.family() == IpFamily.IPv6 ? "ip6tables" : "iptables")
        + "-restore --noflush --counters input (dry run, nothing applied)\n");
    settings.dryRunOutput().print(ruleset.payload());
    settings.dryRunOutput().flush();
    return new SyncResult(true, Map.of("filter", ruleset.filterRules(), "nat", ruleset.natRulesTotal()),
        ruleset.noLocalEndpointsInternal(), ruleset.noLocalEndpointsExternal());
  }

  RulesetOptions options(IptablesTool t) {
    return options(t.supportsRandomFully()).withNfacctCounters(nfacctCounters);
  }

  /**
   * Full syncs only (upstream 1.31 syncProxyRules): make sure each counter exists; a counter that
   * cannot be created just loses its metric, and its rule is written without "-m nfacct".
   */
  private void ensureNfacctCounters() {
    if (!nfacctTried) {
      nfacctTried = true;
      if (nfacctOpener != null) {
        try {
          nfacct = nfacctOpener.call();
        } catch (Exception e) {
          Log.error("Failed to create nfacct runner, nfacct based metrics won't be available", "err", e.getMessage());
        }
      }
    }
    if (nfacct == null) {
      return;
    }
    Set<String> ensured = new HashSet<>();
    for (String counter : List.of(NfacctCounters.CT_STATE_INVALID_DROPPED, NfacctCounters.LOCALHOST_NODEPORT_ACCEPTED)) {
      try {
        nfacct.ensure(counter);
        ensured.add(counter);
      } catch (IOException | RuntimeException e) {
        Log.error("Failed to create nfacct counter; the corresponding metric will not be updated", "counter", counter,
            "err", e.getMessage());
      }
    }
    nfacctCounters = Set.copyOf(ensured);
  }

  private RulesetOptions options(boolean randomFully) {
    boolean matchAll = matchesAll(settings.nodePortAddresses());
    List<String> nodePortIPs = matchAll ? List.of() : nodePortIPs();
    return new RulesetOptions(settings.family(), settings.masqueradeMark(), settings.masqueradeAll(),
        localhostNodePorts, settings.localDetector(), randomFully, conntrackTcpLiberal(), matchAll, nodePortIPs,
        settings.nodeIPs());
  }

  /** The node's addresses inside nodePortAddresses (loopback only where localhost NodePorts work). */
  private List<String> nodePortIPs() {
    List<Cidr> cidrs = new ArrayList<>();
    for (String cidr : settings.nodePortAddresses()) {
      cidrs.add(Cidr.parse(cidr));
    }
    Set<String> out = new LinkedHashSet<>();
    List<String> addresses;
    try {
      addresses = interfaceAddresses.get();
    } catch (RuntimeException e) {
      Log.error("Failed to get node ip address matching nodeport cidrs, services with nodeport may not work "
          + "as intended", e);
      return List.of();
    }
    for (String ip : addresses) {
      if (NodeAddresses.familyOf(ip) != settings.family()) {
        continue;
      }
      boolean inside = false;
      for (Cidr cidr : cidrs) {
        inside |= cidr.contains(ip);
      }
      if (!inside) {
        continue;
      }
      if (NodeAddresses.isLoopback(ip)) {
        if (settings.family() == IpFamily.IPv6) {
          Log.error("--nodeport-addresses includes localhost but localhost NodePorts are not supported on IPv6",
              "address", ip);
          continue;
        } else if (!localhostNodePorts) {
          Log.error("--nodeport-addresses includes localhost but --iptables-localhost-nodeports=false was passed",
              "address", ip);
          continue;
        }
      }
      out.add(ip);
    }
    return new ArrayList<>(out);
  }

  static boolean matchesAll(List<String> nodePortAddresses) {
    if (nodePortAddresses.isEmpty()) {
      return true;
    }
    for (String cidr : nodePortAddresses) {
      if (Cidr.parse(cidr).matchesAll()) {
        return true;
      }
    }
    return false;
  }

  static boolean containsIPv4Loopback(List<String> nodePortAddresses) {
    if (nodePortAddresses.isEmpty()) {
      return true;
    }
    boolean anyIPv4 = false;
    for (String text : nodePortAddresses) {
      if (text.indexOf(':') >= 0) {
        continue;
      }
      anyIPv4 = true;
      Cidr cidr = Cidr.parse(text);
      if ((cidr.network()[0] & 0xff) == 127 || cidr.contains("127.0.0.0")) {
        return true;
      }
    }
    return !anyIPv4;
  }

  /**
   * Jump rules of §5 and the canary chains. With the current iptables-save (tables), everything missing
   * is added in one small iptables-restore (-I inserts at the top, in upstream's order, so the result is
   * the same as upstream's one command per rule); without it (save failed), one command per item.
   */
  private void ensureJumpRulesAndCanaries(IptablesTool t, Map<String, String> tables)
      throws IOException, IptablesTool.RestoreException {
    List<JumpRule> all = new ArrayList<>(JumpRule.KUBE_PROXY);
    all.addAll(JumpRule.KUBELET);
    if (tables == null) {
      Set<String> ensured = new HashSet<>();
      for (JumpRule jump : all) {
        if (ensured.add(jump.table() + "/" + jump.target())) {
          t.ensureChain(jump.table(), jump.target());
        }
        t.ensureRuleAtTop(jump.table(), jump.builtin(), jump.ruleArgs());
      }
      ensureCanaries(t);
      return;
    }
    Map<String, StringBuilder> chainLines = new java.util.LinkedHashMap<>();
    Map<String, StringBuilder> ruleLines = new HashMap<>();
    Map<String, Set<String>> declared = new HashMap<>();
    for (JumpRule jump : all) {
      String dump = "\n" + tables.getOrDefault(jump.table(), "");
      Set<String> existing = IptablesTool.chainsOf(dump.substring(1));
      if (!existing.contains(jump.target())
          && declared.computeIfAbsent(jump.table(), k -> new HashSet<>()).add(jump.target())) {
        chainLines.computeIfAbsent(jump.table(), k -> new StringBuilder())
            .append(':').append(jump.target()).append(" - [0:0]\n");
      }
      if (!dump.contains("\n" + jump.saveLine() + "\n")) {
        chainLines.computeIfAbsent(jump.table(), k -> new StringBuilder());
        ruleLines.computeIfAbsent(jump.table(), k -> new StringBuilder())
            .append(jump.saveLine().replaceFirst("^-A ", "-I ")).append('\n');
      }
    }
    for (String table : CANARY_TABLES) {
      if (!IptablesTool.chainsOf(tables.getOrDefault(table, "")).contains(KUBE_PROXY_CANARY)) {
        chainLines.computeIfAbsent(table, k -> new StringBuilder())
            .append(':').append(KUBE_PROXY_CANARY).append(" - [0:0]\n");
      }
    }
    if (!chainLines.isEmpty()) {
      StringBuilder input = new StringBuilder();
      for (Map.Entry<String, StringBuilder> table : chainLines.entrySet()) {
        input.append('*').append(table.getKey()).append('\n').append(table.getValue());
        input.append(ruleLines.getOrDefault(table.getKey(), new StringBuilder())).append("COMMIT\n");
      }
      t.restore(input.toString(), null);
    }
    canariesCreated = true;
  }

  private void ensureCanaries(IptablesTool t) {
    try {
      for (String table : CANARY_TABLES) {
        t.ensureChain(table, KUBE_PROXY_CANARY);
      }
      canariesCreated = true;
    } catch (IOException e) {
      Log.warn("Could not create the iptables canary chains (will retry)", "err", e);
    }
  }

  private boolean canaryMissing(IptablesTool t) throws IOException {
    return !t.chainExists("mangle", KUBE_PROXY_CANARY);
  }

  @Override
  public synchronized boolean rulesDisturbed() {
    if (settings.dryRun() || !monitor.armed()) {
      return false;
    }
    try {
      String problem = monitor.check(tool());
      if (problem == null) {
        return false;
      }
      Log.warn("iptables rules were changed by something else; forcing a full resync", "ipFamily", settings.family(),
          "change", problem);
      needFullSync = true;
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
      ok &= IptablesCleanup.cleanup(new IptablesTool(runner, settings.family(), backend));
    }
    needFullSync = true;
    appliedChains = Set.of();
    canariesCreated = false;
    monitor.reset();
    if (!ok) {
      throw new SyncException("iptables cleanup for " + settings.family() + " did not remove everything; see the"
          + " errors logged above");
    }
  }
}
