package dev.kubeproxy.runtime;


import dev.kubeproxy.model.LocalTrafficDetector;
import dev.kubeproxy.model.ProxierSettings;
import dev.kubeproxy.model.ProxyBackend;
import dev.kubeproxy.net.IpFamily;

import dev.kubeproxy.logging.Log;
import dev.kubeproxy.net.IpAddresses;
import dev.kubeproxy.config.AgentOptions;
import dev.kubeproxy.messages.NodeInfo;
import dev.kubeproxy.config.FeatureGates;
import dev.kubeproxy.config.KubeProxyConfiguration;
import dev.kubeproxy.config.ProxyMode;
import dev.kubeproxy.config.SyncSettings;
import dev.kubeproxy.host.CommandRunner;
import dev.kubeproxy.host.Ipv6Support;
import dev.kubeproxy.metrics.ProxyMetrics;
import dev.kubeproxy.backend.iptables.IptablesProxier;
import dev.kubeproxy.backend.iptables.NfacctCounters;
import dev.kubeproxy.backend.nftables.CommitGenerations;
import dev.kubeproxy.backend.nftables.NftablesProxier;
import dev.kubeproxy.runtime.AgentContext;
import dev.kubeproxy.backend.ipvs.IpSetTool;
import dev.kubeproxy.backend.ipvs.IpvsProxier;
import dev.kubeproxy.backend.ipvs.IpvsSettings;
import dev.kubeproxy.backend.ipvs.IpvsSupport;
import dev.kubeproxy.backend.ipvs.NetlinkIpvs;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Builds the backends of the configured mode, one per active family (cmd/kube-proxy/app/server_linux.go createProxier),
 * and removes the leftovers of the modes not in use (cmd/kube-proxy/app/server_linux.go cleanupLeftovers).
 */
public final class Proxiers {
  private Proxiers() {}


  /** The configured mode; validation has refused any other spelling before the proxier is built. */
  public static ProxyMode mode(KubeProxyConfiguration config) {
    String configured = config.mode == null ? "" : config.mode;
    return ProxyMode.parse(configured).orElseThrow(() -> new ProxierCreationException(
        "unknown proxy mode \"" + configured + "\"; use iptables, ipvs or nftables"));
  }

  /** A proxier that cannot be built: the agent must stop with this message. */
  public static final class ProxierCreationException extends RuntimeException {
    public ProxierCreationException(String message) {
      super(message);
    }
  }

  /**
   * One backend per family the node runs (dual-stack: both, primary first), in the configured
   * mode. Blocking (probes iptables, except in a dry run): call it on a worker.
   *
   * @throws ProxierCreationException ipvs mode where the kernel or ipset cannot run it, an unknown mode, or no
   *     support for the primary family
   */
  public static List<ProxyBackend> create(AgentOptions options, NodeInfo node, AgentContext context) {
    return create(options, node, context, Ipv6Support.host());
  }

  /** With this check of the kernel's IPv6 support (a scratch namespace's, or a test's). */
  public static List<ProxyBackend> create(AgentOptions options, NodeInfo node, AgentContext context, Ipv6Support ipv6) {
    CommandRunner runner = context.commands();
    ProxyMetrics metrics = context.metrics();
    KubeProxyConfiguration config = options.config();
    ProxyMode mode = mode(config);
    IpFamily primary = primaryFamily(node);
    Map<IpFamily, Boolean> supported = new EnumMap<>(IpFamily.class);
    if (mode != ProxyMode.NFTABLES && options.dryRun()) {
      // A dry run writes nothing, so it needs no iptables and no root: it decides the families
      // as upstream's platformCheckSupported (cmd/kube-proxy/app/server_linux.go) does on a host
      // where both iptables and ip6tables are present.
      Log.info("Dry run: not probing iptables; assuming iptables and ip6tables are present");
      supported.put(IpFamily.IPv4, true);
      supported.put(IpFamily.IPv6, true);
    } else if (mode != ProxyMode.NFTABLES) {
      supported.put(IpFamily.IPv4, iptablesWorks(runner, "iptables"));
      supported.put(IpFamily.IPv6, iptablesWorks(runner, "ip6tables"));
      if (!supported.get(IpFamily.IPv4) && !supported.get(IpFamily.IPv6)) {
        throw new ProxierCreationException("iptables is not available on this host");
      }
      for (IpFamily f : IpFamily.values()) {
        if (!supported.get(f)) {
          Log.info("No iptables support for family", "ipFamily", f);
        }
      }
    } else {
      supported.put(IpFamily.IPv4, true);
      supported.put(IpFamily.IPv6, true);
    }
    // A kernel without IPv6 (or with it switched off) runs IPv4 only, whatever the tools say; a
    // dry run decides as on a host that has it, like the tools above.
    if (!options.dryRun() && supported.get(IpFamily.IPv6) && !ipv6.enabled()) {
      Log.info("No kernel support for family", "ipFamily", IpFamily.IPv6);
      supported.put(IpFamily.IPv6, false);
    }
    if (!supported.get(primary)) {
      throw new ProxierCreationException("no support for primary IP family \"" + primary + "\"");
    }
    boolean dualStack = supported.get(IpFamily.IPv4) && supported.get(IpFamily.IPv6);
    if (dualStack) {
      Log.info("kube-proxy running in dual-stack mode", "primary ipFamily", primary);
    } else {
      Log.info("kube-proxy running in single-stack mode", "ipFamily", primary);
    }
    Map<IpFamily, LocalTrafficDetector> detectors = localDetectors(config, node, primary);
    List<IpFamily> families = new ArrayList<>();
    families.add(primary);
    if (dualStack) {
      families.add(primary == IpFamily.IPv4 ? IpFamily.IPv6 : IpFamily.IPv4);
    }
    if (mode == ProxyMode.IPVS) {
      return ipvsBackends(options, node, context, families, detectors);
    }
    Log.info(mode == ProxyMode.IPTABLES ? "Using iptables Proxier" : "Using nftables Proxier");
    if (mode == ProxyMode.IPTABLES && !options.dryRun()) {
      registerNfacctMetrics(metrics);
    }
    List<ProxyBackend> backends = new ArrayList<>();
    CommitGenerations generations = new CommitGenerations(); // this namespace's, for both families
    for (IpFamily family : families) {
      ProxierSettings settings = settings(options, node, family, detectors.get(family));
      if (mode == ProxyMode.IPTABLES) {
        backends.add(new IptablesProxier(settings, context.commands(), context.metrics(), context.iptablesBackend()));
        continue;
      }
      NftablesProxier nftables = new NftablesProxier(settings, runner, metrics, generations,
          context.gates().isEnabled(FeatureGates.NFTABLES_NETLINK));
      if (context.gates().isEnabled(FeatureGates.KUBE_PROXY_NFTABLES_LOCALHOST_NODE_PORTS)) {
        nftables.enableLocalhostNodePorts();
      }
      backends.add(nftables);
    }
    return List.copyOf(backends);
  }

  /**
   * ipvs mode (cmd/kube-proxy/app/server_linux.go): upstream's CanUseIPVSProxier check first (not in a
   * dry run, which touches nothing), the deprecation notice follows from the verticle ({@link ModeNotices}).
   */
  private static List<ProxyBackend> ipvsBackends(AgentOptions options, NodeInfo node, AgentContext context,
      List<IpFamily> families, Map<IpFamily, LocalTrafficDetector> detectors) {
    KubeProxyConfiguration config = options.config();
    CommandRunner runner = context.commands();
    if (!options.dryRun()) {
      try (NetlinkIpvs ipvs = openIpvs()) {
        IpvsSupport.check(ipvs, new IpSetTool(runner), config.ipvs.scheduler);
      } catch (IOException e) {
        throw new ProxierCreationException("can't use the IPVS proxier: " + e.getMessage());
      }
    }
    Log.info("Using ipvs Proxier");
    if (config.ipvs.scheduler == null || config.ipvs.scheduler.isEmpty()) {
      Log.info("IPVS scheduler not specified, use rr by default");
    }
    List<ProxyBackend> backends = new ArrayList<>();
    for (IpFamily family : families) {
      backends.add(new IpvsProxier(settings(options, node, family, detectors.get(family)),
          IpvsSettings.of(config.ipvs, family), ipvsHost(context)));
    }
    return List.copyOf(backends);
  }

  /** The kernel's IPVS, or null where it has none (upstream's utilipvs.New returns nil then). */
  private static NetlinkIpvs openIpvs() {
    try {
      return NetlinkIpvs.open(null);
    } catch (IOException | RuntimeException | LinkageError e) {
      Log.v(2).info("IPVS interface can't be initialized", "err", e.getMessage());
      return null;
    }
  }

  /**
   * The two nfacct-based metrics of iptables mode, read from the kernel at each scrape by a client
   * of their own (upstream's collectors); without nfacct they are simply not exported.
   */
  static void registerNfacctMetrics(ProxyMetrics metrics) {
    try {
      NfacctCounters reader = NfacctCounters.open(null);
      metrics.registerNfacctCounters(() -> reader.metricValue(NfacctCounters.CT_STATE_INVALID_DROPPED),
          () -> reader.metricValue(NfacctCounters.LOCALHOST_NODEPORT_ACCEPTED));
    } catch (IOException e) {
      Log.error("failed to initialize nfacct client", "err", e.getMessage());
    }
  }

  /** The family of the first node IP; IPv4 when none is known (as detectNodeIPs starts). */
  static IpFamily primaryFamily(NodeInfo node) {
    if (node == null || node.nodeIPs().isEmpty()) {
      return IpFamily.IPv4;
    }
    return IpFamily.ofText(node.nodeIPs().get(0));
  }

  /** A read-only probe: can this iptables binary list the nat table? */
  static boolean iptablesWorks(CommandRunner runner, String binary) {
    try {
      CommandRunner.Result r = runner.run(List.of(binary, "-w", "5", "-t", "nat", "-S", "POSTROUTING"));
      if (!r.ok()) {
        Log.v(2).info("Probe failed", "command", binary, "stderr", r.stderr().trim());
      }
      return r.ok();
    } catch (IOException e) {
      Log.v(2).info("Probe failed", "command", binary, "err", e);
      return false;
    }
  }

  /** getLocalDetectors: one detector per family from detectLocalMode (cmd/kube-proxy/app/server_linux.go getLocalDetectors). */
  static Map<IpFamily, LocalTrafficDetector> localDetectors(
      KubeProxyConfiguration config, NodeInfo node, IpFamily primary) {
    return localDetectors(config, node, primary, Log::info);
  }

  /**
   * The same, with what upstream logs about the choice given to {@code notices}: logged when the
   * backends are built, not again when /debug/services works out the settings they were built with.
   */
  static Map<IpFamily, LocalTrafficDetector> localDetectors(
      KubeProxyConfiguration config, NodeInfo node, IpFamily primary, Consumer<String> notices) {
    Map<IpFamily, LocalTrafficDetector> out = new EnumMap<>(IpFamily.class);
    String mode = config.detectLocalMode == null || config.detectLocalMode.isEmpty()
        ? "ClusterCIDR" : config.detectLocalMode;
    for (IpFamily f : IpFamily.values()) {
      out.put(f, LocalTrafficDetector.noop());
    }
    switch (mode) {
      case "ClusterCIDR" -> {
        firstCidrPerFamily(config.clusterCIDRs()).forEach((f, cidr) -> out.put(f, new LocalTrafficDetector(mode, cidr)));
        if (!out.get(primary).implemented()) {
          notices.accept("Detect-local-mode set to ClusterCIDR, but no cluster CIDR specified for primary IP family");
        }
      }
      case "NodeCIDR" -> {
        List<String> podCIDRs = node == null ? List.of() : node.podCIDRs();
        firstCidrPerFamily(podCIDRs).forEach((f, cidr) -> out.put(f, new LocalTrafficDetector(mode, cidr)));
        if (!out.get(primary).implemented()) {
          notices.accept("Detect-local-mode set to NodeCIDR, but no PodCIDR defined at node for primary IP family");
        }
      }
      case "BridgeInterface" -> {
        String bridge = config.detectLocal.bridgeInterface;
        for (IpFamily f : IpFamily.values()) {
          out.put(f, new LocalTrafficDetector(mode, bridge));
        }
      }
      case "InterfaceNamePrefix" -> {
        String prefix = config.detectLocal.interfaceNamePrefix;
        for (IpFamily f : IpFamily.values()) {
          out.put(f, new LocalTrafficDetector(mode, prefix));
        }
      }
      default -> notices.accept("Defaulting to no-op detect-local");
    }
    return out;
  }

  private static Map<IpFamily, String> firstCidrPerFamily(List<String> cidrs) {
    Map<IpFamily, String> out = new EnumMap<>(IpFamily.class);
    for (String raw : cidrs) {
      String cidr = IpAddresses.normalizeCidr(raw.trim());
      if (cidr != null) {
        out.putIfAbsent(IpFamily.ofText(cidr), cidr);
      }
    }
    return out;
  }

  /** The settings of one family's backend. */
  static ProxierSettings settings(
      AgentOptions options, NodeInfo node, IpFamily family, LocalTrafficDetector detector) {
    KubeProxyConfiguration config = options.config();
    List<String> nodeIPs = new ArrayList<>();
    if (node != null) {
      for (String ip : node.nodeIPs()) {
        String n = IpAddresses.normalize(ip);
        if (n != null && IpFamily.ofText(n) == family) {
          nodeIPs.add(n);
        }
      }
    }
    if (nodeIPs.isEmpty()) {
      nodeIPs.add(family == IpFamily.IPv4 ? "127.0.0.1" : "::1");
    }
    List<String> nodePortAddresses = new ArrayList<>();
    if (config.nodePortAddresses != null) {
      for (String raw : config.nodePortAddresses) {
        String cidr = IpAddresses.normalizeCidr(raw == null ? "" : raw.trim());
        if (cidr != null && IpFamily.ofText(cidr) == family) {
          nodePortAddresses.add(cidr);
        }
      }
    }
    boolean localhostNodePorts = config.iptables.localhostNodePorts == null || config.iptables.localhostNodePorts;
    return new ProxierSettings(
        family,
        options.hostname() != null ? options.hostname() : node == null ? "" : node.name(),
        nodeIPs,
        nodePortAddresses,
        config.masqueradeAll(),
        config.masqueradeBit(),
        localhostNodePorts,
        detector == null ? LocalTrafficDetector.noop() : detector,
        config.syncSettings().syncPeriod(),
        config.syncSettings().minSyncPeriod(),
        options.dryRun() ? System.out : null);
  }

  /**
   * Removes leftovers (cmd/kube-proxy/app/server_linux.go cleanupLeftovers): with all, or in
   * nftables mode, the iptables rules and ipvs mode's state (virtual servers, kube-ipvs0, ipsets,
   * chains) of both families; with all, or in iptables or ipvs mode, the nftables tables. Blocking.
   *
   * @return true when every cleanup succeeded
   */
  public static boolean cleanupLeftovers(ProxyMode activeMode, boolean all, AgentContext context) {
    CommandRunner runner = context.commands();
    ProxyMetrics metrics = context.metrics();
    boolean iptablesBased = activeMode != ProxyMode.NFTABLES;
    List<ProxyBackend> targets = new ArrayList<>();
    if (all || !iptablesBased) {
      for (IpFamily family : IpFamily.values()) {
        targets.add(new IptablesProxier(minimalSettings(family), context.commands(), context.metrics(), context.iptablesBackend()));
      }
    }
    if (all || iptablesBased) {
      for (IpFamily family : IpFamily.values()) {
        targets.add(new NftablesProxier(minimalSettings(family), runner, metrics, new CommitGenerations()));
      }
    }
    if (all || !iptablesBased) {
      // upstream cleans ipvs mode's leftovers with iptables mode's (when switching to nftables, and with --cleanup)
      for (IpFamily family : IpFamily.values()) {
        targets.add(new IpvsProxier(minimalSettings(family), IpvsSettings.of(new KubeProxyConfiguration.IPVS(), family),
            ipvsHost(context)));
      }
    }
    boolean ok = true;
    for (ProxyBackend backend : targets) {
      try {
        backend.cleanup();
      } catch (Exception e) {
        Log.error("Cleanup failed", e, "backend", backend.getClass().getSimpleName(), "ipFamily", backend.family());
        ok = false;
      }
    }
    if (!ok) {
      Log.error("encountered an error while tearing down rules");
    }
    return ok;
  }

  private static ProxierSettings minimalSettings(IpFamily family) {
    return new ProxierSettings(family, "", List.of(), List.of(), false, 14, false, LocalTrafficDetector.noop(),
        SyncSettings.DEFAULTS.syncPeriod(), SyncSettings.DEFAULTS.minSyncPeriod(), null);
  }

  private static IpvsProxier.Host ipvsHost(AgentContext context) {
    return new IpvsProxier.Host(context.commands(), context.metrics(), context.clock(), context.iptablesBackend());
  }
}
