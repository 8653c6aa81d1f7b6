package dev.kubeproxy.backend.iptables;

import static dev.kubeproxy.backend.iptables.Fixtures.clusterCidr;
import static dev.kubeproxy.backend.iptables.Fixtures.options;
import static dev.kubeproxy.testutil.ModelFixtures.ready;
import static dev.kubeproxy.testutil.ModelFixtures.spn;
import static dev.kubeproxy.testutil.ModelFixtures.state;
import static dev.kubeproxy.testutil.ModelFixtures.svc;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kubeproxy.testutil.ModelFixtures;
import dev.kubeproxy.net.IpFamily;
import dev.kubeproxy.model.ServicePortName;
import dev.kubeproxy.testutil.tier.Unit;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Partial syncs (MinimizeIPTablesRestore, iptables.md §9.3, §10): only changed services' chains are
 * written, the unchanged ones are counted but left out, stale chains are flushed and deleted.
 */
@Unit
class PartialSyncTest {
  static final ServicePortName WEB = spn("demo", "web", "http", "TCP");
  static final ServicePortName DNS = spn("kube-system", "dns", "dns", "UDP");
  static final RulesetOptions V4 = options(IpFamily.IPv4, clusterCidr("10.244.0.0/16"));

  @Test
  void oneChangedServiceThenOneDeletedService() {
    RulesetGenerator generator = new RulesetGenerator();
    Ruleset first = generator.generate(V4, state()
        .add(svc(WEB, "10.96.12.34", 80), ready("10.244.1.5", 8080, true), ready("10.244.2.7", 8080, false))
        .add(svc(DNS, "10.96.0.10", 53), ready("10.244.2.9", 53, false)).build(), true, List.of());
    assertEquals(Set.of("KUBE-SVC-XRY76EGRC3BSCIIJ", "KUBE-SEP-NW5VICAF3Z2QABHQ", "KUBE-SEP-JPICTQTYOLMYNIJ7",
        "KUBE-SVC-2KKYJRIGYGQNRODB", "KUBE-SEP-N7QM4L24H7ML7J5M"), first.activeNatChains());
    assertEquals(4, first.filterRules());
    assertEquals(18, first.natRulesTotal());

    // demo/web: 10.244.2.7 replaced by 10.244.3.8. kube-system/dns unchanged: only its KUBE-SERVICES rule.
    Ruleset changed = generator.generate(V4, state()
        .add(svc(WEB, "10.96.12.34", 80), ready("10.244.1.5", 8080, true), ready("10.244.3.8", 8080, false))
        .add(svc(DNS, "10.96.0.10", 53), ready("10.244.2.9", 53, false))
        .changed(WEB).build(), false, first.activeNatChains());
    assertEquals("""
*filter
:KUBE-SERVICES - [0:0]
:KUBE-EXTERNAL-SERVICES - [0:0]
:KUBE-FORWARD - [0:0]
:KUBE-NODEPORTS - [0:0]
:KUBE-PROXY-FIREWALL - [0:0]
:KUBE-FIREWALL - [0:0]
-A KUBE-FIREWALL -m comment --comment "block incoming localnet connections" -d 127.0.0.0/8 ! -s 127.0.0.0/8 -m conntrack ! --ctstate RELATED,ESTABLISHED,DNAT -j DROP
-A KUBE-FORWARD -m conntrack --ctstate INVALID -j DROP
-A KUBE-FORWARD -m comment --comment "kubernetes forwarding rules" -m mark --mark 0x00004000/0x00004000 -j ACCEPT
-A KUBE-FORWARD -m comment --comment "kubernetes forwarding conntrack rule" -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT
COMMIT
*nat
:KUBE-SERVICES - [0:0]
:KUBE-NODEPORTS - [0:0]
:KUBE-POSTROUTING - [0:0]
:KUBE-MARK-MASQ - [0:0]
:KUBE-SVC-XRY76EGRC3BSCIIJ - [0:0]
:KUBE-SEP-NW5VICAF3Z2QABHQ - [0:0]
:KUBE-SEP-M2Y6KWOXXLJMAWI7 - [0:0]
:KUBE-SEP-JPICTQTYOLMYNIJ7 - [0:0]
-A KUBE-POSTROUTING -m mark ! --mark 0x00004000/0x00004000 -j RETURN
-A KUBE-POSTROUTING -j MARK --xor-mark 0x00004000
-A KUBE-POSTROUTING -m comment --comment "kubernetes service traffic requiring SNAT" -j MASQUERADE --random-fully
-A KUBE-MARK-MASQ -j MARK --or-mark 0x00004000
-A KUBE-SERVICES -m comment --comment "demo/web:http cluster IP" -m tcp -p tcp -d 10.96.12.34 --dport 80 -j KUBE-SVC-XRY76EGRC3BSCIIJ
-A KUBE-SVC-XRY76EGRC3BSCIIJ -m comment --comment "demo/web:http cluster IP" -m tcp -p tcp -d 10.96.12.34 --dport 80 ! -s 10.244.0.0/16 -j KUBE-MARK-MASQ
-A KUBE-SVC-XRY76EGRC3BSCIIJ -m comment --comment "demo/web:http -> 10.244.1.5:8080" -m statistic --mode random --probability 0.5000000000 -j KUBE-SEP-NW5VICAF3Z2QABHQ
-A KUBE-SVC-XRY76EGRC3BSCIIJ -m comment --comment "demo/web:http -> 10.244.3.8:8080" -j KUBE-SEP-M2Y6KWOXXLJMAWI7
-A KUBE-SEP-NW5VICAF3Z2QABHQ -m comment --comment demo/web:http -s 10.244.1.5 -j KUBE-MARK-MASQ
-A KUBE-SEP-NW5VICAF3Z2QABHQ -m comment --comment demo/web:http -m tcp -p tcp -j DNAT --to-destination 10.244.1.5:8080
-A KUBE-SEP-M2Y6KWOXXLJMAWI7 -m comment --comment demo/web:http -s 10.244.3.8 -j KUBE-MARK-MASQ
-A KUBE-SEP-M2Y6KWOXXLJMAWI7 -m comment --comment demo/web:http -m tcp -p tcp -j DNAT --to-destination 10.244.3.8:8080
-A KUBE-SERVICES -m comment --comment "kube-system/dns:dns cluster IP" -m udp -p udp -d 10.96.0.10 --dport 53 -j KUBE-SVC-2KKYJRIGYGQNRODB
-X KUBE-SEP-JPICTQTYOLMYNIJ7
-A KUBE-SERVICES -m comment --comment "kubernetes service nodeports; NOTE: this must be the last rule in this chain" -m addrtype --dst-type LOCAL -j KUBE-NODEPORTS
COMMIT
""", changed.payload());
    assertEquals(15, changed.natRulesWritten());
    assertEquals(4, changed.natRulesSkipped());
    assertEquals(1, changed.deletedChains());
    assertEquals(18, changed.natRulesTotal());
    assertEquals(14, changed.natRulesLast());
    assertTrue(changed.activeNatChains().contains("KUBE-SVC-2KKYJRIGYGQNRODB"), "unchanged chains stay active");

    // kube-system/dns deleted: its chains are flushed and deleted, nothing else is rewritten.
    Ruleset deleted = generator.generate(V4, state()
        .add(svc(WEB, "10.96.12.34", 80), ready("10.244.1.5", 8080, true), ready("10.244.3.8", 8080, false))
        .changed(DNS).build(), false, changed.activeNatChains());
    assertEquals("""
*filter
:KUBE-SERVICES - [0:0]
:KUBE-EXTERNAL-SERVICES - [0:0]
:KUBE-FORWARD - [0:0]
:KUBE-NODEPORTS - [0:0]
:KUBE-PROXY-FIREWALL - [0:0]
:KUBE-FIREWALL - [0:0]
-A KUBE-FIREWALL -m comment --comment "block incoming localnet connections" -d 127.0.0.0/8 ! -s 127.0.0.0/8 -m conntrack ! --ctstate RELATED,ESTABLISHED,DNAT -j DROP
-A KUBE-FORWARD -m conntrack --ctstate INVALID -j DROP
-A KUBE-FORWARD -m comment --comment "kubernetes forwarding rules" -m mark --mark 0x00004000/0x00004000 -j ACCEPT
-A KUBE-FORWARD -m comment --comment "kubernetes forwarding conntrack rule" -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT
COMMIT
*nat
:KUBE-SERVICES - [0:0]
:KUBE-NODEPORTS - [0:0]
:KUBE-POSTROUTING - [0:0]
:KUBE-MARK-MASQ - [0:0]
:KUBE-SEP-N7QM4L24H7ML7J5M - [0:0]
:KUBE-SVC-2KKYJRIGYGQNRODB - [0:0]
-A KUBE-POSTROUTING -m mark ! --mark 0x00004000/0x00004000 -j RETURN
-A KUBE-POSTROUTING -j MARK --xor-mark 0x00004000
-A KUBE-POSTROUTING -m comment --comment "kubernetes service traffic requiring SNAT" -j MASQUERADE --random-fully
-A KUBE-MARK-MASQ -j MARK --or-mark 0x00004000
-A KUBE-SERVICES -m comment --comment "demo/web:http cluster IP" -m tcp -p tcp -d 10.96.12.34 --dport 80 -j KUBE-SVC-XRY76EGRC3BSCIIJ
-X KUBE-SEP-N7QM4L24H7ML7J5M
-X KUBE-SVC-2KKYJRIGYGQNRODB
-A KUBE-SERVICES -m comment --comment "kubernetes service nodeports; NOTE: this must be the last rule in this chain" -m addrtype --dst-type LOCAL -j KUBE-NODEPORTS
COMMIT
""", deleted.payload());
    assertEquals(2, deleted.deletedChains());
    assertEquals(13, deleted.natRulesTotal());
    assertEquals(6, deleted.natRulesLast());
  }

  @Test
  void foreignChainsAreNeverDeleted() {
    Ruleset ruleset = new RulesetGenerator().generate(V4, state().build(), true,
        List.of("KUBE-SERVICES", "KUBE-MARK-DROP", "KUBE-KUBELET-CANARY", "CNI-HOSTPORT-DNAT", "KUBE-SEP-OLD0000000000000"));
    assertEquals(1, ruleset.deletedChains());
    assertTrue(ruleset.payload().contains(":KUBE-SEP-OLD0000000000000 - [0:0]\n"));
    assertTrue(ruleset.payload().contains("-X KUBE-SEP-OLD0000000000000\n"));
    assertFalse(ruleset.payload().contains("KUBE-MARK-DROP"));
  }

  @Test
  void largeClusterModeDropsServiceAndEndpointComments() {
    ModelFixtures.StateBuilder builder = state();
    for (int s = 0; s < 101; s++) {
      ServicePortName name = spn("big", "svc" + s, "p", "TCP");
      var eps = new dev.kubeproxy.model.Endpoint[10];
      for (int e = 0; e < 10; e++) {
        eps[e] = ready("10.244." + s + "." + (e + 1), 80, false);
      }
      builder.add(svc(name, "10.96.1." + s, 80), eps);
    }
    Ruleset ruleset = new RulesetGenerator().generate(V4, builder.build(), true, List.of());
    assertTrue(ruleset.largeClusterMode());
    String payload = ruleset.payload();
    assertTrue(payload.contains("\n-A KUBE-SERVICES -m comment --comment \"big/svc0:p cluster IP\" -m tcp -p tcp"
        + " -d 10.96.1.0 --dport 80 -j KUBE-SVC-"), "KUBE-SERVICES keeps its comments");
    for (String line : payload.split("\n")) {
      if (line.startsWith("-A KUBE-SEP-") || (line.startsWith("-A KUBE-SVC-") && !line.contains("KUBE-MARK-MASQ"))) {
        assertFalse(line.contains("--comment"), line);
      }
    }
    assertTrue(payload.contains(" -m statistic --mode random --probability 0.1000000000 -j KUBE-SEP-"));
  }

  @Test
  void probabilitiesAreFormattedLikeGo() {
    Probabilities probabilities = new Probabilities();
    assertEquals("0.5000000000", probabilities.of(2));
    assertEquals("0.3333333333", probabilities.of(3));
    assertEquals("0.2500000000", probabilities.of(4));
    assertEquals("0.1428571429", probabilities.of(7));
    assertEquals("0.0004882812", probabilities.of(2048));
  }

  @Test
  void noLocalEndpointCounts() {
    Ruleset ruleset = new RulesetGenerator().generate(V4, state()
        .add(svc(WEB, "10.96.12.34", 80).nodePort(30080).etpLocal(32000), ready("10.244.2.7", 8080, false))
        .add(svc(DNS, "10.96.0.10", 53).itpLocal(), ready("10.244.2.9", 53, false)).build(), true, List.of());
    assertEquals(1, ruleset.noLocalEndpointsInternal());
    assertEquals(1, ruleset.noLocalEndpointsExternal());
  }
}
