package dev.kubeproxy.runtime;

import dev.kubeproxy.model.LocalTrafficDetector;
import dev.kubeproxy.model.ProxierSettings;
import dev.kubeproxy.model.ProxyBackend;
import dev.kubeproxy.net.IpFamily;

import dev.kubeproxy.testutil.tier.Unit;
import java.nio.file.Path;
import java.nio.file.Files;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assumptions.assumeFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kubeproxy.config.AgentOptions;
import dev.kubeproxy.messages.NodeInfo;
import dev.kubeproxy.config.KubeProxyConfiguration;
import dev.kubeproxy.host.CommandRunner;
import dev.kubeproxy.host.Ipv6Support;
import dev.kubeproxy.backend.iptables.IptablesProxier;
import dev.kubeproxy.backend.nftables.NftablesProxier;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

@Unit
class ProxiersTest {
  /** Answers the read-only iptables probes: binaries for which works() holds succeed. */
  static final class ProbeRunner implements CommandRunner {
    final Predicate<String> works;
    final List<List<String>> commands = new ArrayList<>();

    ProbeRunner(Predicate<String> works) {
      this.works = works;
    }

    @Override
    public Result run(List<String> argv, CharSequence stdin) throws IOException {
      commands.add(argv);
      if (!works.test(argv.get(0))) {
        throw new IOException("Cannot run program \"" + argv.get(0) + "\": error=2, No such file or directory");
      }
      return new Result(0, "-P POSTROUTING ACCEPT\n", "");
    }

    @Override
    public Result run(List<String> argv) throws IOException {
      return run(argv, null);
    }
  }

  static AgentOptions options(String mode) {
    KubeProxyConfiguration c = new KubeProxyConfiguration();
    c.mode = mode;
    c.iptables.syncPeriod = Duration.ofSeconds(30);
    c.iptables.minSyncPeriod = Duration.ofSeconds(1);
    c.nftables.syncPeriod = Duration.ofSeconds(20);
    c.nftables.minSyncPeriod = Duration.ofSeconds(2);
    c.clusterCIDR = "10.244.0.0/16,fd00:10:244::/64";
    c.nodePortAddresses = List.of("192.168.200.0/24", "fd00:200::/64");
    return new AgentOptions(c, null, "node-a", null, false, false, false);
  }

  static NodeInfo node(String... ips) {
    return new NodeInfo("node-a", List.of(ips), List.of("10.244.1.0/24", "fd00:10:244:1::/64"), Map.of());
  }

  @Test
  void unknownModesAreRefused() {
    assertThrows(Proxiers.ProxierCreationException.class,
        () -> create(options("userspace"), node("192.168.200.1"), new ProbeRunner(b -> true)));
  }

  /** upstream CanUseIPVSProxier: this machine's kernel has no IP_VS, so ipvs mode stops with its message. */
  @Test
  void ipvsModeNeedsIpvsInTheKernel() {
    assumeFalse(Files.exists(Path.of("/proc/net/ip_vs")), "this kernel has IPVS");
    var e = assertThrows(Proxiers.ProxierCreationException.class,
        () -> create(options("ipvs"), node("192.168.200.1"), new ProbeRunner(b -> true)));
    assertEquals("can't use the IPVS proxier: Ipvs not supported by the kernel", e.getMessage());
  }

  /** A dry run probes nothing: one ipvs backend per family, primary first. */
  @Test
  void ipvsDryRunIsDualStackWithoutProbes() {
    ProbeRunner runner = new ProbeRunner(b -> true);
    KubeProxyConfiguration c = options("ipvs").config();
    AgentOptions dry = new AgentOptions(c, null, "node-a", null, true, false, false);
    List<ProxyBackend> backends = create(dry, node("fd00:200::1", "192.168.200.1"), runner);
    assertEquals(List.of(IpFamily.IPv6, IpFamily.IPv4), backends.stream().map(ProxyBackend::family).toList());
    assertTrue(backends.get(0) instanceof dev.kubeproxy.backend.ipvs.IpvsProxier);
    assertEquals(List.of(), runner.commands);
  }

  @Test
  void nftablesIsAlwaysDualStackPrimaryFirst() {
    ProbeRunner runner = new ProbeRunner(b -> true);
    List<ProxyBackend> backends = create(options("nftables"), node("fd00:200::1", "192.168.200.1"), runner);
    assertEquals(List.of(IpFamily.IPv6, IpFamily.IPv4), backends.stream().map(ProxyBackend::family).toList());
    assertTrue(backends.get(0) instanceof NftablesProxier);
    assertEquals(List.of(), runner.commands, "no probe in nftables mode");
  }

  @Test
  void iptablesDualStackWhenBothFamiliesWork() {
    ProbeRunner runner = new ProbeRunner(b -> true);
    List<ProxyBackend> backends = create(options("iptables"), node("192.168.200.1"), runner);
    assertEquals(List.of(IpFamily.IPv4, IpFamily.IPv6), backends.stream().map(ProxyBackend::family).toList());
    assertTrue(backends.get(1) instanceof IptablesProxier);
    assertEquals(List.of("iptables", "ip6tables"), runner.commands.stream().map(c -> c.get(0)).toList());
    assertTrue(runner.commands.get(0).contains("-S"), "the probe only lists");
  }

  @Test
  void iptablesSingleStackWhenOneFamilyIsMissing() {
    List<ProxyBackend> backends = create(options(""), node("192.168.200.1"),
        new ProbeRunner(b -> b.equals("iptables")));
    assertEquals(List.of(IpFamily.IPv4), backends.stream().map(ProxyBackend::family).toList());
  }

  @Test
  void iptablesMissingOrPrimaryUnsupportedIsFatal() {
    var none = assertThrows(Proxiers.ProxierCreationException.class,
        () -> create(options("iptables"), node("192.168.200.1"), new ProbeRunner(b -> false)));
    assertEquals("iptables is not available on this host", none.getMessage());
    var primary = assertThrows(Proxiers.ProxierCreationException.class,
        () -> create(options("iptables"), node("fd00:200::1"), new ProbeRunner(b -> b.equals("iptables"))));
    assertEquals("no support for primary IP family \"IPv6\"", primary.getMessage());
  }

  @Test
  void iptablesDryRunProbesNothingAndRunsAsOnAHostWithBothTools() {
    AgentOptions o = options("iptables");
    AgentOptions dry = new AgentOptions(o.config(), null, "node-a", null, true, false, false);
    ProbeRunner noTools = new ProbeRunner(b -> false);
    List<ProxyBackend> v4First = create(dry, node("192.168.200.1"), noTools);
    assertEquals(List.of(IpFamily.IPv4, IpFamily.IPv6), v4First.stream().map(ProxyBackend::family).toList());
    List<ProxyBackend> v6First = create(dry, node("fd00:200::1", "192.168.200.1"), noTools);
    assertEquals(List.of(IpFamily.IPv6, IpFamily.IPv4), v6First.stream().map(ProxyBackend::family).toList());
    assertEquals(List.of(), noTools.commands, "a dry run runs no iptables binary");
    for (ProxyBackend backend : v4First) {
      assertTrue(backend instanceof IptablesProxier);
    }
  }

  @Test
  void primaryFamilyDefaultsToIPv4() {
    assertEquals(IpFamily.IPv4, Proxiers.primaryFamily(node()));
    assertEquals(IpFamily.IPv6, Proxiers.primaryFamily(node("fd00::1")));
  }

  @Test
  void localDetectorsPerMode() {
    KubeProxyConfiguration c = options("iptables").config();
    NodeInfo n = node("192.168.200.1");
    var cluster = Proxiers.localDetectors(c, n, IpFamily.IPv4);
    assertEquals(new LocalTrafficDetector("ClusterCIDR", "10.244.0.0/16"), cluster.get(IpFamily.IPv4));
    assertEquals(new LocalTrafficDetector("ClusterCIDR", "fd00:10:244::/64"), cluster.get(IpFamily.IPv6));

    c.clusterCIDR = "fd00:10:244::/64,fd00:99::/64";
    cluster = Proxiers.localDetectors(c, n, IpFamily.IPv4);
    assertFalse(cluster.get(IpFamily.IPv4).implemented(), "no CIDR of the family: no-op");
    assertEquals("fd00:10:244::/64", cluster.get(IpFamily.IPv6).value(), "the first CIDR of the family");

    c.detectLocalMode = "NodeCIDR";
    var nodeCidr = Proxiers.localDetectors(c, n, IpFamily.IPv4);
    assertEquals(new LocalTrafficDetector("NodeCIDR", "10.244.1.0/24"), nodeCidr.get(IpFamily.IPv4));
    assertEquals(new LocalTrafficDetector("NodeCIDR", "fd00:10:244:1::/64"), nodeCidr.get(IpFamily.IPv6));

    c.detectLocalMode = "BridgeInterface";
    c.detectLocal.bridgeInterface = "cbr0";
    assertEquals(new LocalTrafficDetector("BridgeInterface", "cbr0"),
        Proxiers.localDetectors(c, n, IpFamily.IPv4).get(IpFamily.IPv6));

    c.detectLocalMode = "InterfaceNamePrefix";
    c.detectLocal.interfaceNamePrefix = "veth";
    assertEquals(new LocalTrafficDetector("InterfaceNamePrefix", "veth"),
        Proxiers.localDetectors(c, n, IpFamily.IPv4).get(IpFamily.IPv4));

    c.detectLocalMode = "Bogus";
    assertFalse(Proxiers.localDetectors(c, n, IpFamily.IPv4).get(IpFamily.IPv4).implemented());
  }

  @Test
  void settingsArePerFamily() {
    AgentOptions o = options("nftables");
    o.config().nftables.masqueradeBit = 10;
    ProxierSettings v4 = Proxiers.settings(o, node("192.168.200.1"), IpFamily.IPv4, LocalTrafficDetector.noop());
    assertEquals(IpFamily.IPv4, v4.family());
    assertEquals("node-a", v4.nodeName());
    assertEquals(List.of("192.168.200.1"), v4.nodeIPs());
    assertEquals(List.of("192.168.200.0/24"), v4.nodePortAddresses());
    assertEquals(10, v4.masqueradeBit());
    assertEquals(Duration.ofSeconds(20), v4.syncPeriod());
    assertEquals(Duration.ofSeconds(2), v4.minSyncPeriod());
    assertTrue(v4.localhostNodePorts());
    assertNull(v4.dryRunOutput());

    ProxierSettings v6 = Proxiers.settings(o, node("192.168.200.1"), IpFamily.IPv6, LocalTrafficDetector.noop());
    assertEquals(List.of("::1"), v6.nodeIPs(), "no node IP of the family: loopback");
    assertEquals(List.of("fd00:200::/64"), v6.nodePortAddresses());

    AgentOptions dry = new AgentOptions(o.config(), null, "node-a", null, true, false, false);
    assertSame(System.out, Proxiers.settings(dry, node(), IpFamily.IPv4, LocalTrafficDetector.noop()).dryRunOutput());
  }

  /** A kernel with IPv6: the families follow the tools alone. */
  private static final Ipv6Support WITH_IPV6 = new Ipv6Support(path -> Optional.of(path.endsWith("disable_ipv6") ? "0\n" : ""));
  private static final Ipv6Support WITHOUT_IPV6 = new Ipv6Support(path -> Optional.empty());

  private static List<ProxyBackend> create(
      dev.kubeproxy.config.AgentOptions options, dev.kubeproxy.messages.NodeInfo node, CommandRunner runner) {
    return create(options, node, runner, WITH_IPV6);
  }

  static List<ProxyBackend> create(dev.kubeproxy.config.AgentOptions options, dev.kubeproxy.messages.NodeInfo node,
      CommandRunner runner, Ipv6Support ipv6) {
    return Proxiers.create(options, node, context(options.config().featureGates, runner), ipv6);
  }

  @Test
  void aKernelWithoutIpv6RunsIpv4OnlyInEveryMode() {
    for (String mode : List.of("nftables", "iptables")) {
      List<ProxyBackend> backends = create(options(mode), node("192.168.200.1", "fd00:200::1"), new ProbeRunner(b -> true),
          WITHOUT_IPV6);
      assertEquals(List.of(IpFamily.IPv4), backends.stream().map(ProxyBackend::family).toList(), mode);
    }
    Ipv6Support switchedOff = new Ipv6Support(path -> Optional.of(path.endsWith("disable_ipv6") ? "1\n" : ""));
    assertEquals(List.of(IpFamily.IPv4), create(options("nftables"), node("192.168.200.1"), new ProbeRunner(b -> true),
        switchedOff).stream().map(ProxyBackend::family).toList());
  }

  @Test
  void anIpv6PrimaryOnAKernelWithoutIpv6IsRefused() {
    Proxiers.ProxierCreationException e = assertThrows(Proxiers.ProxierCreationException.class,
        () -> create(options("nftables"), node("fd00:200::1", "192.168.200.1"), new ProbeRunner(b -> true), WITHOUT_IPV6));
    assertEquals("no support for primary IP family \"IPv6\"", e.getMessage());
  }

  @Test
  void aDryRunAssumesIpv6() {
    AgentOptions o = options("nftables");
    AgentOptions dry = new AgentOptions(o.config(), null, "node-a", null, true, false, false);
    assertEquals(List.of(IpFamily.IPv4, IpFamily.IPv6), create(dry, node("192.168.200.1"), new ProbeRunner(b -> true),
        WITHOUT_IPV6).stream().map(ProxyBackend::family).toList());
  }

  private static dev.kubeproxy.runtime.AgentContext context(java.util.Map<String, Boolean> gates, CommandRunner runner) {
    return new dev.kubeproxy.runtime.AgentContext(new dev.kubeproxy.metrics.ProxyMetrics(),
        dev.kubeproxy.config.FeatureGates.of(gates), java.time.Clock.systemUTC(), runner);
  }
}
