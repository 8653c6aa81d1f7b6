package dev.kubeproxy.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.kubeproxy.config.FeatureGates;
import dev.kubeproxy.config.ProxyMode;
import dev.kubeproxy.host.CommandRunner;
import dev.kubeproxy.metrics.ProxyMetrics;
import dev.kubeproxy.model.ProxyBackend;
import dev.kubeproxy.net.IpFamily;
import dev.kubeproxy.testutil.tier.Kernel;
import dev.kubeproxy.testutil.tier.KernelHost;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** Proxiers against a real kernel: cleanup of real nftables tables, and the families of a namespace without IPv6. */
@Kernel
class ProxiersKernelTest {
  private static String sh(List<String> argv) throws Exception {
    Process p = new ProcessBuilder(argv).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes());
    if (p.waitFor() != 0) {
      throw new IllegalStateException(String.join(" ", argv) + ": " + out);
    }
    return out;
  }

  @Test
  void cleanupLeftoversRemovesOtherModesRulesInANamespace() throws Exception {
    assumeTrue(KernelHost.onPath("nft"), "needs nft");
    String ns = "kp-model-" + UUID.randomUUID().toString().substring(0, 8);
    sh(List.of("ip", "netns", "add", ns));
    try {
      sh(List.of("ip", "netns", "exec", ns, "nft", "add", "table", "ip", "kube-proxy"));
      sh(List.of("ip", "netns", "exec", ns, "nft", "add", "table", "ip6", "kube-proxy"));
      CommandRunner runner = CommandRunner.inNetns(ns);
      assertTrue(cleanupLeftovers("iptables", false, runner));
      String tables = sh(List.of("ip", "netns", "exec", ns, "nft", "list", "tables"));
      assertFalse(tables.contains("kube-proxy"), "iptables mode removes nftables leftovers: " + tables);
      assertTrue(cleanupLeftovers("nftables", true, runner), "cleanup of nothing is fine");
    } finally {
      sh(List.of("ip", "netns", "delete", ns));
    }
  }

  private static boolean cleanupLeftovers(String mode, boolean all, CommandRunner runner) {
    return Proxiers.cleanupLeftovers(ProxyMode.parse(mode).orElseThrow(), all,
        new AgentContext(new ProxyMetrics(), FeatureGates.of(Map.of()), Clock.systemUTC(), runner));
  }

  /** nftables mode in a scratch namespace whose IPv6 is switched off by its sysctl. */
  @Test
  void aNamespaceWithIpv6SwitchedOffGetsIpv4Only() throws Exception {
    String ns = "kp-v6off-" + UUID.randomUUID().toString().substring(0, 8);
    sh(List.of("ip", "netns", "add", ns));
    try {
      sh(List.of("ip", "netns", "exec", ns, "sysctl", "-q", "-w", "net.ipv6.conf.all.disable_ipv6=1"));
      List<ProxyBackend> backends = ProxiersTest.create(ProxiersTest.options("nftables"), ProxiersTest.node("192.168.200.1"), CommandRunner.inNetns(ns),
          dev.kubeproxy.host.Ipv6SupportKernelTest.inNamespace(ns));
      assertEquals(List.of(IpFamily.IPv4), backends.stream().map(ProxyBackend::family).toList());
    } finally {
      sh(List.of("ip", "netns", "delete", ns));
    }
  }
}
