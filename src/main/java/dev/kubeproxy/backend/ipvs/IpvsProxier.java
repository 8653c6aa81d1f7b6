package dev.kubeproxy.backend.ipvs;

import dev.kubeproxy.host.CommandRunner;
import dev.kubeproxy.metrics.ProxyMetrics;
import dev.kubeproxy.backend.netfilter.BackendSelector;
import java.time.Clock;
import dev.kubeproxy.logging.Log;
import dev.kubeproxy.net.Cidr;
import dev.kubeproxy.net.IpAddresses;
import dev.kubeproxy.net.IpFamily;
import dev.kubeproxy.model.ProxierSettings;
import dev.kubeproxy.model.ProxyBackend;
import dev.kubeproxy.model.ProxyState;
import dev.kubeproxy.model.SyncResult;
import dev.kubeproxy.backend.netfilter.IptablesTool;
import dev.kubeproxy.backend.netfilter.Sysctls;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The ipvs backend for one family (pkg/proxy/ipvs/proxier.go): each sync computes the whole
 * expected state ({@link IpvsRulesetGenerator}) and brings the kernel to it: virtual and real
 * servers over netlink (a removed real server drains through {@link GracefulTermination}),
 * kube-ipvs0's addresses, the ipsets through one "ipset restore", and the iptables chains through
 * iptables-restore --noflush. Virtual servers of this family that no Service asks for are deleted,
 * except those inside ipvs.excludeCIDRs.
 */
public final class IpvsProxier implements ProxyBackend {
  /** upstream rsCheckDeleteInterval */
  static final Duration GRACEFUL_RETRY_INTERVAL = Duration.ofMinutes(1);

  private final ProxierSettings settings;
  private final IpvsSettings ipvsSettings;
  private final CommandRunner commands;
  private final ProxyMetrics metrics;
  private final Clock clock;
  private final BackendSelector backends;
  private final Sysctls sysctls;
  private final IpvsOpener opener;
  private final IpSetTool ipset;
  private final DummyInterface dummy;
  private final IpvsRulesetGenerator generator;

  private Ipvs ipvs;
  private GracefulTermination graceful;
  private IptablesTool iptables;
  /** Chains, jumps and sets are (re)ensured at the first sync, after a failure and every syncPeriod. */
  private boolean ensureBase = true;
  private Instant lastBaseCheck = Instant.MIN;
  private Instant lastGracefulRetry = Instant.MIN;
  /** upstream initialSync: the first sync resets the weight of real servers left by an earlier run. */
  private boolean initialSync = true;
  private IpvsRuleset lastRuleset;

  /** Opens the IPVS client (the kernel's, or a test's). */
  @FunctionalInterface
  public interface IpvsOpener {
    Ipvs open() throws IOException;
  }

  /** The host's parts an ipvs backend uses: the agent's command runner, metrics, clock and iptables backend choice. */
  public record Host(CommandRunner commands, ProxyMetrics metrics, Clock clock, BackendSelector backends) {}

  public IpvsProxier(ProxierSettings settings, IpvsSettings ipvsSettings, Host host) {
    this(settings, ipvsSettings, host, new Sysctls(), () -> NetlinkIpvs.open(null),
        new IpSetTool(host.commands()), new DummyInterface(host.commands()), null);
  }

  /** With explicit parts, for tests. iptables null: chosen as iptables-wrapper does, at the first sync. */
  public IpvsProxier(ProxierSettings settings, IpvsSettings ipvsSettings, Host host,
      Sysctls sysctls, IpvsOpener opener, IpSetTool ipset, DummyInterface dummy, IptablesTool iptables) {
    this.settings = settings;
    this.ipvsSettings = ipvsSettings;
    this.commands = host.commands();
    this.metrics = host.metrics();
    this.clock = host.clock();
    this.backends = host.backends();
    this.sysctls = sysctls;
    this.opener = opener;
    this.ipset = ipset;
    this.dummy = dummy;
    this.iptables = iptables;
    this.generator = new IpvsRulesetGenerator();
  }

  @Override
  public IpFamily family() {
    return settings.family();
  }

  /** The last ruleset computed (applied or printed). */
  public synchronized IpvsRuleset lastRuleset() {
    return lastRuleset;
  }

  /**
   * upstream NewProxier's sysctls (vs/conntrack, conn_reuse_mode on kernels that need it,
   * expire_nodest_conn, expire_quiescent_template, ip_forward, and with strictARP arp_ignore and
   * arp_announce) and the IPVS timeouts ("ipvsadm --set"; a failure there is logged only).
   */
  @Override
  public synchronized void privilegedInit() throws SyncException {
    if (settings.dryRun()) {
      return;
    }
    ensureSysctl("net/ipv4/vs/conntrack", 1);
    int[] kernel = kernelVersion(System.getProperty("os.version", ""));
    if (kernel != null && less(kernel, 4, 1)) {
      Log.error("Can't set sysctl, kernel version doesn't satisfy minimum version requirements", "sysctl",
          "net/ipv4/vs/conn_reuse_mode", "minimumKernelVersion", "4.1");
    } else if (kernel != null && !less(kernel, 5, 9)) {
      Log.v(2).info("Left as-is", "sysctl", "net/ipv4/vs/conn_reuse_mode"); // the kernel's conn_reuse_mode fix (5.9): pkg/proxy/ipvs/proxier.go NewProxier
    } else {
      ensureSysctl("net/ipv4/vs/conn_reuse_mode", 0);
    }
    ensureSysctl("net/ipv4/vs/expire_nodest_conn", 1);
    ensureSysctl("net/ipv4/vs/expire_quiescent_template", 1);
    ensureSysctl("net/ipv4/ip_forward", 1);
    if (ipvsSettings.strictARP()) {
      ensureSysctl("net/ipv4/conf/all/arp_ignore", 1);
      ensureSysctl("net/ipv4/conf/all/arp_announce", 2);
    }
    if (!ipvsSettings.tcpTimeout().isZero() || !ipvsSettings.tcpFinTimeout().isZero()
        || !ipvsSettings.udpTimeout().isZero()) {
      try {
        ipvs().configureTimeouts(ipvsSettings.tcpTimeout(), ipvsSettings.tcpFinTimeout(), ipvsSettings.udpTimeout());
      } catch (IOException e) {
        Log.error("Failed to configure IPVS timeouts", e);
      }
    }
  }

  /** upstream proxyutil.EnsureSysctl: writes only a different value, and says so. */
  private void ensureSysctl(String name, int value) throws SyncException {
    String current = sysctls.read(name.replace('/', '.'));
    if (current != null && current.equals(Integer.toString(value))) {
      return;
    }
    try {
      sysctls.write(name.replace('/', '.'), Integer.toString(value));
      Log.v(1).info("Changed sysctl", "name", name, "before", current, "after", value);
    } catch (IOException e) {
      throw new SyncException("can't set sysctl " + name + " to " + value + ": " + e.getMessage(), e);
    }
  }

  static int[] kernelVersion(String osVersion) {
    String[] parts = osVersion.split("[.-]");
    try {
      return new int[] {Integer.parseInt(parts[0]), Integer.parseInt(parts[1])};
    } catch (RuntimeException e) {
      return null;
    }
  }

  private static boolean less(int[] v, int major, int minor) {
    return v[0] < major || (v[0] == major && v[1] < minor);
  }

  private Ipvs ipvs() throws IOException {
    if (ipvs == null) {
      ipvs = opener.open();
      graceful = new GracefulTermination(ipvs);
    }
    return ipvs;
  }

  private IptablesTool iptables() {
    if (iptables == null) {
      iptables = new IptablesTool(commands, settings.family(), backends.choose());
    }
    return iptables;
  }

  /**
   * The port's virtual servers, ipset entries and the iptables rules matching those sets, for
   * /debug/services: from the kernel, or in a dry run from the last printed state. Waits for a
   * running sync (the netlink socket is the syncs' own).
   */
  @Override
  public synchronized java.util.Optional<dev.kubeproxy.model.ProgrammedRules> programmedRules(
      dev.kubeproxy.model.ServicePort port, List<dev.kubeproxy.model.Endpoint> endpoints) {
    IpvsRulesReader reader = new IpvsRulesReader(port, endpoints);
    if (settings.dryRun()) {
      return java.util.Optional.of(reader.fromDryRun(lastRuleset));
    }
    try {
      return java.util.Optional.of(reader.fromKernel(ipvs(), ipset, iptables()));
    } catch (IOException e) {
      return java.util.Optional.of(dev.kubeproxy.model.ProgrammedRules.failed("IPVS over netlink", e.getMessage()));
    }
  }

  /** The whole programmed state for a packet tracer ({@link IpvsReadBack}); waits for a running sync, as above. */
  @Override
  public synchronized java.util.Optional<dev.kubeproxy.model.ProgrammedRuleset> programmedRuleset() {
    if (settings.dryRun()) {
      return java.util.Optional.of(IpvsReadBack.fromDryRun(lastRuleset, IpSets.all(settings.family())));
    }
    try {
      return java.util.Optional.of(IpvsReadBack.fromKernel(ipvs(), ipset, iptables(), dummy));
    } catch (IOException e) {
      return java.util.Optional.of(dev.kubeproxy.model.ProgrammedRuleset.unavailable("IPVS over netlink",
          e.getMessage()));
    }
  }

  @Override
  public synchronized SyncResult sync(ProxyState state) throws SyncException {
    if (settings.dryRun()) {
      return dryRun(state);
    }
    try {
      return syncOnce(state);
    } catch (IOException | RuntimeException e) {
      ensureBase = true;
      throw new SyncException("ipvs sync failed: " + e.getMessage(), e);
    }
  }

  private SyncResult syncOnce(ProxyState state) throws IOException, SyncException {
    Instant now = clock.instant();
    Ipvs kernel = ipvs();
    if (Duration.between(lastGracefulRetry, now).compareTo(GRACEFUL_RETRY_INTERVAL) >= 0) {
      graceful.retry(); // upstream runs it every minute on its own; here the periodic syncs carry it
      lastGracefulRetry = now;
    }
    boolean base = ensureBase || Duration.between(lastBaseCheck, now).compareTo(settings.syncPeriod()) >= 0;
    if (base) {
      dummy.ensure();
      StringBuilder create = new StringBuilder();
      for (IpSet set : IpSets.all(settings.family())) {
        create.append(set.createLine()).append('\n');
      }
      ipset.restore(create.toString());
    }

    // This family's addresses only: the other family's proxier owns the rest (upstream's netlink handle per family).
    Set<String> bound = new HashSet<>();
    for (String address : dummy.boundAddresses()) {
      if (IpAddresses.familyOf(address) == settings.family()) {
        bound.add(address);
      }
    }
    IpvsRuleset ruleset = generator.generate(options(state), state);
    lastRuleset = ruleset;

    // Virtual servers and their real servers (upstream syncService and syncEndpoint).
    // upstream binds each service address right after creating its virtual server; one batch does the same.
    Set<String> toBind = new TreeSet<>(ruleset.bindAddresses());
    toBind.removeAll(bound);
    dummy.change(toBind, true);
    Map<String, VirtualServer> current = new HashMap<>();
    for (VirtualServer vs : kernel.virtualServers()) {
      current.put(vs.key(), vs);
    }
    Set<String> active = new HashSet<>();
    for (VirtualServer vs : ruleset.virtualServers().values()) {
      try {
        VirtualServer applied = current.get(vs.key());
        if (applied == null) {
          Log.v(3).info("Adding new service", "serviceName", ruleset.owners().get(vs.key()), "virtualServer", vs);
          kernel.addVirtualServer(vs);
        } else if (!applied.sameAs(vs)) {
          Log.v(3).info("IPVS service was changed", "serviceName", ruleset.owners().get(vs.key()));
          kernel.updateVirtualServer(vs);
        }
        active.add(vs.key());
        syncRealServers(kernel, vs, applied == null ? List.of() : kernel.realServers(vs),
            ruleset.realServers().get(vs.key()));
      } catch (IOException e) {
        Log.error("Failed to sync service", e, "servicePortName", ruleset.owners().get(vs.key()), "virtualServer", vs);
      }
    }

    syncIpSets(ruleset);

    try {
      iptables().restore(ruleset.iptablesRestore(), null); // its chain lines create the chains that are missing
    } catch (IptablesTool.RestoreException e) {
      metrics.incIptablesRestoreFailures(settings.family().name());
      ensureBase = true;
      throw new SyncException("Failed to execute iptables-restore: " + e.getMessage(), e);
    }
    if (base) {
      ensureJumps();
    }

    Set<String> superfluous = new TreeSet<>(bound);
    superfluous.removeAll(ruleset.bindAddresses());
    if (!superfluous.isEmpty()) {
      Log.v(2).info("Removing addresses", "interface", dummy.name(), "addresses", superfluous);
      try {
        dummy.change(superfluous, false);
      } catch (IOException e) {
        Log.error("UnbindAddress", e, "interface", dummy.name(), "addresses", superfluous);
      }
    }
    // upstream cleanLegacyService: this family's virtual servers no Service asks for, outside excludeCIDRs.
    for (VirtualServer vs : kernel.virtualServers()) {
      if (active.contains(vs.key()) || ipvsSettings.excluded(vs.address())
          || IpAddresses.familyOf(vs.address()) != settings.family()) {
        continue;
      }
      Log.v(4).info("Delete service", "virtualServer", vs);
      try {
        kernel.deleteVirtualServer(vs);
      } catch (IOException e) {
        Log.error("Failed to delete service", e, "virtualServer", vs);
      }
    }

    ensureBase = false;
    if (base) {
      lastBaseCheck = now;
    }
    initialSync = false;
    return new SyncResult(true, Map.of("filter", count(ruleset.iptablesRestore(), "*filter"),
        "nat", count(ruleset.iptablesRestore(), "*nat")),
        ruleset.noLocalEndpointsInternal().size(), ruleset.noLocalEndpointsExternal().size());
  }

  /**
   * upstream syncEndpoint: adds the missing real servers (one draining under the same name is
   * deleted first, then added afresh), and drains the ones no endpoint asks for any more.
   */
  private void syncRealServers(Ipvs kernel, VirtualServer vs, List<RealServer> currentList, List<RealServer> wanted)
      throws IOException {
    Map<String, RealServer> current = new HashMap<>();
    currentList.forEach(rs -> current.put(rs.key(), rs));
    Set<String> wantedKeys = new HashSet<>();
    for (RealServer rs : wanted) {
      wantedKeys.add(rs.key());
      RealServer existing = current.get(rs.key());
      if (existing != null) {
        String unique = GracefulTermination.uniqueName(vs, rs);
        if (!graceful.inTerminationList(unique)) {
          if (initialSync && existing.weight() != rs.weight()) {
            kernel.updateRealServer(vs, rs); // left at another weight by an earlier run
          }
          continue;
        }
        Log.v(5).info("new ep is in graceful delete list", "uniqueRealServer", unique);
        graceful.moveOutOfList(unique);
      }
      try {
        kernel.addRealServer(vs, rs);
      } catch (IOException e) {
        Log.error("Failed to add destination", e, "newDest", rs);
      }
    }
    for (RealServer rs : currentList) {
      if (wantedKeys.contains(rs.key()) || graceful.inTerminationList(GracefulTermination.uniqueName(vs, rs))) {
        continue;
      }
      Log.v(5).info("Using graceful delete", "uniqueRealServer", GracefulTermination.uniqueName(vs, rs));
      try {
        graceful.gracefulDelete(vs, rs);
      } catch (IOException e) {
        Log.error("Failed to delete destination", e, "uniqueRealServer", GracefulTermination.uniqueName(vs, rs));
      }
    }
  }

  /** The sets' differences, in one "ipset restore": additions first, then deletions (upstream's order). */
  private void syncIpSets(IpvsRuleset ruleset) throws IOException {
    Map<String, Set<String>> current = ipset.entries("KUBE-");
    StringBuilder adds = new StringBuilder();
    StringBuilder dels = new StringBuilder();
    ruleset.ipsetEntries().forEach((name, wanted) -> {
      Set<String> have = current.getOrDefault(name, Set.of());
      for (String entry : wanted) {
        if (!have.contains(entry)) {
          adds.append("add ").append(name).append(' ').append(entry).append('\n');
        }
      }
      for (String entry : have) {
        if (!wanted.contains(entry)) {
          dels.append("del ").append(name).append(' ').append(entry).append('\n');
        }
      }
    });
    ipset.restore(adds.toString() + dels);
  }

  /**
   * upstream createAndLinkKubeChain's jumps from the built-in chains (its chains are the restore
   * input's); one iptables-save tells which are missing.
   */
  private void ensureJumps() throws IOException {
    IptablesTool t = iptables();
    Map<String, String> tables = IptablesTool.tablesOf(t.save(null));
    for (IpvsRulesetGenerator.Jump jump : IpvsRulesetGenerator.JUMPS) {
      String line = "-A " + jump.from() + " -m comment --comment \"" + jump.comment() + "\" -j " + jump.to();
      if (!tables.getOrDefault(jump.table(), "").contains(line + "\n")) {
        t.ensureRuleAtTop(jump.table(), jump.from(), jump.args());
      }
    }
  }

  private IpvsRulesetOptions options(ProxyState state) throws IOException {
    Set<String> nodeAddresses = nodeAddresses(dummy.otherLocalAddresses(), settings.family());
    boolean hasNodePort = state.services().values().stream().anyMatch(s -> s.nodePort() != 0);
    List<String> nodePortIPs = new ArrayList<>();
    if (hasNodePort) {
      if (settings.nodePortAddresses().isEmpty()) {
        nodePortIPs.addAll(new TreeSet<>(nodeAddresses));
      } else {
        List<Cidr> cidrs = settings.nodePortAddresses().stream().map(Cidr::parse).toList();
        for (String ip : new TreeSet<>(nodeAddresses)) {
          if (cidrs.stream().anyMatch(c -> c.contains(ip))) {
            nodePortIPs.add(ip);
          }
        }
      }
    }
    boolean randomFully = iptables == null || iptables.supportsRandomFully();
    return new IpvsRulesetOptions(settings.family(), ipvsSettings.scheduler(), settings.masqueradeAll(),
        settings.masqueradeMark(), settings.localDetector(), randomFully,
        settings.nodeIPs().isEmpty() ? null : settings.nodeIPs().get(0), nodePortIPs, nodeAddresses);
  }

  /**
   * upstream GetAllLocalAddressesExcept's filter (isValidForSet): this family's addresses, without
   * loopback and IPv6 link-local ones.
   */
  static Set<String> nodeAddresses(Set<String> addresses, IpFamily family) {
    Set<String> out = new LinkedHashSet<>();
    for (String ip : addresses) {
      byte[] b = IpAddresses.parse(ip);
      if (b == null || IpAddresses.familyOf(ip) != family || IpAddresses.isLoopback(ip)) {
        continue;
      }
      if (b.length == 16 && (b[0] & 0xff) == 0xfe && (b[1] & 0xc0) == 0x80) {
        continue;
      }
      out.add(ip);
    }
    return out;
  }

  private SyncResult dryRun(ProxyState state) {
    Set<String> nodeAddresses;
    try {
      nodeAddresses = nodeAddresses(dummy.otherLocalAddresses(), settings.family());
    } catch (IOException e) {
      Log.error("Error listing node addresses", e);
      nodeAddresses = Set.of();
    }
    boolean hasNodePort = state.services().values().stream().anyMatch(s -> s.nodePort() != 0);
    List<String> nodePortIPs = hasNodePort ? new ArrayList<>(new TreeSet<>(nodeAddresses)) : List.of();
    IpvsRulesetOptions o = new IpvsRulesetOptions(settings.family(), ipvsSettings.scheduler(), settings.masqueradeAll(),
        settings.masqueradeMark(), settings.localDetector(), true,
        settings.nodeIPs().isEmpty() ? null : settings.nodeIPs().get(0), nodePortIPs, nodeAddresses);
    IpvsRuleset ruleset = generator.generate(o, state);
    synchronized (this) {
      lastRuleset = ruleset;
    }
    settings.dryRunOutput().print("# ipvs mode, " + settings.family() + " (dry run, nothing applied)\n");
    settings.dryRunOutput().print(ruleset.describe());
    settings.dryRunOutput().flush();
    return new SyncResult(true, Map.of(), ruleset.noLocalEndpointsInternal().size(),
        ruleset.noLocalEndpointsExternal().size());
  }

  private static int count(String restore, String table) {
    int n = 0;
    boolean in = false;
    for (String line : restore.split("\n")) {
      if (line.startsWith("*")) {
        in = line.equals(table);
      } else if (in && line.startsWith("-A ")) {
        n++;
      }
    }
    return n;
  }

  /** upstream cleanupLeftovers for this family ({@link IpvsCleanup}). */
  @Override
  public synchronized void cleanup() throws SyncException {
    IpvsCleanup.cleanup(settings.family(), this::ipvs, dummy, ipset, commands);
  }
}
