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

import dev.kubeproxy.net.IpFamily;
import dev.kubeproxy.model.ServicePortName;
import dev.kubeproxy.testutil.tier.Unit;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The rules that count packets in nfacct counters when those exist (upstream 1.31 syncProxyRules):
 * the KUBE-FORWARD INVALID drop and the localhost NodePort jump. Whole rulesets, as upstream's tests.
 */
@Unit
class NfacctRulesetTest {
  static final ServicePortName WEB = spn("demo", "web", "http", "TCP");
  static final Set<String> BOTH = Set.of(NfacctCounters.CT_STATE_INVALID_DROPPED,
      NfacctCounters.LOCALHOST_NODEPORT_ACCEPTED);

  private static String nodePort(RulesetOptions options) {
    return new RulesetGenerator().generate(options, state().add(svc(WEB, "10.96.12.34", 80).nodePort(30080),
        ready("10.244.1.5", 8080, true), ready("10.244.2.7", 8080, false)).build(), true, List.of()).payload();
  }

  @Test
  void bothCountersOnIPv4() {
    assertEquals("""
*filter
:KUBE-SERVICES - [0:0]
:KUBE-EXTERNAL-SERVICES - [0:0]
:KUBE-FORWARD - [0:0]
:KUBE-NODEPORTS - [0:0]
:KUBE-PROXY-FIREWALL - [0:0]
:KUBE-FIREWALL - [0:0]
-A KUBE-FIREWALL -m comment --comment "block incoming localnet connections" -d 127.0.0.0/8 ! -s 127.0.0.0/8 -m conntrack ! --ctstate RELATED,ESTABLISHED,DNAT -j DROP
-A KUBE-FORWARD -m conntrack --ctstate INVALID -m nfacct --nfacct-name ct_state_invalid_dropped_pkts -j DROP
-A KUBE-FORWARD -m comment --comment "kubernetes forwarding rules" -m mark --mark 0x00004000/0x00004000 -j ACCEPT
-A KUBE-FORWARD -m comment --comment "kubernetes forwarding conntrack rule" -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT
COMMIT
*nat
:KUBE-SERVICES - [0:0]
:KUBE-NODEPORTS - [0:0]
:KUBE-POSTROUTING - [0:0]
:KUBE-MARK-MASQ - [0:0]
:KUBE-EXT-XRY76EGRC3BSCIIJ - [0:0]
:KUBE-SVC-XRY76EGRC3BSCIIJ - [0:0]
:KUBE-SEP-NW5VICAF3Z2QABHQ - [0:0]
:KUBE-SEP-JPICTQTYOLMYNIJ7 - [0:0]
-A KUBE-POSTROUTING -m mark ! --mark 0x00004000/0x00004000 -j RETURN
-A KUBE-POSTROUTING -j MARK --xor-mark 0x00004000
-A KUBE-POSTROUTING -m comment --comment "kubernetes service traffic requiring SNAT" -j MASQUERADE --random-fully
-A KUBE-MARK-MASQ -j MARK --or-mark 0x00004000
-A KUBE-SERVICES -m comment --comment "demo/web:http cluster IP" -m tcp -p tcp -d 10.96.12.34 --dport 80 -j KUBE-SVC-XRY76EGRC3BSCIIJ
-A KUBE-NODEPORTS -m comment --comment demo/web:http -m tcp -p tcp -d 127.0.0.0/8 --dport 30080 -m nfacct --nfacct-name localhost_nps_accepted_pkts -j KUBE-EXT-XRY76EGRC3BSCIIJ
-A KUBE-NODEPORTS -m comment --comment demo/web:http -m tcp -p tcp --dport 30080 -j KUBE-EXT-XRY76EGRC3BSCIIJ
-A KUBE-SVC-XRY76EGRC3BSCIIJ -m comment --comment "demo/web:http cluster IP" -m tcp -p tcp -d 10.96.12.34 --dport 80 ! -s 10.244.0.0/16 -j KUBE-MARK-MASQ
-A KUBE-EXT-XRY76EGRC3BSCIIJ -m comment --comment "masquerade traffic for demo/web:http external destinations" -j KUBE-MARK-MASQ
-A KUBE-EXT-XRY76EGRC3BSCIIJ -j KUBE-SVC-XRY76EGRC3BSCIIJ
-A KUBE-SVC-XRY76EGRC3BSCIIJ -m comment --comment "demo/web:http -> 10.244.1.5:8080" -m statistic --mode random --probability 0.5000000000 -j KUBE-SEP-NW5VICAF3Z2QABHQ
-A KUBE-SVC-XRY76EGRC3BSCIIJ -m comment --comment "demo/web:http -> 10.244.2.7:8080" -j KUBE-SEP-JPICTQTYOLMYNIJ7
-A KUBE-SEP-NW5VICAF3Z2QABHQ -m comment --comment demo/web:http -s 10.244.1.5 -j KUBE-MARK-MASQ
-A KUBE-SEP-NW5VICAF3Z2QABHQ -m comment --comment demo/web:http -m tcp -p tcp -j DNAT --to-destination 10.244.1.5:8080
-A KUBE-SEP-JPICTQTYOLMYNIJ7 -m comment --comment demo/web:http -s 10.244.2.7 -j KUBE-MARK-MASQ
-A KUBE-SEP-JPICTQTYOLMYNIJ7 -m comment --comment demo/web:http -m tcp -p tcp -j DNAT --to-destination 10.244.2.7:8080
-A KUBE-SERVICES -m comment --comment "kubernetes service nodeports; NOTE: this must be the last rule in this chain" -m addrtype --dst-type LOCAL -j KUBE-NODEPORTS
COMMIT
""", nodePort(options(IpFamily.IPv4, clusterCidr("10.244.0.0/16")).withNfacctCounters(BOTH)));
  }

  @Test
  void onlyTheCountersThatExistAreUsed() {
    String onlyInvalid = nodePort(options(IpFamily.IPv4, clusterCidr("10.244.0.0/16"))
        .withNfacctCounters(Set.of(NfacctCounters.CT_STATE_INVALID_DROPPED)));
    assertTrue(onlyInvalid.contains("--ctstate INVALID -m nfacct --nfacct-name ct_state_invalid_dropped_pkts -j DROP"));
    assertFalse(onlyInvalid.contains("localhost_nps_accepted_pkts"), onlyInvalid);
    assertFalse(onlyInvalid.contains("-d 127.0.0.0/8 --dport 30080"), "no counter, no extra localhost rule");

    String onlyLocalhost = nodePort(options(IpFamily.IPv4, clusterCidr("10.244.0.0/16"))
        .withNfacctCounters(Set.of(NfacctCounters.LOCALHOST_NODEPORT_ACCEPTED)));
    assertTrue(onlyLocalhost.contains("-A KUBE-FORWARD -m conntrack --ctstate INVALID -j DROP\n"), onlyLocalhost);
    assertTrue(onlyLocalhost.contains("-d 127.0.0.0/8 --dport 30080 -m nfacct --nfacct-name localhost_nps_accepted_pkts"));
  }

  @Test
  void ipv6AndDisabledLocalhostNodePortsHaveNoLocalhostRule() {
    RulesetOptions v6 = options(IpFamily.IPv6, clusterCidr("fd00:10:244::/64")).withNfacctCounters(BOTH);
    String ruleset = new RulesetGenerator().generate(v6, state().add(svc(WEB, "fd00:10:96::1234", 80).nodePort(30080),
        ready("fd00:10:244::5", 8080, true)).build(), true, List.of()).payload();
    assertTrue(ruleset.contains("--ctstate INVALID -m nfacct --nfacct-name ct_state_invalid_dropped_pkts -j DROP"));
    assertFalse(ruleset.contains("localhost_nps_accepted_pkts"), ruleset);

    RulesetOptions noLocalhost = new RulesetOptions(IpFamily.IPv4, "0x00004000", false, false,
        clusterCidr("10.244.0.0/16"), true, false, true, List.of(), List.of("192.168.200.10"), BOTH);
    assertFalse(nodePort(noLocalhost).contains("localhost_nps_accepted_pkts"));
  }

  @Test
  void liberalConntrackHasNoInvalidRuleAtAll() {
    RulesetOptions liberal = new RulesetOptions(IpFamily.IPv4, "0x00004000", false, true,
        clusterCidr("10.244.0.0/16"), true, true, true, List.of(), List.of("192.168.200.10"), BOTH);
    String ruleset = nodePort(liberal);
    assertFalse(ruleset.contains("INVALID"), ruleset);
    assertFalse(ruleset.contains("ct_state_invalid_dropped_pkts"), ruleset);
  }
}
