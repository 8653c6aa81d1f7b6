package dev.kubeproxy.backend.ipvs;

import dev.kubeproxy.backend.netfilter.BackendSelector;
import dev.kubeproxy.backend.netfilter.IptablesTool;
import dev.kubeproxy.backend.netfilter.Sysctls;
import dev.kubeproxy.host.CommandRunner;
import dev.kubeproxy.logging.Log;
import dev.kubeproxy.metrics.ProxyMetrics;
import dev.kubeproxy.model.Endpoint;
import dev.kubeproxy.model.ProgrammedRules;
import dev.kubeproxy.model.ProgrammedRuleset;
import dev.kubeproxy.model.ProxierSettings;
import dev.kubeproxy.model.ProxyBackend;
import dev.kubeproxy.model.ProxyState;
import dev.kubeproxy.model.ServicePort;
import dev.kubeproxy.model.SyncResult;
import dev.kubeproxy.net.IpFamily;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The ipvs backend for one family (pkg/proxy/ipvs/proxier.go): each sync computes the whole
 * expected state ({@link IpvsRulesetGenerator}) and brings the kernel to it, in upstream's order:
 * kube-ipvs0's addresses ({@link AddressBinding}), the virtual and real servers over netlink
 * ({@link ServerSync}), then the ipsets and iptables chains ({@link IpvsNetfilterRules}); at the
 * end the addresses and virtual servers no Service asks for are removed.
 */
public final class IpvsProxier implements ProxyBackend {
  private final ProxierSettings settings;
  private final IpvsSettings ipvsSettings;
  private final CommandRunner commands;
  private final Clock clock;
  private final IpvsOpener opener;
  private final IpvsSysctls sysctls;
  private final DummyInterface dummy;
  private final AddressBinding addresses;
  private final IpvsNetfilterRules netfilter;
  private final IpvsRulesetGenerator generator = new IpvsRulesetGenerator();

  private Ipvs ipvs;
  /** Made with the IPVS client, at its first use. */
  private ServerSync servers;
  /** Chains, jumps and sets are (re)ensured at the first sync, after a failure and every syncPeriod. */
  private boolean ensureBase = true;
  private Instant lastBaseCheck = Instant.MIN;
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
    this.clock = host.clock();
    this.opener = opener;
    this.sysctls = new IpvsSysctls(sysctls);
    this.dummy = dummy;
    this.addresses = new AddressBinding(dummy, settings.family());
    this.netfilter = new IpvsNetfilterRules(settings.family(), ipset, iptables, host.commands(), host.backends(),
        host.metrics());
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
   * upstream NewProxier's sysctls ({@link IpvsSysctls}) and the IPVS timeouts ("ipvsadm --set"; a
   * failure there is logged only).
   */
  @Override
  public synchronized void privilegedInit() throws SyncException {
    if (settings.dryRun()) {
      return;
    }
    sysctls.apply(ipvsSettings.strictARP(), System.getProperty("os.version", ""));
    if (!ipvsSettings.tcpTimeout().isZero() || !ipvsSettings.tcpFinTimeout().isZero()
        || !ipvsSettings.udpTimeout().isZero()) {
      try {
        ipvs().configureTimeouts(ipvsSettings.tcpTimeout(), ipvsSettings.tcpFinTimeout(), ipvsSettings.udpTimeout());
      } catch (IOException e) {
        Log.error("Failed to configure IPVS timeouts", e);
      }
    }
  }

  private Ipvs ipvs() throws IOException {
    if (ipvs == null) {
      ipvs = opener.open();
      servers = new ServerSync(ipvs, ipvsSettings, settings.family());
    }
    return ipvs;
  }

  /**
   * The port's virtual servers, ipset entries and the iptables rules matching those sets, for
   * /debug/services: from the kernel, or in a dry run from the last printed state. Waits for a
   * running sync (the netlink socket is the syncs' own).
   */
  @Override
  public synchronized Optional<ProgrammedRules> programmedRules(ServicePort port, List<Endpoint> endpoints) {
    IpvsRulesReader reader = new IpvsRulesReader(port, endpoints);
    if (settings.dryRun()) {
      return Optional.of(reader.fromDryRun(lastRuleset));
    }
    try {
      return Optional.of(reader.fromKernel(ipvs(), netfilter.ipset(), netfilter.iptables()));
    } catch (IOException e) {
      return Optional.of(ProgrammedRules.failed("IPVS over netlink", e.getMessage()));
    }
  }

  /** The whole programmed state for a packet tracer ({@link IpvsReadBack}); waits for a running sync, as above. */
  @Override
  public synchronized Optional<ProgrammedRuleset> programmedRuleset() {
    if (settings.dryRun()) {
      return Optional.of(IpvsReadBack.fromDryRun(lastRuleset, IpSets.all(settings.family())));
    }
    try {
      return Optional.of(IpvsReadBack.fromKernel(ipvs(), netfilter.ipset(), netfilter.iptables(), dummy));
    } catch (IOException e) {
      return Optional.of(ProgrammedRuleset.unavailable("IPVS over netlink", e.getMessage()));
    }
  }

  @Override
  public synchronized SyncResult sync(ProxyState state) throws SyncException {
    if (settings.dryRun()) {
      return dryRun(state);
    }
    try {
      return syncOnce(state);
    } catch (SyncException e) {
      ensureBase = true;
      throw e;
    } catch (IOException | RuntimeException e) {
      ensureBase = true;
      throw new SyncException("ipvs sync failed: " + e.getMessage(), e);
    }
  }

  private SyncResult syncOnce(ProxyState state) throws IOException, SyncException {
    Instant now = clock.instant();
    ipvs();
    servers.retryDrainingIfDue(now);
    boolean base = ensureBase || Duration.between(lastBaseCheck, now).compareTo(settings.syncPeriod()) >= 0;
    if (base) {
      dummy.ensure();
      netfilter.createSets();
    }
    Set<String> bound = addresses.bound();
    Set<String> nodeAddresses = NodeAddresses.of(dummy.otherLocalAddresses(), settings.family());
    IpvsRuleset ruleset = generator.generate(options(state, nodeAddresses, settings.nodePortAddresses(),
        netfilter.randomFully()), state);
    lastRuleset = ruleset;

    addresses.bindMissing(ruleset.bindAddresses(), bound);
    Set<String> active = servers.apply(ruleset);
    netfilter.syncSets(ruleset);
    netfilter.restoreChains(ruleset);
    if (base) {
      netfilter.ensureJumps();
    }
    addresses.unbindUnwanted(ruleset.bindAddresses(), bound);
    servers.deleteUnused(active);

    ensureBase = false;
    if (base) {
      lastBaseCheck = now;
    }
    return new SyncResult(true, Map.of("filter", ruleset.rulesIn("filter"), "nat", ruleset.rulesIn("nat")),
        ruleset.noLocalEndpointsInternal().size(), ruleset.noLocalEndpointsExternal().size());
  }

  /** The ruleset's inputs beside the model: the configuration and the node's addresses. */
  private IpvsRulesetOptions options(ProxyState state, Set<String> nodeAddresses, List<String> nodePortAddresses,
      boolean randomFully) {
    boolean hasNodePort = state.services().values().stream().anyMatch(s -> s.nodePort() != 0);
    List<String> nodePortIPs = hasNodePort ? NodeAddresses.forNodePorts(nodeAddresses, nodePortAddresses) : List.of();
    return new IpvsRulesetOptions(settings.family(), ipvsSettings.scheduler(), settings.masqueradeAll(),
        settings.masqueradeMark(), settings.localDetector(), randomFully,
        settings.nodeIPs().isEmpty() ? null : settings.nodeIPs().get(0), nodePortIPs, nodeAddresses);
  }

  /** Prints the ruleset instead of applying it; NodePorts listen on every node address. */
  private SyncResult dryRun(ProxyState state) {
    Set<String> nodeAddresses;
    try {
      nodeAddresses = NodeAddresses.of(dummy.otherLocalAddresses(), settings.family());
    } catch (IOException e) {
      Log.error("Error listing node addresses", e);
      nodeAddresses = Set.of();
    }
    IpvsRuleset ruleset = generator.generate(options(state, nodeAddresses, List.of(), true), state);
    lastRuleset = ruleset;
    settings.dryRunOutput().print("# ipvs mode, " + settings.family() + " (dry run, nothing applied)\n");
    settings.dryRunOutput().print(ruleset.describe());
    settings.dryRunOutput().flush();
    return new SyncResult(true, Map.of(), ruleset.noLocalEndpointsInternal().size(),
        ruleset.noLocalEndpointsExternal().size());
  }

  /** upstream cleanupLeftovers for this family ({@link IpvsCleanup}). */
  @Override
  public synchronized void cleanup() throws SyncException {
    IpvsCleanup.cleanup(settings.family(), this::ipvs, dummy, netfilter.ipset(), commands);
  }
}
