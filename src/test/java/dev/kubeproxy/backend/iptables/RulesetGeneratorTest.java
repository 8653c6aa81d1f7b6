package dev.kubeproxy.backend.iptables;

import static dev.kubeproxy.backend.iptables.Fixtures.clusterCidr;
import static dev.kubeproxy.testutil.ModelFixtures.hinted;
import static dev.kubeproxy.backend.iptables.Fixtures.options;
import static dev.kubeproxy.testutil.ModelFixtures.ready;
import static dev.kubeproxy.testutil.ModelFixtures.spn;
import static dev.kubeproxy.testutil.ModelFixtures.state;
import static dev.kubeproxy.testutil.ModelFixtures.svc;
import static dev.kubeproxy.testutil.ModelFixtures.terminating;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.kubeproxy.testutil.ModelFixtures;
import dev.kubeproxy.model.Endpoint;
import dev.kubeproxy.net.IpFamily;
import dev.kubeproxy.model.LocalTrafficDetector;
import dev.kubeproxy.model.ServicePortName;
import dev.kubeproxy.testutil.tier.Unit;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Whole iptables-restore inputs for each scenario, in upstream's test style (iptables.md §6–§9, §12).
 * Running example: demo/web:http, 10.96.12.34:80 → 8080; 10.244.1.5 is on this node, 10.244.2.7 is not.
 */
@Unit
class RulesetGeneratorTest {
  static final ServicePortName WEB = spn("demo", "web", "http", "TCP");
  static final ServicePortName DNS = spn("kube-system", "dns", "dns", "UDP");
  static final LocalTrafficDetector CLUSTER_CIDR = clusterCidr("10.244.0.0/16");
  static final RulesetOptions V4 = options(IpFamily.IPv4, CLUSTER_CIDR);

  static String generate(RulesetOptions options, ModelFixtures.StateBuilder state) {
    return new RulesetGenerator().generate(options, state.build(), true, List.of()).payload();
  }

  static RulesetOptions v4(LocalTrafficDetector detector, boolean masqueradeAll, boolean localhostNodePorts,
      boolean randomFully, boolean liberal) {
    return new RulesetOptions(IpFamily.IPv4, "0x00004000", masqueradeAll, localhostNodePorts, detector, randomFully,
        liberal, true, List.of(), List.of("192.168.200.10"));
  }

  static String scenarioClusterIP() {
    return generate(V4, state().add(svc(WEB, "10.96.12.34", 80),
        ready("10.244.1.5", 8080, true), ready("10.244.2.7", 8080, false)));
  }

  @Test
  void clusterIP() {
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
:KUBE-SEP-JPICTQTYOLMYNIJ7 - [0:0]
-A KUBE-POSTROUTING -m mark ! --mark 0x00004000/0x00004000 -j RETURN
-A KUBE-POSTROUTING -j MARK --xor-mark 0x00004000
-A KUBE-POSTROUTING -m comment --comment "kubernetes service traffic requiring SNAT" -j MASQUERADE --random-fully
-A KUBE-MARK-MASQ -j MARK --or-mark 0x00004000
-A KUBE-SERVICES -m comment --comment "demo/web:http cluster IP" -m tcp -p tcp -d 10.96.12.34 --dport 80 -j KUBE-SVC-XRY76EGRC3BSCIIJ
-A KUBE-SVC-XRY76EGRC3BSCIIJ -m comment --comment "demo/web:http cluster IP" -m tcp -p tcp -d 10.96.12.34 --dport 80 ! -s 10.244.0.0/16 -j KUBE-MARK-MASQ
-A KUBE-SVC-XRY76EGRC3BSCIIJ -m comment --comment "demo/web:http -> 10.244.1.5:8080" -m statistic --mode random --probability 0.5000000000 -j KUBE-SEP-NW5VICAF3Z2QABHQ
-A KUBE-SVC-XRY76EGRC3BSCIIJ -m comment --comment "demo/web:http -> 10.244.2.7:8080" -j KUBE-SEP-JPICTQTYOLMYNIJ7
-A KUBE-SEP-NW5VICAF3Z2QABHQ -m comment --comment demo/web:http -s 10.244.1.5 -j KUBE-MARK-MASQ
-A KUBE-SEP-NW5VICAF3Z2QABHQ -m comment --comment demo/web:http -m tcp -p tcp -j DNAT --to-destination 10.244.1.5:8080
-A KUBE-SEP-JPICTQTYOLMYNIJ7 -m comment --comment demo/web:http -s 10.244.2.7 -j KUBE-MARK-MASQ
-A KUBE-SEP-JPICTQTYOLMYNIJ7 -m comment --comment demo/web:http -m tcp -p tcp -j DNAT --to-destination 10.244.2.7:8080
-A KUBE-SERVICES -m comment --comment "kubernetes service nodeports; NOTE: this must be the last rule in this chain" -m addrtype --dst-type LOCAL -j KUBE-NODEPORTS
COMMIT
""", scenarioClusterIP());
  }

  static String scenarioNodePortAllAddresses() {
    return generate(V4, state().add(svc(WEB, "10.96.12.34", 80).nodePort(30080),
        ready("10.244.1.5", 8080, true), ready("10.244.2.7", 8080, false)));
  }

  @Test
  void nodePortOnAllAddresses() {
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
:KUBE-EXT-XRY76EGRC3BSCIIJ - [0:0]
:KUBE-SVC-XRY76EGRC3BSCIIJ - [0:0]
:KUBE-SEP-NW5VICAF3Z2QABHQ - [0:0]
:KUBE-SEP-JPICTQTYOLMYNIJ7 - [0:0]
-A KUBE-POSTROUTING -m mark ! --mark 0x00004000/0x00004000 -j RETURN
-A KUBE-POSTROUTING -j MARK --xor-mark 0x00004000
-A KUBE-POSTROUTING -m comment --comment "kubernetes service traffic requiring SNAT" -j MASQUERADE --random-fully
-A KUBE-MARK-MASQ -j MARK --or-mark 0x00004000
-A KUBE-SERVICES -m comment --comment "demo/web:http cluster IP" -m tcp -p tcp -d 10.96.12.34 --dport 80 -j KUBE-SVC-XRY76EGRC3BSCIIJ
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
""", scenarioNodePortAllAddresses());
  }

  static String scenarioNodePortAddresses() {
    // nodePortAddresses 192.168.200.0/24: one rule per node address inside it; no localhost NodePorts then.
    RulesetOptions options = new RulesetOptions(IpFamily.IPv4, "0x00004000", false, false, CLUSTER_CIDR, true,
        false, false, List.of("192.168.200.10", "192.168.200.11"), List.of("192.168.200.10"));
    return generate(options, state().add(svc(WEB, "10.96.12.34", 80).nodePort(30080),
        ready("10.244.1.5", 8080, true)));
  }

  @Test
  void nodePortWithNodePortAddresses() {
    assertEquals("""
*filter
:KUBE-SERVICES - [0:0]
:KUBE-EXTERNAL-SERVICES - [0:0]
:KUBE-FORWARD - [0:0]
:KUBE-NODEPORTS - [0:0]
:KUBE-PROXY-FIREWALL - [0:0]
-A KUBE-FORWARD -m conntrack --ctstate INVALID -j DROP
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
-A KUBE-POSTROUTING -m mark ! --mark 0x00004000/0x00004000 -j RETURN
-A KUBE-POSTROUTING -j MARK --xor-mark 0x00004000
-A KUBE-POSTROUTING -m comment --comment "kubernetes service traffic requiring SNAT" -j MASQUERADE --random-fully
-A KUBE-MARK-MASQ -j MARK --or-mark 0x00004000
-A KUBE-SERVICES -m comment --comment "demo/web:http cluster IP" -m tcp -p tcp -d 10.96.12.34 --dport 80 -j KUBE-SVC-XRY76EGRC3BSCIIJ
-A KUBE-NODEPORTS -m comment --comment demo/web:http -m tcp -p tcp --dport 30080 -j KUBE-EXT-XRY76EGRC3BSCIIJ
-A KUBE-SVC-XRY76EGRC3BSCIIJ -m comment --comment "demo/web:http cluster IP" -m tcp -p tcp -d 10.96.12.34 --dport 80 ! -s 10.244.0.0/16 -j KUBE-MARK-MASQ
-A KUBE-EXT-XRY76EGRC3BSCIIJ -m comment --comment "masquerade traffic for demo/web:http external destinations" -j KUBE-MARK-MASQ
-A KUBE-EXT-XRY76EGRC3BSCIIJ -j KUBE-SVC-XRY76EGRC3BSCIIJ
-A KUBE-SVC-XRY76EGRC3BSCIIJ -m comment --comment "demo/web:http -> 10.244.1.5:8080" -j KUBE-SEP-NW5VICAF3Z2QABHQ
-A KUBE-SEP-NW5VICAF3Z2QABHQ -m comment --comment demo/web:http -s 10.244.1.5 -j KUBE-MARK-MASQ
-A KUBE-SEP-NW5VICAF3Z2QABHQ -m comment --comment demo/web:http -m tcp -p tcp -j DNAT --to-destination 10.244.1.5:8080
-A KUBE-SERVICES -m comment --comment "kubernetes service nodeports; NOTE: this must be the last rule in this chain" -d 192.168.200.10 -j KUBE-NODEPORTS
-A KUBE-SERVICES -m comment --comment "kubernetes service nodeports; NOTE: this must be the last rule in this chain" -d 192.168.200.11 -j KUBE-NODEPORTS
COMMIT
""", scenarioNodePortAddresses());
  }

  static String scenarioExternalIPs() {
    return generate(V4, state().add(svc(WEB, "10.96.12.34", 80).externalIPs("192.0.2.50").externalIPs("192.0.2.51"),
        ready("10.244.2.7", 8080, false)));
  }

  @Test
  void externalIPs() {
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
:KUBE-EXT-XRY76EGRC3BSCIIJ - [0:0]
:KUBE-SVC-XRY76EGRC3BSCIIJ - [0:0]
:KUBE-SEP-JPICTQTYOLMYNIJ7 - [0:0]
-A KUBE-POSTROUTING -m mark ! --mark 0x00004000/0x00004000 -j RETURN
-A KUBE-POSTROUTING -j MARK --xor-mark 0x00004000
-A KUBE-POSTROUTING -m comment --comment "kubernetes service traffic requiring SNAT" -j MASQUERADE --random-fully
-A KUBE-MARK-MASQ -j MARK --or-mark 0x00004000
-A KUBE-SERVICES -m comment --comment "demo/web:http cluster IP" -m tcp -p tcp -d 10.96.12.34 --dport 80 -j KUBE-SVC-XRY76EGRC3BSCIIJ
-A KUBE-SERVICES -m comment --comment "demo/web:http external IP" -m tcp -p tcp -d 192.0.2.50 --dport 80 -j KUBE-EXT-XRY76EGRC3BSCIIJ
-A KUBE-SERVICES -m comment --comment "demo/web:http external IP" -m tcp -p tcp -d 192.0.2.51 --dport 80 -j KUBE-EXT-XRY76EGRC3BSCIIJ
-A KUBE-SVC-XRY76EGRC3BSCIIJ -m comment --comment "demo/web:http cluster IP" -m tcp -p tcp -d 10.96.12.34 --dport 80 ! -s 10.244.0.0/16 -j KUBE-MARK-MASQ
-A KUBE-EXT-XRY76EGRC3BSCIIJ -m comment --comment "masquerade traffic for demo/web:http external destinations" -j KUBE-MARK-MASQ
-A KUBE-EXT-XRY76EGRC3BSCIIJ -j KUBE-SVC-XRY76EGRC3BSCIIJ
-A KUBE-SVC-XRY76EGRC3BSCIIJ -m comment --comment "demo/web:http -> 10.244.2.7:8080" -j KUBE-SEP-JPICTQTYOLMYNIJ7
-A KUBE-SEP-JPICTQTYOLMYNIJ7 -m comment --comment demo/web:http -s 10.244.2.7 -j KUBE-MARK-MASQ
-A KUBE-SEP-JPICTQTYOLMYNIJ7 -m comment --comment demo/web:http -m tcp -p tcp -j DNAT --to-destination 10.244.2.7:8080
-A KUBE-SERVICES -m comment --comment "kubernetes service nodeports; NOTE: this must be the last rule in this chain" -m addrtype --dst-type LOCAL -j KUBE-NODEPORTS
COMMIT
""", scenarioExternalIPs());
  }

  static String scenarioLoadBalancerSourceRanges() {
    // Source range containing the node IP: the LB IP itself is allowed as a source too.
    return generate(V4, state().add(svc(WEB, "10.96.12.34", 80).nodePort(30080).loadBalancer("203.0.113.10")
            .sourceRanges("198.51.100.0/24").sourceRanges("192.168.200.0/24"),
        ready("10.244.1.5", 8080, true), ready("10.244.2.7", 8080, false)));
  }

  @Test
  void loadBalancerWithSourceRanges() {
    assertEquals("""
*filter
:KUBE-SERVICES - [0:0]
:KUBE-EXTERNAL-SERVICES - [0:0]
:KUBE-FORWARD - [0:0]
:KUBE-NODEPORTS - [0:0]
:KUBE-PROXY-FIREWALL - [0:0]
:KUBE-FIREWALL - [0:0]
-A KUBE-FIREWALL -m comment --comment "block incoming localnet connections" -d 127.0.0.0/8 ! -s 127.0.0.0/8 -m conntrack ! --ctstate RELATED,ESTABLISHED,DNAT -j DROP
-A KUBE-PROXY-FIREWALL -m comment --comment "demo/web:http traffic not accepted by KUBE-FW-XRY76EGRC3BSCIIJ" -m tcp -p tcp -d 203.0.113.10 --dport 80 -j DROP
-A KUBE-FORWARD -m conntrack --ctstate INVALID -j DROP
-A KUBE-FORWARD -m comment --comment "kubernetes forwarding rules" -m mark --mark 0x00004000/0x00004000 -j ACCEPT
-A KUBE-FORWARD -m comment --comment "kubernetes forwarding conntrack rule" -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT
COMMIT
*nat
:KUBE-SERVICES - [0:0]
:KUBE-NODEPORTS - [0:0]
:KUBE-POSTROUTING - [0:0]
:KUBE-MARK-MASQ - [0:0]
:KUBE-EXT-XRY76EGRC3BSCIIJ - [0:0]
:KUBE-FW-XRY76EGRC3BSCIIJ - [0:0]
:KUBE-SVC-XRY76EGRC3BSCIIJ - [0:0]
:KUBE-SEP-NW5VICAF3Z2QABHQ - [0:0]
:KUBE-SEP-JPICTQTYOLMYNIJ7 - [0:0]
-A KUBE-POSTROUTING -m mark ! --mark 0x00004000/0x00004000 -j RETURN
-A KUBE-POSTROUTING -j MARK --xor-mark 0x00004000
-A KUBE-POSTROUTING -m comment --comment "kubernetes service traffic requiring SNAT" -j MASQUERADE --random-fully
-A KUBE-MARK-MASQ -j MARK --or-mark 0x00004000
-A KUBE-SERVICES -m comment --comment "demo/web:http cluster IP" -m tcp -p tcp -d 10.96.12.34 --dport 80 -j KUBE-SVC-XRY76EGRC3BSCIIJ
-A KUBE-SERVICES -m comment --comment "demo/web:http loadbalancer IP" -m tcp -p tcp -d 203.0.113.10 --dport 80 -j KUBE-FW-XRY76EGRC3BSCIIJ
-A KUBE-NODEPORTS -m comment --comment demo/web:http -m tcp -p tcp --dport 30080 -j KUBE-EXT-XRY76EGRC3BSCIIJ
-A KUBE-SVC-XRY76EGRC3BSCIIJ -m comment --comment "demo/web:http cluster IP" -m tcp -p tcp -d 10.96.12.34 --dport 80 ! -s 10.244.0.0/16 -j KUBE-MARK-MASQ
-A KUBE-EXT-XRY76EGRC3BSCIIJ -m comment --comment "masquerade traffic for demo/web:http external destinations" -j KUBE-MARK-MASQ
-A KUBE-EXT-XRY76EGRC3BSCIIJ -j KUBE-SVC-XRY76EGRC3BSCIIJ
-A KUBE-FW-XRY76EGRC3BSCIIJ -m comment --comment "demo/web:http loadbalancer IP" -s 198.51.100.0/24 -j KUBE-EXT-XRY76EGRC3BSCIIJ
-A KUBE-FW-XRY76EGRC3BSCIIJ -m comment --comment "demo/web:http loadbalancer IP" -s 192.168.200.0/24 -j KUBE-EXT-XRY76EGRC3BSCIIJ
-A KUBE-FW-XRY76EGRC3BSCIIJ -m comment --comment "demo/web:http loadbalancer IP" -s 203.0.113.10 -j KUBE-EXT-XRY76EGRC3BSCIIJ
-A KUBE-FW-XRY76EGRC3BSCIIJ -m comment --comment "other traffic to demo/web:http will be dropped by KUBE-PROXY-FIREWALL"
-A KUBE-SVC-XRY76EGRC3BSCIIJ -m comment --comment "demo/web:http -> 10.244.1.5:8080" -m statistic --mode random --probability 0.5000000000 -j KUBE-SEP-NW5VICAF3Z2QABHQ
-A KUBE-SVC-XRY76EGRC3BSCIIJ -m comment --comment "demo/web:http -> 10.244.2.7:8080" -j KUBE-SEP-JPICTQTYOLMYNIJ7
-A KUBE-SEP-NW5VICAF3Z2QABHQ -m comment --comment demo/web:http -s 10.244.1.5 -j KUBE-MARK-MASQ
-A KUBE-SEP-NW5VICAF3Z2QABHQ -m comment --comment demo/web:http -m tcp -p tcp -j DNAT --to-destination 10.244.1.5:8080
-A KUBE-SEP-JPICTQTYOLMYNIJ7 -m comment --comment demo/web:http -s 10.244.2.7 -j KUBE-MARK-MASQ
-A KUBE-SEP-JPICTQTYOLMYNIJ7 -m comment --comment demo/web:http -m tcp -p tcp -j DNAT --to-destination 10.244.2.7:8080
-A KUBE-SERVICES -m comment --comment "kubernetes service nodeports; NOTE: this must be the last rule in this chain" -m addrtype --dst-type LOCAL -j KUBE-NODEPORTS
COMMIT
""", scenarioLoadBalancerSourceRanges());
  }

  static String scenarioExternalPolicyLocal() {
    // iptables.md §12.3: LoadBalancer, ETP Local, source range, external IP, health check node port.
    return generate(V4, state().add(svc(WEB, "10.96.12.34", 80).nodePort(30080).externalIPs("192.0.2.50")
            .loadBalancer("203.0.113.10").sourceRanges("198.51.100.0/24").etpLocal(32000),
        ready("10.244.1.5", 8080, true), ready("10.244.2.7", 8080, false)));
  }

  @Test
  void externalTrafficPolicyLocal() {
    assertEquals("""
*filter
:KUBE-SERVICES - [0:0]
:KUBE-EXTERNAL-SERVICES - [0:0]
:KUBE-FORWARD - [0:0]
:KUBE-NODEPORTS - [0:0]
:KUBE-PROXY-FIREWALL - [0:0]
:KUBE-FIREWALL - [0:0]
-A KUBE-FIREWALL -m comment --comment "block incoming localnet connections" -d 127.0.0.0/8 ! -s 127.0.0.0/8 -m conntrack ! --ctstate RELATED,ESTABLISHED,DNAT -j DROP
-A KUBE-PROXY-FIREWALL -m comment --comment "demo/web:http traffic not accepted by KUBE-FW-XRY76EGRC3BSCIIJ" -m tcp -p tcp -d 203.0.113.10 --dport 80 -j DROP
-A KUBE-NODEPORTS -m comment --comment "demo/web:http health check node port" -m tcp -p tcp --dport 32000 -j ACCEPT
-A KUBE-FORWARD -m conntrack --ctstate INVALID -j DROP
-A KUBE-FORWARD -m comment --comment "kubernetes forwarding rules" -m mark --mark 0x00004000/0x00004000 -j ACCEPT
-A KUBE-FORWARD -m comment --comment "kubernetes forwarding conntrack rule" -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT
COMMIT
*nat
:KUBE-SERVICES - [0:0]
:KUBE-NODEPORTS - [0:0]
:KUBE-POSTROUTING - [0:0]
:KUBE-MARK-MASQ - [0:0]
:KUBE-EXT-XRY76EGRC3BSCIIJ - [0:0]
:KUBE-FW-XRY76EGRC3BSCIIJ - [0:0]
:KUBE-SVC-XRY76EGRC3BSCIIJ - [0:0]
:KUBE-SVL-XRY76EGRC3BSCIIJ - [0:0]
:KUBE-SEP-NW5VICAF3Z2QABHQ - [0:0]
:KUBE-SEP-JPICTQTYOLMYNIJ7 - [0:0]
-A KUBE-POSTROUTING -m mark ! --mark 0x00004000/0x00004000 -j RETURN
-A KUBE-POSTROUTING -j MARK --xor-mark 0x00004000
-A KUBE-POSTROUTING -m comment --comment "kubernetes service traffic requiring SNAT" -j MASQUERADE --random-fully
-A KUBE-MARK-MASQ -j MARK --or-mark 0x00004000
-A KUBE-SERVICES -m comment --comment "demo/web:http cluster IP" -m tcp -p tcp -d 10.96.12.34 --dport 80 -j KUBE-SVC-XRY76EGRC3BSCIIJ
-A KUBE-SERVICES -m comment --comment "demo/web:http external IP" -m tcp -p tcp -d 192.0.2.50 --dport 80 -j KUBE-EXT-XRY76EGRC3BSCIIJ
-A KUBE-SERVICES -m comment --comment "demo/web:http loadbalancer IP" -m tcp -p tcp -d 203.0.113.10 --dport 80 -j KUBE-FW-XRY76EGRC3BSCIIJ
-A KUBE-NODEPORTS -m comment --comment demo/web:http -m tcp -p tcp --dport 30080 -j KUBE-EXT-XRY76EGRC3BSCIIJ
-A KUBE-SVC-XRY76EGRC3BSCIIJ -m comment --comment "demo/web:http cluster IP" -m tcp -p tcp -d 10.96.12.34 --dport 80 ! -s 10.244.0.0/16 -j KUBE-MARK-MASQ
-A KUBE-EXT-XRY76EGRC3BSCIIJ -m comment --comment "pod traffic for demo/web:http external destinations" -s 10.244.0.0/16 -j KUBE-SVC-XRY76EGRC3BSCIIJ
-A KUBE-EXT-XRY76EGRC3BSCIIJ -m comment --comment "masquerade LOCAL traffic for demo/web:http external destinations" -m addrtype --src-type LOCAL -j KUBE-MARK-MASQ
-A KUBE-EXT-XRY76EGRC3BSCIIJ -m comment --comment "route LOCAL traffic for demo/web:http external destinations" -m addrtype --src-type LOCAL -j KUBE-SVC-XRY76EGRC3BSCIIJ
-A KUBE-EXT-XRY76EGRC3BSCIIJ -j KUBE-SVL-XRY76EGRC3BSCIIJ
-A KUBE-FW-XRY76EGRC3BSCIIJ -m comment --comment "demo/web:http loadbalancer IP" -s 198.51.100.0/24 -j KUBE-EXT-XRY76EGRC3BSCIIJ
-A KUBE-FW-XRY76EGRC3BSCIIJ -m comment --comment "other traffic to demo/web:http will be dropped by KUBE-PROXY-FIREWALL"
-A KUBE-SVC-XRY76EGRC3BSCIIJ -m comment --comment "demo/web:http -> 10.244.1.5:8080" -m statistic --mode random --probability 0.5000000000 -j KUBE-SEP-NW5VICAF3Z2QABHQ
-A KUBE-SVC-XRY76EGRC3BSCIIJ -m comment --comment "demo/web:http -> 10.244.2.7:8080" -j KUBE-SEP-JPICTQTYOLMYNIJ7
-A KUBE-SVL-XRY76EGRC3BSCIIJ -m comment --comment "demo/web:http -> 10.244.1.5:8080" -j KUBE-SEP-NW5VICAF3Z2QABHQ
-A KUBE-SEP-NW5VICAF3Z2QABHQ -m comment --comment demo/web:http -s 10.244.1.5 -j KUBE-MARK-MASQ
-A KUBE-SEP-NW5VICAF3Z2QABHQ -m comment --comment demo/web:http -m tcp -p tcp -j DNAT --to-destination 10.244.1.5:8080
-A KUBE-SEP-JPICTQTYOLMYNIJ7 -m comment --comment demo/web:http -s 10.244.2.7 -j KUBE-MARK-MASQ
-A KUBE-SEP-JPICTQTYOLMYNIJ7 -m comment --comment demo/web:http -m tcp -p tcp -j DNAT --to-destination 10.244.2.7:8080
-A KUBE-SERVICES -m comment --comment "kubernetes service nodeports; NOTE: this must be the last rule in this chain" -m addrtype --dst-type LOCAL -j KUBE-NODEPORTS
COMMIT
""", scenarioExternalPolicyLocal());
  }

  static String scenarioExternalPolicyLocalWithoutLocalEndpoints() {
    return generate(V4, state().add(svc(WEB, "10.96.12.34", 80).nodePort(30080).externalIPs("192.0.2.50")
            .loadBalancer("203.0.113.10").etpLocal(32000),
        ready("10.244.2.7", 8080, false)));
  }

  @Test
  void externalTrafficPolicyLocalWithoutLocalEndpoints() {
    assertEquals("""
*filter
:KUBE-SERVICES - [0:0]
:KUBE-EXTERNAL-SERVICES - [0:0]
:KUBE-FORWARD - [0:0]
:KUBE-NODEPORTS - [0:0]
:KUBE-PROXY-FIREWALL - [0:0]
:KUBE-FIREWALL - [0:0]
-A KUBE-FIREWALL -m comment --comment "block incoming localnet connections" -d 127.0.0.0/8 ! -s 127.0.0.0/8 -m conntrack ! --ctstate RELATED,ESTABLISHED,DNAT -j DROP
-A KUBE-EXTERNAL-SERVICES -m comment --comment "demo/web:http has no local endpoints" -m tcp -p tcp -d 192.0.2.50 --dport 80 -j DROP
-A KUBE-EXTERNAL-SERVICES -m comment --comment "demo/web:http has no local endpoints" -m tcp -p tcp -d 203.0.113.10 --dport 80 -j DROP
-A KUBE-EXTERNAL-SERVICES -m comment --comment "demo/web:http has no local endpoints" -m addrtype --dst-type LOCAL -m tcp -p tcp --dport 30080 -j DROP
-A KUBE-NODEPORTS -m comment --comment "demo/web:http health check node port" -m tcp -p tcp --dport 32000 -j ACCEPT
-A KUBE-FORWARD -m conntrack --ctstate INVALID -j DROP
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
:KUBE-SEP-JPICTQTYOLMYNIJ7 - [0:0]
-A KUBE-POSTROUTING -m mark ! --mark 0x00004000/0x00004000 -j RETURN
-A KUBE-POSTROUTING -j MARK --xor-mark 0x00004000
-A KUBE-POSTROUTING -m comment --comment "kubernetes service traffic requiring SNAT" -j MASQUERADE --random-fully
-A KUBE-MARK-MASQ -j MARK --or-mark 0x00004000
-A KUBE-SERVICES -m comment --comment "demo/web:http cluster IP" -m tcp -p tcp -d 10.96.12.34 --dport 80 -j KUBE-SVC-XRY76EGRC3BSCIIJ
-A KUBE-SERVICES -m comment --comment "demo/web:http external IP" -m tcp -p tcp -d 192.0.2.50 --dport 80 -j KUBE-EXT-XRY76EGRC3BSCIIJ
-A KUBE-SERVICES -m comment --comment "demo/web:http loadbalancer IP" -m tcp -p tcp -d 203.0.113.10 --dport 80 -j KUBE-EXT-XRY76EGRC3BSCIIJ
-A KUBE-NODEPORTS -m comment --comment demo/web:http -m tcp -p tcp --dport 30080 -j KUBE-EXT-XRY76EGRC3BSCIIJ
-A KUBE-SVC-XRY76EGRC3BSCIIJ -m comment --comment "demo/web:http cluster IP" -m tcp -p tcp -d 10.96.12.34 --dport 80 ! -s 10.244.0.0/16 -j KUBE-MARK-MASQ
-A KUBE-EXT-XRY76EGRC3BSCIIJ -m comment --comment "pod traffic for demo/web:http external destinations" -s 10.244.0.0/16 -j KUBE-SVC-XRY76EGRC3BSCIIJ
-A KUBE-EXT-XRY76EGRC3BSCIIJ -m comment --comment "masquerade LOCAL traffic for demo/web:http external destinations" -m addrtype --src-type LOCAL -j KUBE-MARK-MASQ
-A KUBE-EXT-XRY76EGRC3BSCIIJ -m comment --comment "route LOCAL traffic for demo/web:http external destinations" -m addrtype --src-type LOCAL -j KUBE-SVC-XRY76EGRC3BSCIIJ
-A KUBE-SVC-XRY76EGRC3BSCIIJ -m comment --comment "demo/web:http -> 10.244.2.7:8080" -j KUBE-SEP-JPICTQTYOLMYNIJ7
-A KUBE-SEP-JPICTQTYOLMYNIJ7 -m comment --comment demo/web:http -s 10.244.2.7 -j KUBE-MARK-MASQ
-A KUBE-SEP-JPICTQTYOLMYNIJ7 -m comment --comment demo/web:http -m tcp -p tcp -j DNAT --to-destination 10.244.2.7:8080
-A KUBE-SERVICES -m comment --comment "kubernetes service nodeports; NOTE: this must be the last rule in this chain" -m addrtype --dst-type LOCAL -j KUBE-NODEPORTS
COMMIT
""", scenarioExternalPolicyLocalWithoutLocalEndpoints());
  }

  static String scenarioInternalPolicyLocal() {
    return generate(V4, state()
        .add(svc(WEB, "10.96.12.34", 80).itpLocal(), ready("10.244.1.5", 8080, true), ready("10.244.2.7", 8080, false))
        .add(svc(DNS, "10.96.0.10", 53).itpLocal(), ready("10.244.2.9", 53, false)));
  }

  @Test
  void internalTrafficPolicyLocal() {
    assertEquals("""
*filter
:KUBE-SERVICES - [0:0]
:KUBE-EXTERNAL-SERVICES - [0:0]
:KUBE-FORWARD - [0:0]
:KUBE-NODEPORTS - [0:0]
:KUBE-PROXY-FIREWALL - [0:0]
:KUBE-FIREWALL - [0:0]
-A KUBE-FIREWALL -m comment --comment "block incoming localnet connections" -d 127.0.0.0/8 ! -s 127.0.0.0/8 -m conntrack ! --ctstate RELATED,ESTABLISHED,DNAT -j DROP
-A KUBE-SERVICES -m comment --comment "kube-system/dns:dns has no local endpoints" -m udp -p udp -d 10.96.0.10 --dport 53 -j DROP
-A KUBE-FORWARD -m conntrack --ctstate INVALID -j DROP
-A KUBE-FORWARD -m comment --comment "kubernetes forwarding rules" -m mark --mark 0x00004000/0x00004000 -j ACCEPT
-A KUBE-FORWARD -m comment --comment "kubernetes forwarding conntrack rule" -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT
COMMIT
*nat
:KUBE-SERVICES - [0:0]
:KUBE-NODEPORTS - [0:0]
:KUBE-POSTROUTING - [0:0]
:KUBE-MARK-MASQ - [0:0]
:KUBE-SVL-XRY76EGRC3BSCIIJ - [0:0]
:KUBE-SEP-NW5VICAF3Z2QABHQ - [0:0]
-A KUBE-POSTROUTING -m mark ! --mark 0x00004000/0x00004000 -j RETURN
-A KUBE-POSTROUTING -j MARK --xor-mark 0x00004000
-A KUBE-POSTROUTING -m comment --comment "kubernetes service traffic requiring SNAT" -j MASQUERADE --random-fully
-A KUBE-MARK-MASQ -j MARK --or-mark 0x00004000
-A KUBE-SERVICES -m comment --comment "demo/web:http cluster IP" -m tcp -p tcp -d 10.96.12.34 --dport 80 -j KUBE-SVL-XRY76EGRC3BSCIIJ
-A KUBE-SVL-XRY76EGRC3BSCIIJ -m comment --comment "demo/web:http cluster IP" -m tcp -p tcp -d 10.96.12.34 --dport 80 ! -s 10.244.0.0/16 -j KUBE-MARK-MASQ
-A KUBE-SVL-XRY76EGRC3BSCIIJ -m comment --comment "demo/web:http -> 10.244.1.5:8080" -j KUBE-SEP-NW5VICAF3Z2QABHQ
-A KUBE-SEP-NW5VICAF3Z2QABHQ -m comment --comment demo/web:http -s 10.244.1.5 -j KUBE-MARK-MASQ
-A KUBE-SEP-NW5VICAF3Z2QABHQ -m comment --comment demo/web:http -m tcp -p tcp -j DNAT --to-destination 10.244.1.5:8080
-A KUBE-SERVICES -m comment --comment "kubernetes service nodeports; NOTE: this must be the last rule in this chain" -m addrtype --dst-type LOCAL -j KUBE-NODEPORTS
COMMIT
""", scenarioInternalPolicyLocal());
  }

  static String scenarioSessionAffinity() {
    return generate(V4, state().add(svc(WEB, "10.96.12.34", 80).affinity(10800),
        ready("10.244.1.5", 8080, true), ready("10.244.2.7", 8080, false)));
  }

  @Test
  void sessionAffinity() {
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
:KUBE-SEP-JPICTQTYOLMYNIJ7 - [0:0]
-A KUBE-POSTROUTING -m mark ! --mark 0x00004000/0x00004000 -j RETURN
-A KUBE-POSTROUTING -j MARK --xor-mark 0x00004000
-A KUBE-POSTROUTING -m comment --comment "kubernetes service traffic requiring SNAT" -j MASQUERADE --random-fully
-A KUBE-MARK-MASQ -j MARK --or-mark 0x00004000
-A KUBE-SERVICES -m comment --comment "demo/web:http cluster IP" -m tcp -p tcp -d 10.96.12.34 --dport 80 -j KUBE-SVC-XRY76EGRC3BSCIIJ
-A KUBE-SVC-XRY76EGRC3BSCIIJ -m comment --comment "demo/web:http cluster IP" -m tcp -p tcp -d 10.96.12.34 --dport 80 ! -s 10.244.0.0/16 -j KUBE-MARK-MASQ
-A KUBE-SVC-XRY76EGRC3BSCIIJ -m comment --comment "demo/web:http -> 10.244.1.5:8080" -m recent --name KUBE-SEP-NW5VICAF3Z2QABHQ --rcheck --seconds 10800 --reap -j KUBE-SEP-NW5VICAF3Z2QABHQ
-A KUBE-SVC-XRY76EGRC3BSCIIJ -m comment --comment "demo/web:http -> 10.244.2.7:8080" -m recent --name KUBE-SEP-JPICTQTYOLMYNIJ7 --rcheck --seconds 10800 --reap -j KUBE-SEP-JPICTQTYOLMYNIJ7
-A KUBE-SVC-XRY76EGRC3BSCIIJ -m comment --comment "demo/web:http -> 10.244.1.5:8080" -m statistic --mode random --probability 0.5000000000 -j KUBE-SEP-NW5VICAF3Z2QABHQ
-A KUBE-SVC-XRY76EGRC3BSCIIJ -m comment --comment "demo/web:http -> 10.244.2.7:8080" -j KUBE-SEP-JPICTQTYOLMYNIJ7
-A KUBE-SEP-NW5VICAF3Z2QABHQ -m comment --comment demo/web:http -s 10.244.1.5 -j KUBE-MARK-MASQ
-A KUBE-SEP-NW5VICAF3Z2QABHQ -m comment --comment demo/web:http -m recent --name KUBE-SEP-NW5VICAF3Z2QABHQ --set -m tcp -p tcp -j DNAT --to-destination 10.244.1.5:8080
-A KUBE-SEP-JPICTQTYOLMYNIJ7 -m comment --comment demo/web:http -s 10.244.2.7 -j KUBE-MARK-MASQ
-A KUBE-SEP-JPICTQTYOLMYNIJ7 -m comment --comment demo/web:http -m recent --name KUBE-SEP-JPICTQTYOLMYNIJ7 --set -m tcp -p tcp -j DNAT --to-destination 10.244.2.7:8080
-A KUBE-SERVICES -m comment --comment "kubernetes service nodeports; NOTE: this must be the last rule in this chain" -m addrtype --dst-type LOCAL -j KUBE-NODEPORTS
COMMIT
""", scenarioSessionAffinity());
  }

  static String scenarioNoEndpoints() {
    return generate(V4, state()
        .add(svc(WEB, "10.96.12.34", 80).nodePort(30080).externalIPs("192.0.2.50").loadBalancer("203.0.113.10")
            .sourceRanges("198.51.100.0/24"))
        .add(svc(DNS, "10.96.0.10", 53), new Endpoint("10.244.2.9", 53, false, false, false, false, null)));
  }

  @Test
  void noEndpointsAreRejected() {
    assertEquals("""
*filter
:KUBE-SERVICES - [0:0]
:KUBE-EXTERNAL-SERVICES - [0:0]
:KUBE-FORWARD - [0:0]
:KUBE-NODEPORTS - [0:0]
:KUBE-PROXY-FIREWALL - [0:0]
:KUBE-FIREWALL - [0:0]
-A KUBE-FIREWALL -m comment --comment "block incoming localnet connections" -d 127.0.0.0/8 ! -s 127.0.0.0/8 -m conntrack ! --ctstate RELATED,ESTABLISHED,DNAT -j DROP
-A KUBE-SERVICES -m comment --comment "demo/web:http has no endpoints" -m tcp -p tcp -d 10.96.12.34 --dport 80 -j REJECT
-A KUBE-EXTERNAL-SERVICES -m comment --comment "demo/web:http has no endpoints" -m tcp -p tcp -d 192.0.2.50 --dport 80 -j REJECT
-A KUBE-EXTERNAL-SERVICES -m comment --comment "demo/web:http has no endpoints" -m tcp -p tcp -d 203.0.113.10 --dport 80 -j REJECT
-A KUBE-EXTERNAL-SERVICES -m comment --comment "demo/web:http has no endpoints" -m addrtype --dst-type LOCAL -m tcp -p tcp --dport 30080 -j REJECT
-A KUBE-SERVICES -m comment --comment "kube-system/dns:dns has no endpoints" -m udp -p udp -d 10.96.0.10 --dport 53 -j REJECT
-A KUBE-FORWARD -m conntrack --ctstate INVALID -j DROP
-A KUBE-FORWARD -m comment --comment "kubernetes forwarding rules" -m mark --mark 0x00004000/0x00004000 -j ACCEPT
-A KUBE-FORWARD -m comment --comment "kubernetes forwarding conntrack rule" -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT
COMMIT
*nat
:KUBE-SERVICES - [0:0]
:KUBE-NODEPORTS - [0:0]
:KUBE-POSTROUTING - [0:0]
:KUBE-MARK-MASQ - [0:0]
-A KUBE-POSTROUTING -m mark ! --mark 0x00004000/0x00004000 -j RETURN
-A KUBE-POSTROUTING -j MARK --xor-mark 0x00004000
-A KUBE-POSTROUTING -m comment --comment "kubernetes service traffic requiring SNAT" -j MASQUERADE --random-fully
-A KUBE-MARK-MASQ -j MARK --or-mark 0x00004000
-A KUBE-SERVICES -m comment --comment "kubernetes service nodeports; NOTE: this must be the last rule in this chain" -m addrtype --dst-type LOCAL -j KUBE-NODEPORTS
COMMIT
""", scenarioNoEndpoints());
  }

  static String scenarioTerminatingFallback() {
    // No ready endpoint: the serving-and-terminating ones take over; non-serving ones never do.
    return generate(V4, state().add(svc(WEB, "10.96.12.34", 80),
        terminating("10.244.1.5", 8080, true, true), terminating("10.244.2.7", 8080, false, false),
        new Endpoint("10.244.3.3", 8080, false, false, false, false, null)));
  }

  @Test
  void terminatingFallback() {
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
""", scenarioTerminatingFallback());
  }

  static String scenarioTopologyHints() {
    return generate(V4, state().labels(Map.of("topology.kubernetes.io/zone", "zone-a"))
        .add(svc(WEB, "10.96.12.34", 80), hinted("10.244.1.5", 8080, true, "zone-a"),
            hinted("10.244.2.7", 8080, false, "zone-b"), hinted("10.244.3.8", 8080, false, "zone-a")));
  }

  @Test
  void topologyHints() {
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
-A KUBE-SERVICES -m comment --comment "kubernetes service nodeports; NOTE: this must be the last rule in this chain" -m addrtype --dst-type LOCAL -j KUBE-NODEPORTS
COMMIT
""", scenarioTopologyHints());
  }

  static String scenarioMasqueradeAll() {
    // Also: no --random-fully (old iptables) and nf_conntrack_tcp_be_liberal set (no INVALID drop).
    return generate(v4(CLUSTER_CIDR, true, true, false, true), state().add(svc(WEB, "10.96.12.34", 80).nodePort(30080),
        ready("10.244.1.5", 8080, true), ready("10.244.2.7", 8080, false), ready("10.244.3.8", 8080, false)));
  }

  @Test
  void masqueradeAll() {
    assertEquals("""
*filter
:KUBE-SERVICES - [0:0]
:KUBE-EXTERNAL-SERVICES - [0:0]
:KUBE-FORWARD - [0:0]
:KUBE-NODEPORTS - [0:0]
:KUBE-PROXY-FIREWALL - [0:0]
:KUBE-FIREWALL - [0:0]
-A KUBE-FIREWALL -m comment --comment "block incoming localnet connections" -d 127.0.0.0/8 ! -s 127.0.0.0/8 -m conntrack ! --ctstate RELATED,ESTABLISHED,DNAT -j DROP
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
:KUBE-SEP-M2Y6KWOXXLJMAWI7 - [0:0]
-A KUBE-POSTROUTING -m mark ! --mark 0x00004000/0x00004000 -j RETURN
-A KUBE-POSTROUTING -j MARK --xor-mark 0x00004000
-A KUBE-POSTROUTING -m comment --comment "kubernetes service traffic requiring SNAT" -j MASQUERADE
-A KUBE-MARK-MASQ -j MARK --or-mark 0x00004000
-A KUBE-SERVICES -m comment --comment "demo/web:http cluster IP" -m tcp -p tcp -d 10.96.12.34 --dport 80 -j KUBE-SVC-XRY76EGRC3BSCIIJ
-A KUBE-NODEPORTS -m comment --comment demo/web:http -m tcp -p tcp --dport 30080 -j KUBE-EXT-XRY76EGRC3BSCIIJ
-A KUBE-SVC-XRY76EGRC3BSCIIJ -m comment --comment "demo/web:http cluster IP" -m tcp -p tcp -d 10.96.12.34 --dport 80 -j KUBE-MARK-MASQ
-A KUBE-EXT-XRY76EGRC3BSCIIJ -m comment --comment "masquerade traffic for demo/web:http external destinations" -j KUBE-MARK-MASQ
-A KUBE-EXT-XRY76EGRC3BSCIIJ -j KUBE-SVC-XRY76EGRC3BSCIIJ
-A KUBE-SVC-XRY76EGRC3BSCIIJ -m comment --comment "demo/web:http -> 10.244.1.5:8080" -m statistic --mode random --probability 0.3333333333 -j KUBE-SEP-NW5VICAF3Z2QABHQ
-A KUBE-SVC-XRY76EGRC3BSCIIJ -m comment --comment "demo/web:http -> 10.244.2.7:8080" -m statistic --mode random --probability 0.5000000000 -j KUBE-SEP-JPICTQTYOLMYNIJ7
-A KUBE-SVC-XRY76EGRC3BSCIIJ -m comment --comment "demo/web:http -> 10.244.3.8:8080" -j KUBE-SEP-M2Y6KWOXXLJMAWI7
-A KUBE-SEP-NW5VICAF3Z2QABHQ -m comment --comment demo/web:http -s 10.244.1.5 -j KUBE-MARK-MASQ
-A KUBE-SEP-NW5VICAF3Z2QABHQ -m comment --comment demo/web:http -m tcp -p tcp -j DNAT --to-destination 10.244.1.5:8080
-A KUBE-SEP-JPICTQTYOLMYNIJ7 -m comment --comment demo/web:http -s 10.244.2.7 -j KUBE-MARK-MASQ
-A KUBE-SEP-JPICTQTYOLMYNIJ7 -m comment --comment demo/web:http -m tcp -p tcp -j DNAT --to-destination 10.244.2.7:8080
-A KUBE-SEP-M2Y6KWOXXLJMAWI7 -m comment --comment demo/web:http -s 10.244.3.8 -j KUBE-MARK-MASQ
-A KUBE-SEP-M2Y6KWOXXLJMAWI7 -m comment --comment demo/web:http -m tcp -p tcp -j DNAT --to-destination 10.244.3.8:8080
-A KUBE-SERVICES -m comment --comment "kubernetes service nodeports; NOTE: this must be the last rule in this chain" -m addrtype --dst-type LOCAL -j KUBE-NODEPORTS
COMMIT
""", scenarioMasqueradeAll());
  }

  static ModelFixtures.StateBuilder etpLocalNodePort() {
    return state().add(svc(WEB, "10.96.12.34", 80).nodePort(30080).etpLocal(32000),
        ready("10.244.1.5", 8080, true), ready("10.244.2.7", 8080, false));
  }

  static String scenarioDetectNodeCidr() {
    return generate(v4(new LocalTrafficDetector("NodeCIDR", "10.244.1.0/24"), false, true, true, false),
        etpLocalNodePort());
  }

  @Test
  void detectLocalNodeCidr() {
    assertEquals("""
*filter
:KUBE-SERVICES - [0:0]
:KUBE-EXTERNAL-SERVICES - [0:0]
:KUBE-FORWARD - [0:0]
:KUBE-NODEPORTS - [0:0]
:KUBE-PROXY-FIREWALL - [0:0]
:KUBE-FIREWALL - [0:0]
-A KUBE-FIREWALL -m comment --comment "block incoming localnet connections" -d 127.0.0.0/8 ! -s 127.0.0.0/8 -m conntrack ! --ctstate RELATED,ESTABLISHED,DNAT -j DROP
-A KUBE-NODEPORTS -m comment --comment "demo/web:http health check node port" -m tcp -p tcp --dport 32000 -j ACCEPT
-A KUBE-FORWARD -m conntrack --ctstate INVALID -j DROP
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
:KUBE-SVL-XRY76EGRC3BSCIIJ - [0:0]
:KUBE-SEP-NW5VICAF3Z2QABHQ - [0:0]
:KUBE-SEP-JPICTQTYOLMYNIJ7 - [0:0]
-A KUBE-POSTROUTING -m mark ! --mark 0x00004000/0x00004000 -j RETURN
-A KUBE-POSTROUTING -j MARK --xor-mark 0x00004000
-A KUBE-POSTROUTING -m comment --comment "kubernetes service traffic requiring SNAT" -j MASQUERADE --random-fully
-A KUBE-MARK-MASQ -j MARK --or-mark 0x00004000
-A KUBE-SERVICES -m comment --comment "demo/web:http cluster IP" -m tcp -p tcp -d 10.96.12.34 --dport 80 -j KUBE-SVC-XRY76EGRC3BSCIIJ
-A KUBE-NODEPORTS -m comment --comment demo/web:http -m tcp -p tcp --dport 30080 -j KUBE-EXT-XRY76EGRC3BSCIIJ
-A KUBE-SVC-XRY76EGRC3BSCIIJ -m comment --comment "demo/web:http cluster IP" -m tcp -p tcp -d 10.96.12.34 --dport 80 ! -s 10.244.1.0/24 -j KUBE-MARK-MASQ
-A KUBE-EXT-XRY76EGRC3BSCIIJ -m comment --comment "pod traffic for demo/web:http external destinations" -s 10.244.1.0/24 -j KUBE-SVC-XRY76EGRC3BSCIIJ
-A KUBE-EXT-XRY76EGRC3BSCIIJ -m comment --comment "masquerade LOCAL traffic for demo/web:http external destinations" -m addrtype --src-type LOCAL -j KUBE-MARK-MASQ
-A KUBE-EXT-XRY76EGRC3BSCIIJ -m comment --comment "route LOCAL traffic for demo/web:http external destinations" -m addrtype --src-type LOCAL -j KUBE-SVC-XRY76EGRC3BSCIIJ
-A KUBE-EXT-XRY76EGRC3BSCIIJ -j KUBE-SVL-XRY76EGRC3BSCIIJ
-A KUBE-SVC-XRY76EGRC3BSCIIJ -m comment --comment "demo/web:http -> 10.244.1.5:8080" -m statistic --mode random --probability 0.5000000000 -j KUBE-SEP-NW5VICAF3Z2QABHQ
-A KUBE-SVC-XRY76EGRC3BSCIIJ -m comment --comment "demo/web:http -> 10.244.2.7:8080" -j KUBE-SEP-JPICTQTYOLMYNIJ7
-A KUBE-SVL-XRY76EGRC3BSCIIJ -m comment --comment "demo/web:http -> 10.244.1.5:8080" -j KUBE-SEP-NW5VICAF3Z2QABHQ
-A KUBE-SEP-NW5VICAF3Z2QABHQ -m comment --comment demo/web:http -s 10.244.1.5 -j KUBE-MARK-MASQ
-A KUBE-SEP-NW5VICAF3Z2QABHQ -m comment --comment demo/web:http -m tcp -p tcp -j DNAT --to-destination 10.244.1.5:8080
-A KUBE-SEP-JPICTQTYOLMYNIJ7 -m comment --comment demo/web:http -s 10.244.2.7 -j KUBE-MARK-MASQ
-A KUBE-SEP-JPICTQTYOLMYNIJ7 -m comment --comment demo/web:http -m tcp -p tcp -j DNAT --to-destination 10.244.2.7:8080
-A KUBE-SERVICES -m comment --comment "kubernetes service nodeports; NOTE: this must be the last rule in this chain" -m addrtype --dst-type LOCAL -j KUBE-NODEPORTS
COMMIT
""", scenarioDetectNodeCidr());
  }

  static String scenarioDetectBridge() {
    return generate(v4(new LocalTrafficDetector("BridgeInterface", "cbr0"), false, true, true, false),
        etpLocalNodePort());
  }

  @Test
  void detectLocalBridgeInterface() {
    assertEquals("""
*filter
:KUBE-SERVICES - [0:0]
:KUBE-EXTERNAL-SERVICES - [0:0]
:KUBE-FORWARD - [0:0]
:KUBE-NODEPORTS - [0:0]
:KUBE-PROXY-FIREWALL - [0:0]
:KUBE-FIREWALL - [0:0]
-A KUBE-FIREWALL -m comment --comment "block incoming localnet connections" -d 127.0.0.0/8 ! -s 127.0.0.0/8 -m conntrack ! --ctstate RELATED,ESTABLISHED,DNAT -j DROP
-A KUBE-NODEPORTS -m comment --comment "demo/web:http health check node port" -m tcp -p tcp --dport 32000 -j ACCEPT
-A KUBE-FORWARD -m conntrack --ctstate INVALID -j DROP
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
:KUBE-SVL-XRY76EGRC3BSCIIJ - [0:0]
:KUBE-SEP-NW5VICAF3Z2QABHQ - [0:0]
:KUBE-SEP-JPICTQTYOLMYNIJ7 - [0:0]
-A KUBE-POSTROUTING -m mark ! --mark 0x00004000/0x00004000 -j RETURN
-A KUBE-POSTROUTING -j MARK --xor-mark 0x00004000
-A KUBE-POSTROUTING -m comment --comment "kubernetes service traffic requiring SNAT" -j MASQUERADE --random-fully
-A KUBE-MARK-MASQ -j MARK --or-mark 0x00004000
-A KUBE-SERVICES -m comment --comment "demo/web:http cluster IP" -m tcp -p tcp -d 10.96.12.34 --dport 80 -j KUBE-SVC-XRY76EGRC3BSCIIJ
-A KUBE-NODEPORTS -m comment --comment demo/web:http -m tcp -p tcp --dport 30080 -j KUBE-EXT-XRY76EGRC3BSCIIJ
-A KUBE-SVC-XRY76EGRC3BSCIIJ -m comment --comment "demo/web:http cluster IP" -m tcp -p tcp -d 10.96.12.34 --dport 80 ! -i cbr0 -j KUBE-MARK-MASQ
-A KUBE-EXT-XRY76EGRC3BSCIIJ -m comment --comment "pod traffic for demo/web:http external destinations" -i cbr0 -j KUBE-SVC-XRY76EGRC3BSCIIJ
-A KUBE-EXT-XRY76EGRC3BSCIIJ -m comment --comment "masquerade LOCAL traffic for demo/web:http external destinations" -m addrtype --src-type LOCAL -j KUBE-MARK-MASQ
-A KUBE-EXT-XRY76EGRC3BSCIIJ -m comment --comment "route LOCAL traffic for demo/web:http external destinations" -m addrtype --src-type LOCAL -j KUBE-SVC-XRY76EGRC3BSCIIJ
-A KUBE-EXT-XRY76EGRC3BSCIIJ -j KUBE-SVL-XRY76EGRC3BSCIIJ
-A KUBE-SVC-XRY76EGRC3BSCIIJ -m comment --comment "demo/web:http -> 10.244.1.5:8080" -m statistic --mode random --probability 0.5000000000 -j KUBE-SEP-NW5VICAF3Z2QABHQ
-A KUBE-SVC-XRY76EGRC3BSCIIJ -m comment --comment "demo/web:http -> 10.244.2.7:8080" -j KUBE-SEP-JPICTQTYOLMYNIJ7
-A KUBE-SVL-XRY76EGRC3BSCIIJ -m comment --comment "demo/web:http -> 10.244.1.5:8080" -j KUBE-SEP-NW5VICAF3Z2QABHQ
-A KUBE-SEP-NW5VICAF3Z2QABHQ -m comment --comment demo/web:http -s 10.244.1.5 -j KUBE-MARK-MASQ
-A KUBE-SEP-NW5VICAF3Z2QABHQ -m comment --comment demo/web:http -m tcp -p tcp -j DNAT --to-destination 10.244.1.5:8080
-A KUBE-SEP-JPICTQTYOLMYNIJ7 -m comment --comment demo/web:http -s 10.244.2.7 -j KUBE-MARK-MASQ
-A KUBE-SEP-JPICTQTYOLMYNIJ7 -m comment --comment demo/web:http -m tcp -p tcp -j DNAT --to-destination 10.244.2.7:8080
-A KUBE-SERVICES -m comment --comment "kubernetes service nodeports; NOTE: this must be the last rule in this chain" -m addrtype --dst-type LOCAL -j KUBE-NODEPORTS
COMMIT
""", scenarioDetectBridge());
  }

  static String scenarioDetectPrefix() {
    return generate(v4(new LocalTrafficDetector("InterfaceNamePrefix", "veth"), false, true, true, false),
        etpLocalNodePort());
  }

  @Test
  void detectLocalInterfaceNamePrefix() {
    assertEquals("""
*filter
:KUBE-SERVICES - [0:0]
:KUBE-EXTERNAL-SERVICES - [0:0]
:KUBE-FORWARD - [0:0]
:KUBE-NODEPORTS - [0:0]
:KUBE-PROXY-FIREWALL - [0:0]
:KUBE-FIREWALL - [0:0]
-A KUBE-FIREWALL -m comment --comment "block incoming localnet connections" -d 127.0.0.0/8 ! -s 127.0.0.0/8 -m conntrack ! --ctstate RELATED,ESTABLISHED,DNAT -j DROP
-A KUBE-NODEPORTS -m comment --comment "demo/web:http health check node port" -m tcp -p tcp --dport 32000 -j ACCEPT
-A KUBE-FORWARD -m conntrack --ctstate INVALID -j DROP
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
:KUBE-SVL-XRY76EGRC3BSCIIJ - [0:0]
:KUBE-SEP-NW5VICAF3Z2QABHQ - [0:0]
:KUBE-SEP-JPICTQTYOLMYNIJ7 - [0:0]
-A KUBE-POSTROUTING -m mark ! --mark 0x00004000/0x00004000 -j RETURN
-A KUBE-POSTROUTING -j MARK --xor-mark 0x00004000
-A KUBE-POSTROUTING -m comment --comment "kubernetes service traffic requiring SNAT" -j MASQUERADE --random-fully
-A KUBE-MARK-MASQ -j MARK --or-mark 0x00004000
-A KUBE-SERVICES -m comment --comment "demo/web:http cluster IP" -m tcp -p tcp -d 10.96.12.34 --dport 80 -j KUBE-SVC-XRY76EGRC3BSCIIJ
-A KUBE-NODEPORTS -m comment --comment demo/web:http -m tcp -p tcp --dport 30080 -j KUBE-EXT-XRY76EGRC3BSCIIJ
-A KUBE-SVC-XRY76EGRC3BSCIIJ -m comment --comment "demo/web:http cluster IP" -m tcp -p tcp -d 10.96.12.34 --dport 80 ! -i veth+ -j KUBE-MARK-MASQ
-A KUBE-EXT-XRY76EGRC3BSCIIJ -m comment --comment "pod traffic for demo/web:http external destinations" -i veth+ -j KUBE-SVC-XRY76EGRC3BSCIIJ
-A KUBE-EXT-XRY76EGRC3BSCIIJ -m comment --comment "masquerade LOCAL traffic for demo/web:http external destinations" -m addrtype --src-type LOCAL -j KUBE-MARK-MASQ
-A KUBE-EXT-XRY76EGRC3BSCIIJ -m comment --comment "route LOCAL traffic for demo/web:http external destinations" -m addrtype --src-type LOCAL -j KUBE-SVC-XRY76EGRC3BSCIIJ
-A KUBE-EXT-XRY76EGRC3BSCIIJ -j KUBE-SVL-XRY76EGRC3BSCIIJ
-A KUBE-SVC-XRY76EGRC3BSCIIJ -m comment --comment "demo/web:http -> 10.244.1.5:8080" -m statistic --mode random --probability 0.5000000000 -j KUBE-SEP-NW5VICAF3Z2QABHQ
-A KUBE-SVC-XRY76EGRC3BSCIIJ -m comment --comment "demo/web:http -> 10.244.2.7:8080" -j KUBE-SEP-JPICTQTYOLMYNIJ7
-A KUBE-SVL-XRY76EGRC3BSCIIJ -m comment --comment "demo/web:http -> 10.244.1.5:8080" -j KUBE-SEP-NW5VICAF3Z2QABHQ
-A KUBE-SEP-NW5VICAF3Z2QABHQ -m comment --comment demo/web:http -s 10.244.1.5 -j KUBE-MARK-MASQ
-A KUBE-SEP-NW5VICAF3Z2QABHQ -m comment --comment demo/web:http -m tcp -p tcp -j DNAT --to-destination 10.244.1.5:8080
-A KUBE-SEP-JPICTQTYOLMYNIJ7 -m comment --comment demo/web:http -s 10.244.2.7 -j KUBE-MARK-MASQ
-A KUBE-SEP-JPICTQTYOLMYNIJ7 -m comment --comment demo/web:http -m tcp -p tcp -j DNAT --to-destination 10.244.2.7:8080
-A KUBE-SERVICES -m comment --comment "kubernetes service nodeports; NOTE: this must be the last rule in this chain" -m addrtype --dst-type LOCAL -j KUBE-NODEPORTS
COMMIT
""", scenarioDetectPrefix());
  }

  static String scenarioDetectNone() {
    // No detector: no masquerade rule for off-cluster clients, no pod short-circuit in KUBE-EXT.
    return generate(v4(LocalTrafficDetector.noop(), false, true, true, false), etpLocalNodePort());
  }

  @Test
  void detectLocalNone() {
    assertEquals("""
*filter
:KUBE-SERVICES - [0:0]
:KUBE-EXTERNAL-SERVICES - [0:0]
:KUBE-FORWARD - [0:0]
:KUBE-NODEPORTS - [0:0]
:KUBE-PROXY-FIREWALL - [0:0]
:KUBE-FIREWALL - [0:0]
-A KUBE-FIREWALL -m comment --comment "block incoming localnet connections" -d 127.0.0.0/8 ! -s 127.0.0.0/8 -m conntrack ! --ctstate RELATED,ESTABLISHED,DNAT -j DROP
-A KUBE-NODEPORTS -m comment --comment "demo/web:http health check node port" -m tcp -p tcp --dport 32000 -j ACCEPT
-A KUBE-FORWARD -m conntrack --ctstate INVALID -j DROP
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
:KUBE-SVL-XRY76EGRC3BSCIIJ - [0:0]
:KUBE-SEP-NW5VICAF3Z2QABHQ - [0:0]
:KUBE-SEP-JPICTQTYOLMYNIJ7 - [0:0]
-A KUBE-POSTROUTING -m mark ! --mark 0x00004000/0x00004000 -j RETURN
-A KUBE-POSTROUTING -j MARK --xor-mark 0x00004000
-A KUBE-POSTROUTING -m comment --comment "kubernetes service traffic requiring SNAT" -j MASQUERADE --random-fully
-A KUBE-MARK-MASQ -j MARK --or-mark 0x00004000
-A KUBE-SERVICES -m comment --comment "demo/web:http cluster IP" -m tcp -p tcp -d 10.96.12.34 --dport 80 -j KUBE-SVC-XRY76EGRC3BSCIIJ
-A KUBE-NODEPORTS -m comment --comment demo/web:http -m tcp -p tcp --dport 30080 -j KUBE-EXT-XRY76EGRC3BSCIIJ
-A KUBE-EXT-XRY76EGRC3BSCIIJ -m comment --comment "masquerade LOCAL traffic for demo/web:http external destinations" -m addrtype --src-type LOCAL -j KUBE-MARK-MASQ
-A KUBE-EXT-XRY76EGRC3BSCIIJ -m comment --comment "route LOCAL traffic for demo/web:http external destinations" -m addrtype --src-type LOCAL -j KUBE-SVC-XRY76EGRC3BSCIIJ
-A KUBE-EXT-XRY76EGRC3BSCIIJ -j KUBE-SVL-XRY76EGRC3BSCIIJ
-A KUBE-SVC-XRY76EGRC3BSCIIJ -m comment --comment "demo/web:http -> 10.244.1.5:8080" -m statistic --mode random --probability 0.5000000000 -j KUBE-SEP-NW5VICAF3Z2QABHQ
-A KUBE-SVC-XRY76EGRC3BSCIIJ -m comment --comment "demo/web:http -> 10.244.2.7:8080" -j KUBE-SEP-JPICTQTYOLMYNIJ7
-A KUBE-SVL-XRY76EGRC3BSCIIJ -m comment --comment "demo/web:http -> 10.244.1.5:8080" -j KUBE-SEP-NW5VICAF3Z2QABHQ
-A KUBE-SEP-NW5VICAF3Z2QABHQ -m comment --comment demo/web:http -s 10.244.1.5 -j KUBE-MARK-MASQ
-A KUBE-SEP-NW5VICAF3Z2QABHQ -m comment --comment demo/web:http -m tcp -p tcp -j DNAT --to-destination 10.244.1.5:8080
-A KUBE-SEP-JPICTQTYOLMYNIJ7 -m comment --comment demo/web:http -s 10.244.2.7 -j KUBE-MARK-MASQ
-A KUBE-SEP-JPICTQTYOLMYNIJ7 -m comment --comment demo/web:http -m tcp -p tcp -j DNAT --to-destination 10.244.2.7:8080
-A KUBE-SERVICES -m comment --comment "kubernetes service nodeports; NOTE: this must be the last rule in this chain" -m addrtype --dst-type LOCAL -j KUBE-NODEPORTS
COMMIT
""", scenarioDetectNone());
  }

  static String scenarioLocalhostNodePortsOff() {
    return generate(v4(CLUSTER_CIDR, false, false, true, false), state().add(svc(WEB, "10.96.12.34", 80).nodePort(30080),
        ready("10.244.2.7", 8080, false)));
  }

  @Test
  void localhostNodePortsOff() {
    assertEquals("""
*filter
:KUBE-SERVICES - [0:0]
:KUBE-EXTERNAL-SERVICES - [0:0]
:KUBE-FORWARD - [0:0]
:KUBE-NODEPORTS - [0:0]
:KUBE-PROXY-FIREWALL - [0:0]
-A KUBE-FORWARD -m conntrack --ctstate INVALID -j DROP
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
:KUBE-SEP-JPICTQTYOLMYNIJ7 - [0:0]
-A KUBE-POSTROUTING -m mark ! --mark 0x00004000/0x00004000 -j RETURN
-A KUBE-POSTROUTING -j MARK --xor-mark 0x00004000
-A KUBE-POSTROUTING -m comment --comment "kubernetes service traffic requiring SNAT" -j MASQUERADE --random-fully
-A KUBE-MARK-MASQ -j MARK --or-mark 0x00004000
-A KUBE-SERVICES -m comment --comment "demo/web:http cluster IP" -m tcp -p tcp -d 10.96.12.34 --dport 80 -j KUBE-SVC-XRY76EGRC3BSCIIJ
-A KUBE-NODEPORTS -m comment --comment demo/web:http -m tcp -p tcp --dport 30080 -j KUBE-EXT-XRY76EGRC3BSCIIJ
-A KUBE-SVC-XRY76EGRC3BSCIIJ -m comment --comment "demo/web:http cluster IP" -m tcp -p tcp -d 10.96.12.34 --dport 80 ! -s 10.244.0.0/16 -j KUBE-MARK-MASQ
-A KUBE-EXT-XRY76EGRC3BSCIIJ -m comment --comment "masquerade traffic for demo/web:http external destinations" -j KUBE-MARK-MASQ
-A KUBE-EXT-XRY76EGRC3BSCIIJ -j KUBE-SVC-XRY76EGRC3BSCIIJ
-A KUBE-SVC-XRY76EGRC3BSCIIJ -m comment --comment "demo/web:http -> 10.244.2.7:8080" -j KUBE-SEP-JPICTQTYOLMYNIJ7
-A KUBE-SEP-JPICTQTYOLMYNIJ7 -m comment --comment demo/web:http -s 10.244.2.7 -j KUBE-MARK-MASQ
-A KUBE-SEP-JPICTQTYOLMYNIJ7 -m comment --comment demo/web:http -m tcp -p tcp -j DNAT --to-destination 10.244.2.7:8080
-A KUBE-SERVICES -m comment --comment "kubernetes service nodeports; NOTE: this must be the last rule in this chain" -m addrtype --dst-type LOCAL ! -d 127.0.0.0/8 -j KUBE-NODEPORTS
COMMIT
""", scenarioLocalhostNodePortsOff());
  }

  static String scenarioIPv6() {
    RulesetOptions v6 = options(IpFamily.IPv6, clusterCidr("fd00:10:244::/64"));
    return generate(v6, state().add(svc(WEB, "fd00:10:96::1234", 80).nodePort(30080).loadBalancer("2001:db8::10")
            .sourceRanges("2001:db8:1::/48"),
        ready("fd00:10:244::5", 8080, true), ready("fd00:10:244:0:1::7", 8080, false)));
  }

  @Test
  void ipv6() {
    assertEquals("""
*filter
:KUBE-SERVICES - [0:0]
:KUBE-EXTERNAL-SERVICES - [0:0]
:KUBE-FORWARD - [0:0]
:KUBE-NODEPORTS - [0:0]
:KUBE-PROXY-FIREWALL - [0:0]
-A KUBE-PROXY-FIREWALL -m comment --comment "demo/web:http traffic not accepted by KUBE-FW-XRY76EGRC3BSCIIJ" -m tcp -p tcp -d 2001:db8::10 --dport 80 -j DROP
-A KUBE-FORWARD -m conntrack --ctstate INVALID -j DROP
-A KUBE-FORWARD -m comment --comment "kubernetes forwarding rules" -m mark --mark 0x00004000/0x00004000 -j ACCEPT
-A KUBE-FORWARD -m comment --comment "kubernetes forwarding conntrack rule" -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT
COMMIT
*nat
:KUBE-SERVICES - [0:0]
:KUBE-NODEPORTS - [0:0]
:KUBE-POSTROUTING - [0:0]
:KUBE-MARK-MASQ - [0:0]
:KUBE-EXT-XRY76EGRC3BSCIIJ - [0:0]
:KUBE-FW-XRY76EGRC3BSCIIJ - [0:0]
:KUBE-SVC-XRY76EGRC3BSCIIJ - [0:0]
:KUBE-SEP-HFTBLXONP2YJOEIJ - [0:0]
:KUBE-SEP-KFHTZHN2PPBD6RND - [0:0]
-A KUBE-POSTROUTING -m mark ! --mark 0x00004000/0x00004000 -j RETURN
-A KUBE-POSTROUTING -j MARK --xor-mark 0x00004000
-A KUBE-POSTROUTING -m comment --comment "kubernetes service traffic requiring SNAT" -j MASQUERADE --random-fully
-A KUBE-MARK-MASQ -j MARK --or-mark 0x00004000
-A KUBE-SERVICES -m comment --comment "demo/web:http cluster IP" -m tcp -p tcp -d fd00:10:96::1234 --dport 80 -j KUBE-SVC-XRY76EGRC3BSCIIJ
-A KUBE-SERVICES -m comment --comment "demo/web:http loadbalancer IP" -m tcp -p tcp -d 2001:db8::10 --dport 80 -j KUBE-FW-XRY76EGRC3BSCIIJ
-A KUBE-NODEPORTS -m comment --comment demo/web:http -m tcp -p tcp --dport 30080 -j KUBE-EXT-XRY76EGRC3BSCIIJ
-A KUBE-SVC-XRY76EGRC3BSCIIJ -m comment --comment "demo/web:http cluster IP" -m tcp -p tcp -d fd00:10:96::1234 --dport 80 ! -s fd00:10:244::/64 -j KUBE-MARK-MASQ
-A KUBE-EXT-XRY76EGRC3BSCIIJ -m comment --comment "masquerade traffic for demo/web:http external destinations" -j KUBE-MARK-MASQ
-A KUBE-EXT-XRY76EGRC3BSCIIJ -j KUBE-SVC-XRY76EGRC3BSCIIJ
-A KUBE-FW-XRY76EGRC3BSCIIJ -m comment --comment "demo/web:http loadbalancer IP" -s 2001:db8:1::/48 -j KUBE-EXT-XRY76EGRC3BSCIIJ
-A KUBE-FW-XRY76EGRC3BSCIIJ -m comment --comment "other traffic to demo/web:http will be dropped by KUBE-PROXY-FIREWALL"
-A KUBE-SVC-XRY76EGRC3BSCIIJ -m comment --comment "demo/web:http -> [fd00:10:244:0:1::7]:8080" -m statistic --mode random --probability 0.5000000000 -j KUBE-SEP-HFTBLXONP2YJOEIJ
-A KUBE-SVC-XRY76EGRC3BSCIIJ -m comment --comment "demo/web:http -> [fd00:10:244::5]:8080" -j KUBE-SEP-KFHTZHN2PPBD6RND
-A KUBE-SEP-HFTBLXONP2YJOEIJ -m comment --comment demo/web:http -s fd00:10:244:0:1::7 -j KUBE-MARK-MASQ
-A KUBE-SEP-HFTBLXONP2YJOEIJ -m comment --comment demo/web:http -m tcp -p tcp -j DNAT --to-destination [fd00:10:244:0:1::7]:8080
-A KUBE-SEP-KFHTZHN2PPBD6RND -m comment --comment demo/web:http -s fd00:10:244::5 -j KUBE-MARK-MASQ
-A KUBE-SEP-KFHTZHN2PPBD6RND -m comment --comment demo/web:http -m tcp -p tcp -j DNAT --to-destination [fd00:10:244::5]:8080
-A KUBE-SERVICES -m comment --comment "kubernetes service nodeports; NOTE: this must be the last rule in this chain" -m addrtype --dst-type LOCAL ! -d ::1/128 -j KUBE-NODEPORTS
COMMIT
""", scenarioIPv6());
  }
}
