package dev.kubeproxy.runtime;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.kubeproxy.config.FeatureGates;
import dev.kubeproxy.config.ProxyMode;
import dev.kubeproxy.host.CommandRunner;
import dev.kubeproxy.metrics.ProxyMetrics;
import dev.kubeproxy.testutil.tier.Kernel;
import dev.kubeproxy.testutil.tier.KernelHost;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** Proxiers.cleanupLeftovers against real nftables tables, in a network namespace this test creates. */
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
}
