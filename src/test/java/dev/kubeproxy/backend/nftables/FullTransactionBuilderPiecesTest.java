package dev.kubeproxy.backend.nftables;

import static dev.kubeproxy.backend.nftables.Fixtures.Model;
import static dev.kubeproxy.backend.nftables.Fixtures.settings;
import static dev.kubeproxy.testutil.ModelFixtures.ready;
import static dev.kubeproxy.testutil.ModelFixtures.spn;
import static dev.kubeproxy.testutil.ModelFixtures.svc;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kubeproxy.backend.nftables.objects.Chain;
import dev.kubeproxy.backend.nftables.objects.Element;
import dev.kubeproxy.backend.nftables.objects.NftMap;
import dev.kubeproxy.backend.nftables.objects.NftSet;
import dev.kubeproxy.backend.nftables.objects.Transaction;
import dev.kubeproxy.backend.nftables.objects.Verdict;
import dev.kubeproxy.model.Endpoint;
import dev.kubeproxy.model.ProxierSettings;
import dev.kubeproxy.net.IpFamily;
import dev.kubeproxy.testutil.tier.Unit;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The load in pieces ({@link FullTransactionBuilder#buildInPieces}) holds exactly the commands of
 * the load as one transaction, each piece of about the size asked for, every object declared in
 * the piece that names it or an earlier one, and the base chains' rules only in the last piece.
 */
@Unit
class FullTransactionBuilderPiecesTest {
  private static final int PIECE = 500;

  private static Model model() {
    Model m = new Model();
    for (int i = 0; i < 300; i++) {
      var svc = svc(spn("ns" + i % 5, "svc" + i, "http"), "10.96." + i / 250 + "." + (i % 250 + 1), 80);
      if (i % 9 == 0) {
        svc.nodePort(30000 + i);
      }
      if (i % 20 == 0) {
        svc.affinity(600);
      }
      List<Endpoint> eps = new ArrayList<>();
      for (int e = 0; e < (i % 6 == 0 ? 1 : 5); e++) {
        eps.add(ready("10.244." + i / 50 + "." + (i % 50 * 5 + e + 1), 8080, e == 0));
      }
      m.put(svc, eps.toArray(Endpoint[]::new));
    }
    return m;
  }

  private static FullTransactionBuilder builder(ProxierSettings s) {
    return new FullTransactionBuilder(s, new FamilySyntax(s.family()), new AppliedTable());
  }

  @Test
  void thePiecesHoldTheLoadsCommandsInAnOrderEachPieceCanBeCommittedIn() {
    ProxierSettings s = settings(IpFamily.IPv4);
    Model m = model();
    Transaction whole = builder(s).build(m.state(), SyncKind.LOAD, List.of("192.168.1.10")).transaction();
    List<Transaction> pieces = new ArrayList<>();
    builder(s).buildInPieces(m.state(), List.of("192.168.1.10"), PIECE, pieces::add);

    assertTrue(pieces.size() >= 5, "pieces: " + pieces.size());
    assertEquals(commands(List.of(whole)), commands(pieces), "the same commands, as many times each");
    Set<String> declared = new HashSet<>();
    for (int p = 0; p < pieces.size(); p++) {
      boolean last = p == pieces.size() - 1;
      List<Transaction.Operation> ops = pieces.get(p).operations();
      if (!last) {
        assertTrue(ops.size() < PIECE + 200, "piece " + p + " holds about the size asked for: " + ops.size());
      }
      for (Transaction.Operation op : ops) {
        assertTrue(last || !FixedRuleset.isBaseChainRule(op), "a base chain's rule before the last piece: " + op);
        if (op.object() instanceof Chain c) {
          declared.add(c.name());
        } else if (op.object() instanceof NftSet set) {
          declared.add(set.name());
        } else if (op.object() instanceof NftMap map) {
          declared.add(map.name());
        } else if (op.object() instanceof Element e) {
          assertTrue(declared.contains(e.container()), "declared before its element: " + e);
          if (e.value() instanceof Verdict v && v.chain() != null) {
            assertTrue(declared.contains(v.chain()), "the chain an element goes to exists before it: " + e);
          }
        }
      }
    }
    assertTrue(pieces.get(pieces.size() - 1).operations().stream().anyMatch(FixedRuleset::isBaseChainRule));
  }

  /** Each command's text and how often it appears. */
  private static Map<String, Integer> commands(List<Transaction> txs) {
    Map<String, Integer> counts = new TreeMap<>();
    for (Transaction tx : txs) {
      for (Transaction.Operation op : tx.operations()) {
        counts.merge(op.verb().word() + " " + op.object().render(op.verb(), IpFamily.IPv4, true), 1, Integer::sum);
      }
    }
    return counts;
  }
}
