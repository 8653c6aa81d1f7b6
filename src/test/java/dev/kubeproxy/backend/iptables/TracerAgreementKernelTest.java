package dev.kubeproxy.backend.iptables;

import static dev.kubeproxy.trace.KernelFlowHarness.a;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.kubeproxy.backend.netfilter.IptablesBackend;
import dev.kubeproxy.backend.netfilter.Sysctls;
import dev.kubeproxy.host.CommandRunner;
import dev.kubeproxy.metrics.ProxyMetrics;
import dev.kubeproxy.model.LocalTrafficDetector;
import dev.kubeproxy.model.ProxierSettings;
import dev.kubeproxy.model.ProxyState;
import dev.kubeproxy.net.IpFamily;
import dev.kubeproxy.trace.KernelFlowHarness;
import dev.kubeproxy.trace.iptables.IptablesRules;
import dev.kubeproxy.trace.iptables.IptablesTracer;
import dev.kubeproxy.trace.iptables.LocalNode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import dev.kubeproxy.testutil.tier.Kernel;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The iptables tracer, over what iptables-save reads back after the proxier programmed
 * {@link KernelFlowHarness#cluster}, agrees with what the kernel does to random flows
 * (-Dtracer.seed=N repeats a run).
 */
@Kernel
class TracerAgreementKernelTest {
  @TempDir Path sysctlRoot;

  @Test
  void theTracerAgreesWithConntrackOnRandomFlows() throws Exception {
    String why = ScratchNamespace.whyUnavailable();
    assumeTrue(why == null, () -> "skipped: " + why);
    assumeTrue(ScratchNamespace.onPath("conntrack"), "skipped: conntrack (the tool) is not installed");
    assumeTrue(ScratchNamespace.onPath("python3"), "skipped: python3 (which sends the packets) is not installed");
    try (KernelFlowHarness h = new KernelFlowHarness()) {
      List<String> disagreements = new java.util.ArrayList<>();
      long seed = Long.getLong("tracer.seed", System.nanoTime());
      for (IpFamily f : IpFamily.values()) {
        ProxierSettings settings = new ProxierSettings(f, "node-1", List.of(a(f, KernelFlowHarness.NODE_IP)),
            List.of(), false, 14, false, new LocalTrafficDetector("ClusterCIDR", a(f, "10.244.0.0/16")),
            Duration.ofHours(1), Duration.ofSeconds(1), null);
        ScratchNamespace.fakeSysctls(sysctlRoot);
        CommandRunner inNode = CommandRunner.inNetns(h.node);
        // the nft backend: the legacy one's host-wide xtables lock is contended by other tests
        IptablesProxier proxier = new IptablesProxier(settings, inNode, new ProxyMetrics(), new Sysctls(sysctlRoot),
            List::of, IptablesBackend.NFT);
        proxier.privilegedInit();
        ProxyState state = KernelFlowHarness.cluster(f);
        proxier.sync(state);
        String rules = save(inNode, f, "filter") + save(inNode, f, "nat");
        IptablesTracer tracer = new IptablesTracer(IptablesRules.parse(rules),
            new LocalNode(Set.of(a(f, KernelFlowHarness.NODE_IP), a(f, KernelFlowHarness.POD_GW)), h.podInterface(),
                h.externalInterface()));
        disagreements.addAll(h.compare("iptables", f, tracer, state, seed));
      }
      assertTrue(disagreements.isEmpty(), () -> "seed " + seed + ":\n" + String.join("\n", disagreements));
    }
  }

  private static String save(CommandRunner inNode, IpFamily f, String table) throws Exception {
    CommandRunner.Result r = inNode.run(List.of(f == IpFamily.IPv4 ? "iptables-nft-save" : "ip6tables-nft-save",
        "-t", table));
    assertTrue(r.ok(), () -> "iptables-nft-save failed: " + r.stderr());
    return r.stdout();
  }
}
