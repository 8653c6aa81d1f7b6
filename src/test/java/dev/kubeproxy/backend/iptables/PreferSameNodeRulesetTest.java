package dev.kubeproxy.backend.iptables;

import static dev.kubeproxy.backend.iptables.Fixtures.clusterCidr;
import static dev.kubeproxy.backend.iptables.Fixtures.options;
import static dev.kubeproxy.testutil.ModelFixtures.spn;
import static dev.kubeproxy.testutil.ModelFixtures.state;
import static dev.kubeproxy.testutil.ModelFixtures.svc;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.kubeproxy.model.Endpoint;
import dev.kubeproxy.net.IpFamily;
import dev.kubeproxy.model.ServicePortName;
import dev.kubeproxy.testutil.tier.Unit;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * trafficDistribution PreferSameNode (KEP-3015, upstream 1.33+): with hints.forNodes on every
 * ready endpoint and one for this node, the Service's chain sends only to that one; zone hints
 * of the same endpoints are then not used. The whole ruleset, as upstream's tests.
 */
@Unit
class PreferSameNodeRulesetTest {
  static final ServicePortName WEB = spn("demo", "web", "http", "TCP");

  static Endpoint endpoint(String ip, boolean local, Endpoint.NodeHint hint, String zone) {
    return new Endpoint(ip, 8080, local, true, true, false, Set.of(zone), hint);
  }

  @Test
  void onlyTheEndpointHintedForThisNode() {
    String ruleset = new RulesetGenerator().generate(options(IpFamily.IPv4, clusterCidr("10.244.0.0/16")),
        state().labels(Map.of("topology.kubernetes.io/zone", "zone-a"))
            .add(svc(WEB, "10.96.12.34", 80),
                endpoint("10.244.1.5", true, Endpoint.NodeHint.THIS_NODE, "zone-a"),
                endpoint("10.244.2.7", false, Endpoint.NodeHint.OTHER_NODES, "zone-b"),
                endpoint("10.244.3.8", false, Endpoint.NodeHint.OTHER_NODES, "zone-a")).build(),
        true, List.of()).payload();
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
-A KUBE-POSTROUTING -m mark ! --mark 0x00004000/0x00004000 -j RETURN
-A KUBE-POSTROUTING -j MARK --xor-mark 0x00004000
-A KUBE-POSTROUTING -m comment --comment "kubernetes service traffic requiring SNAT" -j MASQUERADE --random-fully
-A KUBE-MARK-MASQ -j MARK --or-mark 0x00004000
-A KUBE-SERVICES -m comment --comment "demo/web:http cluster IP" -m tcp -p tcp -d 10.96.12.34 --dport 80 -j KUBE-SVC-XRY76EGRC3BSCIIJ
-A KUBE-SVC-XRY76EGRC3BSCIIJ -m comment --comment "demo/web:http cluster IP" -m tcp -p tcp -d 10.96.12.34 --dport 80 ! -s 10.244.0.0/16 -j KUBE-MARK-MASQ
-A KUBE-SVC-XRY76EGRC3BSCIIJ -m comment --comment "demo/web:http -> 10.244.1.5:8080" -j KUBE-SEP-NW5VICAF3Z2QABHQ
-A KUBE-SEP-NW5VICAF3Z2QABHQ -m comment --comment demo/web:http -s 10.244.1.5 -j KUBE-MARK-MASQ
-A KUBE-SEP-NW5VICAF3Z2QABHQ -m comment --comment demo/web:http -m tcp -p tcp -j DNAT --to-destination 10.244.1.5:8080
-A KUBE-SERVICES -m comment --comment "kubernetes service nodeports; NOTE: this must be the last rule in this chain" -m addrtype --dst-type LOCAL -j KUBE-NODEPORTS
COMMIT
""", ruleset);
  }
}
