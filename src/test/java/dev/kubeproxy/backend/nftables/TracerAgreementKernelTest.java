package dev.kubeproxy.backend.nftables;

import static dev.kubeproxy.trace.KernelFlowHarness.a;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.kubeproxy.backend.nftables.objects.Nftables;
import dev.kubeproxy.backend.nftables.objects.NftablesException;
import dev.kubeproxy.backend.nftables.objects.Transaction;
import dev.kubeproxy.host.CommandRunner;
import dev.kubeproxy.metrics.ProxyMetrics;
import dev.kubeproxy.model.LocalTrafficDetector;
import dev.kubeproxy.model.ProxierSettings;
import dev.kubeproxy.model.ProxyState;
import dev.kubeproxy.net.IpFamily;
import dev.kubeproxy.trace.KernelFlowHarness;
import dev.kubeproxy.trace.nftables.NftRuleset;
import dev.kubeproxy.trace.nftables.NftablesTracer;
import dev.kubeproxy.trace.nftables.TraceHost;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import dev.kubeproxy.testutil.tier.Kernel;
import org.junit.jupiter.api.Test;

/**
 * The nftables tracer, over the typed table the proxier's transactions built (replayed as the
 * kernel applied them), agrees with what the kernel does to random flows after the proxier
 * programmed {@link KernelFlowHarness#cluster} (-Dtracer.seed=N repeats a run).
 */
@Kernel
class TracerAgreementKernelTest {

  @Test
  void theTracerAgreesWithConntrackOnRandomFlows() throws Exception {
    assumeTrue("root".equals(System.getProperty("user.name")), "skipped: needs root to create network namespaces");
    for (String tool : List.of("ip", "nft", "conntrack", "python3")) {
      assumeTrue(runs(tool), () -> "skipped: " + tool + " is not installed");
    }
    try (KernelFlowHarness h = new KernelFlowHarness()) {
      List<String> disagreements = new ArrayList<>();
      long seed = Long.getLong("tracer.seed", System.nanoTime());
      for (IpFamily f : IpFamily.values()) {
        ProxierSettings settings = new ProxierSettings(f, "node-1", List.of(a(f, KernelFlowHarness.NODE_IP)),
            List.of(), false, 14, false, new LocalTrafficDetector("ClusterCIDR", a(f, "10.244.0.0/16")),
            Duration.ofHours(1), Duration.ofSeconds(1), null);
        CommandRunner inNode = CommandRunner.inNetns(h.node);
        Recording nft = new Recording(new NftCommand(f, inNode));
        NftablesProxier proxier = new NftablesProxier(settings, inNode, nft, new ProxyMetrics(), Clock.systemUTC(),
            List::of);
        proxier.privilegedInit();
        ProxyState state = KernelFlowHarness.cluster(f);
        proxier.sync(state);
        NftablesTracer tracer = new NftablesTracer(NftRuleset.replay(f, nft.applied),
            new TraceHost(Set.of(a(f, KernelFlowHarness.NODE_IP), a(f, KernelFlowHarness.POD_GW)), null));
        disagreements.addAll(h.compare("nftables", f, tracer, state, seed));
      }
      assertTrue(disagreements.isEmpty(), () -> "seed " + seed + ":\n" + String.join("\n", disagreements));
    }
  }

  private static boolean runs(String tool) {
    for (String dir : System.getenv().getOrDefault("PATH", "/usr/sbin:/usr/bin").split(":")) {
      if (java.nio.file.Files.isExecutable(java.nio.file.Path.of(dir, tool))) {
        return true;
      }
    }
    return java.nio.file.Files.isExecutable(java.nio.file.Path.of("/usr/sbin", tool));
  }

  /** The kernel's nft, keeping every transaction it applied. */
  private static final class Recording implements Nftables {
    final List<Transaction> applied = new ArrayList<>();
    private final Nftables kernel;

    Recording(Nftables kernel) {
      this.kernel = kernel;
    }

    @Override
    public void run(Transaction tx) throws NftablesException {
      kernel.run(tx);
      applied.add(tx);
    }

    @Override
    public TableContents list() throws NftablesException {
      return kernel.list();
    }
  }
}
