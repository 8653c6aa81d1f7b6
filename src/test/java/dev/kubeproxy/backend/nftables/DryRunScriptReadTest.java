package dev.kubeproxy.backend.nftables;

import static dev.kubeproxy.backend.nftables.JsonReadBackKernelTest.packets;
import static dev.kubeproxy.backend.nftables.JsonReadBackKernelTest.sameForm;
import static dev.kubeproxy.backend.nftables.JsonReadBackKernelTest.setups;
import static dev.kubeproxy.backend.nftables.JsonReadBackKernelTest.withCidrs;
import static dev.kubeproxy.backend.nftables.JsonReadBackKernelTest.withMany;
import static dev.kubeproxy.backend.nftables.JsonReadBackKernelTest.withoutEndpoint;
import static dev.kubeproxy.testutil.ModelFixtures.spn;
import static dev.kubeproxy.trace.KernelFlowHarness.a;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kubeproxy.backend.nftables.JsonReadBackKernelTest.Recording;
import dev.kubeproxy.backend.nftables.JsonReadBackKernelTest.Setup;
import dev.kubeproxy.host.ProcessCommandRunner;
import dev.kubeproxy.metrics.ProxyMetrics;
import dev.kubeproxy.model.ProxyState;
import dev.kubeproxy.net.IpFamily;
import dev.kubeproxy.testutil.tier.Unit;
import dev.kubeproxy.trace.KernelFlowHarness;
import dev.kubeproxy.trace.Packet;
import dev.kubeproxy.trace.nftables.NftRuleset;
import dev.kubeproxy.trace.nftables.NftablesTracer;
import dev.kubeproxy.trace.nftables.TraceHost;
import dev.kubeproxy.trace.nftables.script.NftScriptReader;
import java.io.OutputStream;
import java.io.PrintStream;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The tracer-side reader of a dry run's printed nft commands against the typed tables the same
 * transactions build: the clusters and settings of {@link JsonReadBackKernelTest}, after a full
 * and a partial sync, trace alike (path included) for every address, port and origin.
 */
@Unit
class DryRunScriptReadTest {

  @Test
  void theCommandsPrintedTraceAsTheTypedTablesDo() throws Exception {
    int compared = 0;
    for (IpFamily f : IpFamily.values()) {
      for (Setup setup : setups(f)) {
        DryRunNftables dry = new DryRunNftables(f, new PrintStream(OutputStream.nullOutputStream()));
        Recording nft = new Recording(dry);
        NftablesProxier proxier = new NftablesProxier(setup.settings(), new ProcessCommandRunner(), nft, new ProxyMetrics(),
            Clock.systemUTC(), () -> List.of(a(f, KernelFlowHarness.NODE_IP)));
        ProxyState first = withCidrs(withMany(KernelFlowHarness.cluster(f), f), setup.serviceCidrs());
        proxier.sync(first);
        compared += compare(setup, f, nft, dry, first);
        ProxyState second = withoutEndpoint(first, spn("ns", "plain", "p"));
        proxier.sync(second);
        compared += compare(setup, f, nft, dry, second);
      }
    }
    assertTrue(compared > 1000, "only " + compared + " packets compared");
  }

  private static int compare(Setup setup, IpFamily f, Recording nft, DryRunNftables dry, ProxyState state) {
    TraceHost host = new TraceHost(Set.of(a(f, KernelFlowHarness.NODE_IP)), setup.podInterface());
    NftablesTracer typed = new NftablesTracer(NftRuleset.replay(f, nft.applied), host);
    NftablesTracer printed = new NftablesTracer(NftScriptReader.read(f, dry.wholeTable().orElseThrow()), host);
    List<String> differences = new ArrayList<>();
    List<Packet> packets = packets(f, state);
    for (Packet p : packets) {
      var expected = sameForm(typed.trace(p));
      var got = sameForm(printed.trace(p));
      if (!expected.equals(got)) {
        differences.add(p + ":\n  typed   " + expected + "\n  printed " + got);
      }
    }
    assertTrue(differences.isEmpty(), () -> setup.name() + " " + f + ": " + differences.size() + " of "
        + packets.size() + " packets differ:\n" + String.join("\n", differences.subList(0, Math.min(5,
        differences.size()))));
    return packets.size();
  }

  @Test
  void aCommandOfAnotherKindIsRefusedWithItsLine() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> NftScriptReader.read(
        IpFamily.IPv4, "add table ip kube-proxy\nadd chain ip kube-proxy services\n"
            + "add rule ip kube-proxy services ip daddr 10.0.0.1 counter drop\n"));
    assertTrue(e.getMessage().startsWith("line 3: "), e.getMessage());
    assertTrue(e.getMessage().contains("counter"), e.getMessage());
    IllegalStateException missing = assertThrows(IllegalStateException.class, () -> NftScriptReader.read(
        IpFamily.IPv4, "add table ip kube-proxy\nadd rule ip kube-proxy services drop\n"));
    assertTrue(missing.getMessage().contains("no chain services"), missing.getMessage());
  }
}
