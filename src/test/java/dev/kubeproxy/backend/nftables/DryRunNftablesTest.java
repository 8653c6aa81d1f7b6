package dev.kubeproxy.backend.nftables;

import dev.kubeproxy.backend.nftables.objects.Chain;
import dev.kubeproxy.backend.nftables.objects.Table;
import dev.kubeproxy.backend.nftables.objects.Transaction;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kubeproxy.net.IpFamily;
import dev.kubeproxy.testutil.tier.Unit;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What the dry run keeps of what it printed, for /debug/services. */
@Unit
class DryRunNftablesTest {
  @Test
  void keepsTheLastFullTransactionAndTheLatestPartialOnes() {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    DryRunNftables dryRun = new DryRunNftables(IpFamily.IPv4, new PrintStream(out, true));
    dryRun.run(new Transaction().add(new Table("first")).add(Chain.regular("old")));
    dryRun.run(new Transaction().add(new Table("rules for kube-proxy")).add(Chain.regular("full")));
    for (int i = 0; i < DryRunNftables.KEPT + 3; i++) {
      dryRun.run(new Transaction().add(Chain.regular("partial-" + i)));
    }
    List<String> lines = dryRun.printedLines();
    assertTrue(lines.get(0).startsWith("add table ip kube-proxy"), lines.toString());
    assertEquals("add chain ip kube-proxy full", lines.get(1));
    assertEquals("add chain ip kube-proxy partial-3", lines.get(2), "the oldest partial ones went");
    assertEquals("add chain ip kube-proxy partial-" + (DryRunNftables.KEPT + 2), lines.get(lines.size() - 1));
    assertEquals(2 + DryRunNftables.KEPT, lines.size());
    assertTrue(out.toString().contains("add chain ip kube-proxy old"), "everything is still printed");
  }
}
