package dev.kubeproxy.backend.ipvs;

import static dev.kubeproxy.backend.ipvs.Fixtures.options;
import static dev.kubeproxy.testutil.ModelFixtures.ready;
import static dev.kubeproxy.testutil.ModelFixtures.spn;
import static dev.kubeproxy.testutil.ModelFixtures.state;
import static dev.kubeproxy.testutil.ModelFixtures.svc;
import static dev.kubeproxy.testutil.ModelFixtures.terminating;
import static dev.kubeproxy.backend.ipvs.Fixtures.withDetector;
import static dev.kubeproxy.backend.ipvs.Fixtures.withScheduler;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.kubeproxy.net.IpFamily;
import dev.kubeproxy.model.LocalTrafficDetector;
import dev.kubeproxy.testutil.tier.Unit;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The whole ipvs state per scenario (virtual and real servers, kube-ipvs0's addresses, ipset
 * entries, iptables-restore input), as pkg/proxy/ipvs/proxier_test.go states it for upstream v1.31.
 */
@Unit
class IpvsRulesetGeneratorTest {
  private final IpvsRulesetGenerator generator = new IpvsRulesetGenerator();

  /**
   * A ClusterIP service, one local endpoint: the local endpoint's hairpin entry; without local
   * traffic detection, traffic from a service IP (the node's own, through kube-ipvs0) is masqueraded.
   */
  @Test
  void clusterIP() {
    IpvsRuleset r = generator.generate(options(), state().add(svc(spn("demo", "web", "http", "TCP"), "10.96.0.10", 80),
        ready("10.244.1.5", 8080, true), ready("10.244.2.7", 8080, false)).build());
    assertEquals("""
# IPVS virtual servers
TCP 10.96.0.10:80 rr
  -> 10.244.1.5:8080 weight 1
  -> 10.244.2.7:8080 weight 1
# kube-ipvs0 addresses
10.96.0.10
# ipsets
KUBE-LOOP-BACK: 10.244.1.5,tcp:8080,10.244.1.5
KUBE-CLUSTER-IP: 10.96.0.10,tcp:80
KUBE-IPVS-IPS: 10.96.0.10
# iptables-restore input
*nat
:KUBE-SERVICES - [0:0]
:KUBE-POSTROUTING - [0:0]
:KUBE-NODE-PORT - [0:0]
:KUBE-LOAD-BALANCER - [0:0]
:KUBE-MARK-MASQ - [0:0]
-A KUBE-SERVICES -s 127.0.0.0/8 -j RETURN
-A KUBE-POSTROUTING -m comment --comment "Kubernetes endpoints dst ip:port, source ip for solving hairpin purpose" -m set --match-set KUBE-LOOP-BACK dst,dst,src -j MASQUERADE
-A KUBE-SERVICES -m comment --comment "Kubernetes service cluster ip + port for masquerade purpose" -m set --match-set KUBE-CLUSTER-IP src,dst -j KUBE-MARK-MASQ
-A KUBE-SERVICES -m addrtype --dst-type LOCAL -j KUBE-NODE-PORT
-A KUBE-LOAD-BALANCER -j KUBE-MARK-MASQ
-A KUBE-SERVICES -m set --match-set KUBE-CLUSTER-IP dst,dst -j ACCEPT
-A KUBE-POSTROUTING -m mark ! --mark 0x00004000/0x00004000 -j RETURN
-A KUBE-POSTROUTING -j MARK --xor-mark 0x00004000
-A KUBE-POSTROUTING -m comment --comment "kubernetes service traffic requiring SNAT" -j MASQUERADE --random-fully
-A KUBE-MARK-MASQ -j MARK --or-mark 0x00004000
COMMIT
*filter
:KUBE-FORWARD - [0:0]
:KUBE-NODE-PORT - [0:0]
:KUBE-PROXY-FIREWALL - [0:0]
:KUBE-SOURCE-RANGES-FIREWALL - [0:0]
:KUBE-IPVS-FILTER - [0:0]
:KUBE-IPVS-OUT-FILTER - [0:0]
-A KUBE-SOURCE-RANGES-FIREWALL -j DROP
-A KUBE-FORWARD -m comment --comment "kubernetes forwarding rules" -m mark --mark 0x00004000/0x00004000 -j ACCEPT
-A KUBE-FORWARD -m comment --comment "kubernetes forwarding conntrack rule" -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT
-A KUBE-NODE-PORT -m comment --comment "Kubernetes health check node port" -m set --match-set KUBE-HEALTH-CHECK-NODE-PORT dst -j ACCEPT
-A KUBE-IPVS-FILTER -m set --match-set KUBE-LOAD-BALANCER dst,dst -j RETURN
-A KUBE-IPVS-FILTER -m set --match-set KUBE-CLUSTER-IP dst,dst -j RETURN
-A KUBE-IPVS-FILTER -m set --match-set KUBE-EXTERNAL-IP dst,dst -j RETURN
-A KUBE-IPVS-FILTER -m set --match-set KUBE-EXTERNAL-IP-LOCAL dst,dst -j RETURN
-A KUBE-IPVS-FILTER -m set --match-set KUBE-HEALTH-CHECK-NODE-PORT dst -j RETURN
-A KUBE-IPVS-FILTER -m conntrack --ctstate NEW -m set --match-set KUBE-IPVS-IPS dst -j REJECT
COMMIT
""", r.describe());
  }

  /**
   * LoadBalancer with a source range that leaves the node out, a NodePort, an external IP, and
   * externalTrafficPolicy Local: external virtual servers get only the local endpoint, the ClusterIP
   * all; the LB's traffic from the node is dropped in KUBE-IPVS-OUT-FILTER; the health-check port is
   * accepted; off-cluster traffic to the cluster IP is masqueraded (ClusterCIDR detection).
   */
  @Test
  void loadBalancerNodePortAndExternalIPWithLocalPolicy() {
    IpvsRuleset r = generator.generate(withDetector(options(), new LocalTrafficDetector("ClusterCIDR", "10.244.0.0/16")),
        state().add(svc(spn("demo", "lb", "http", "TCP"), "10.96.0.20", 80).nodePort(30080).loadBalancer("203.0.113.7")
            .sourceRanges("198.51.100.0/24").externalIPs("192.0.2.50").etpLocal(31000),
        ready("10.244.1.5", 8080, true), ready("10.244.2.7", 8080, false)).build());
    assertEquals("""
# IPVS virtual servers
TCP 10.96.0.20:80 rr
  -> 10.244.1.5:8080 weight 1
  -> 10.244.2.7:8080 weight 1
TCP 192.0.2.50:80 rr
  -> 10.244.1.5:8080 weight 1
TCP 192.168.0.2:30080 rr
  -> 10.244.1.5:8080 weight 1
TCP 203.0.113.7:80 rr
  -> 10.244.1.5:8080 weight 1
# kube-ipvs0 addresses
10.96.0.20
192.0.2.50
203.0.113.7
# ipsets
KUBE-LOOP-BACK: 10.244.1.5,tcp:8080,10.244.1.5
KUBE-CLUSTER-IP: 10.96.0.20,tcp:80
KUBE-EXTERNAL-IP-LOCAL: 192.0.2.50,tcp:80
KUBE-LOAD-BALANCER: 203.0.113.7,tcp:80
KUBE-LOAD-BALANCER-FW: 203.0.113.7,tcp:80
KUBE-LOAD-BALANCER-LOCAL: 203.0.113.7,tcp:80
KUBE-LOAD-BALANCER-SOURCE-CIDR: 203.0.113.7,tcp:80,198.51.100.0/24
KUBE-NODE-PORT-TCP: 30080
KUBE-NODE-PORT-LOCAL-TCP: 30080
KUBE-HEALTH-CHECK-NODE-PORT: 31000
KUBE-IPVS-IPS: 10.96.0.20 192.0.2.50 203.0.113.7
# iptables-restore input
*nat
:KUBE-SERVICES - [0:0]
:KUBE-POSTROUTING - [0:0]
:KUBE-NODE-PORT - [0:0]
:KUBE-LOAD-BALANCER - [0:0]
:KUBE-MARK-MASQ - [0:0]
-A KUBE-SERVICES -s 127.0.0.0/8 -j RETURN
-A KUBE-POSTROUTING -m comment --comment "Kubernetes endpoints dst ip:port, source ip for solving hairpin purpose" -m set --match-set KUBE-LOOP-BACK dst,dst,src -j MASQUERADE
-A KUBE-SERVICES -m comment --comment "Kubernetes service lb portal" -m set --match-set KUBE-LOAD-BALANCER dst,dst -j KUBE-LOAD-BALANCER
-A KUBE-LOAD-BALANCER -m comment --comment "Kubernetes service load balancer ip + port with externalTrafficPolicy=local" -m set --match-set KUBE-LOAD-BALANCER-LOCAL dst,dst -j RETURN
-A KUBE-NODE-PORT -p tcp -m comment --comment "Kubernetes nodeport TCP port with externalTrafficPolicy=local" -m set --match-set KUBE-NODE-PORT-LOCAL-TCP dst -j RETURN
-A KUBE-NODE-PORT -p tcp -m comment --comment "Kubernetes nodeport TCP port for masquerade purpose" -m set --match-set KUBE-NODE-PORT-TCP dst -j KUBE-MARK-MASQ
-A KUBE-SERVICES -m comment --comment "Kubernetes service cluster ip + port for masquerade purpose" -m set --match-set KUBE-CLUSTER-IP dst,dst ! -s 10.244.0.0/16 -j KUBE-MARK-MASQ
-A KUBE-SERVICES -m comment --comment "Kubernetes service external ip + port with externalTrafficPolicy=local" -m set --match-set KUBE-EXTERNAL-IP-LOCAL dst,dst -m physdev ! --physdev-is-in -m addrtype ! --src-type LOCAL -j ACCEPT
-A KUBE-SERVICES -m comment --comment "Kubernetes service external ip + port with externalTrafficPolicy=local" -m set --match-set KUBE-EXTERNAL-IP-LOCAL dst,dst -m addrtype --dst-type LOCAL -j ACCEPT
-A KUBE-SERVICES -m addrtype --dst-type LOCAL -j KUBE-NODE-PORT
-A KUBE-LOAD-BALANCER -j KUBE-MARK-MASQ
-A KUBE-SERVICES -m set --match-set KUBE-CLUSTER-IP dst,dst -j ACCEPT
-A KUBE-SERVICES -m set --match-set KUBE-LOAD-BALANCER dst,dst -j ACCEPT
-A KUBE-POSTROUTING -m mark ! --mark 0x00004000/0x00004000 -j RETURN
-A KUBE-POSTROUTING -j MARK --xor-mark 0x00004000
-A KUBE-POSTROUTING -m comment --comment "kubernetes service traffic requiring SNAT" -j MASQUERADE --random-fully
-A KUBE-MARK-MASQ -j MARK --or-mark 0x00004000
COMMIT
*filter
:KUBE-FORWARD - [0:0]
:KUBE-NODE-PORT - [0:0]
:KUBE-PROXY-FIREWALL - [0:0]
:KUBE-SOURCE-RANGES-FIREWALL - [0:0]
:KUBE-IPVS-FILTER - [0:0]
:KUBE-IPVS-OUT-FILTER - [0:0]
-A KUBE-PROXY-FIREWALL -m comment --comment "Kubernetes service load balancer ip + port for load balancer with sourceRange" -m set --match-set KUBE-LOAD-BALANCER-FW dst,dst -j KUBE-SOURCE-RANGES-FIREWALL
-A KUBE-SOURCE-RANGES-FIREWALL -m comment --comment "Kubernetes service load balancer ip + port + source cidr for packet filter purpose" -m set --match-set KUBE-LOAD-BALANCER-SOURCE-CIDR dst,dst,src -j RETURN
-A KUBE-SOURCE-RANGES-FIREWALL -j DROP
-A KUBE-IPVS-OUT-FILTER -s 203.0.113.7 -m ipvs --vaddr 203.0.113.7 --vproto tcp --vport 80 -j DROP
-A KUBE-FORWARD -m comment --comment "kubernetes forwarding rules" -m mark --mark 0x00004000/0x00004000 -j ACCEPT
-A KUBE-FORWARD -m comment --comment "kubernetes forwarding conntrack rule" -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT
-A KUBE-NODE-PORT -m comment --comment "Kubernetes health check node port" -m set --match-set KUBE-HEALTH-CHECK-NODE-PORT dst -j ACCEPT
-A KUBE-IPVS-FILTER -m set --match-set KUBE-LOAD-BALANCER dst,dst -j RETURN
-A KUBE-IPVS-FILTER -m set --match-set KUBE-CLUSTER-IP dst,dst -j RETURN
-A KUBE-IPVS-FILTER -m set --match-set KUBE-EXTERNAL-IP dst,dst -j RETURN
-A KUBE-IPVS-FILTER -m set --match-set KUBE-EXTERNAL-IP-LOCAL dst,dst -j RETURN
-A KUBE-IPVS-FILTER -m set --match-set KUBE-HEALTH-CHECK-NODE-PORT dst -j RETURN
-A KUBE-IPVS-FILTER -m conntrack --ctstate NEW -m set --match-set KUBE-IPVS-IPS dst -j REJECT
COMMIT
""", r.describe());
  }

  /**
   * Session affinity as persistence, the mh scheduler's source-hash flag, UDP and SCTP NodePorts (SCTP
   * per node IP), internalTrafficPolicy Local without a local endpoint (falls back to the cluster
   * endpoints, counted in the no-local-endpoints metric), and only terminating endpoints (the serving
   * one is used).
   */
  @Test
  void affinitySchedulerProtocolsAndFallbacks() {
    IpvsRuleset r = generator.generate(withScheduler(options(), "mh"), state()
        .add(svc(spn("demo", "dns", "dns", "UDP"), "10.96.0.53", 53).nodePort(30053).affinity(10800),
            ready("10.244.2.7", 5353, false))
        .add(svc(spn("demo", "sig", "sig", "SCTP"), "10.96.0.60", 9000).nodePort(30900).itpLocal(),
            ready("10.244.2.8", 9000, false))
        .add(svc(spn("demo", "gone", "", "TCP"), "10.96.0.70", 80),
            terminating("10.244.2.9", 80, false, true), terminating("10.244.2.10", 80, false, false))
        .build());
    assertEquals("""
# IPVS virtual servers
UDP 10.96.0.53:53 mh persistent 10800 source-hash
  -> 10.244.2.7:5353 weight 1
SCTP 10.96.0.60:9000 mh source-hash
  -> 10.244.2.8:9000 weight 1
TCP 10.96.0.70:80 mh source-hash
  -> 10.244.2.9:80 weight 1
UDP 192.168.0.2:30053 mh persistent 10800 source-hash
  -> 10.244.2.7:5353 weight 1
SCTP 192.168.0.2:30900 mh source-hash
  -> 10.244.2.8:9000 weight 1
# kube-ipvs0 addresses
10.96.0.53
10.96.0.60
10.96.0.70
# ipsets
KUBE-CLUSTER-IP: 10.96.0.53,udp:53 10.96.0.60,sctp:9000 10.96.0.70,tcp:80
KUBE-NODE-PORT-UDP: 30053
KUBE-NODE-PORT-SCTP-HASH: 192.168.0.2,sctp:30900
KUBE-IPVS-IPS: 10.96.0.53 10.96.0.60 10.96.0.70
# iptables-restore input
*nat
:KUBE-SERVICES - [0:0]
:KUBE-POSTROUTING - [0:0]
:KUBE-NODE-PORT - [0:0]
:KUBE-LOAD-BALANCER - [0:0]
:KUBE-MARK-MASQ - [0:0]
-A KUBE-SERVICES -s 127.0.0.0/8 -j RETURN
-A KUBE-NODE-PORT -p udp -m comment --comment "Kubernetes nodeport UDP port for masquerade purpose" -m set --match-set KUBE-NODE-PORT-UDP dst -j KUBE-MARK-MASQ
-A KUBE-NODE-PORT -p sctp -m comment --comment "Kubernetes nodeport SCTP port for masquerade purpose with type 'hash ip:port'" -m set --match-set KUBE-NODE-PORT-SCTP-HASH dst,dst -j KUBE-MARK-MASQ
-A KUBE-SERVICES -m comment --comment "Kubernetes service cluster ip + port for masquerade purpose" -m set --match-set KUBE-CLUSTER-IP src,dst -j KUBE-MARK-MASQ
-A KUBE-SERVICES -m addrtype --dst-type LOCAL -j KUBE-NODE-PORT
-A KUBE-LOAD-BALANCER -j KUBE-MARK-MASQ
-A KUBE-SERVICES -m set --match-set KUBE-CLUSTER-IP dst,dst -j ACCEPT
-A KUBE-POSTROUTING -m mark ! --mark 0x00004000/0x00004000 -j RETURN
-A KUBE-POSTROUTING -j MARK --xor-mark 0x00004000
-A KUBE-POSTROUTING -m comment --comment "kubernetes service traffic requiring SNAT" -j MASQUERADE --random-fully
-A KUBE-MARK-MASQ -j MARK --or-mark 0x00004000
COMMIT
*filter
:KUBE-FORWARD - [0:0]
:KUBE-NODE-PORT - [0:0]
:KUBE-PROXY-FIREWALL - [0:0]
:KUBE-SOURCE-RANGES-FIREWALL - [0:0]
:KUBE-IPVS-FILTER - [0:0]
:KUBE-IPVS-OUT-FILTER - [0:0]
-A KUBE-SOURCE-RANGES-FIREWALL -j DROP
-A KUBE-FORWARD -m comment --comment "kubernetes forwarding rules" -m mark --mark 0x00004000/0x00004000 -j ACCEPT
-A KUBE-FORWARD -m comment --comment "kubernetes forwarding conntrack rule" -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT
-A KUBE-NODE-PORT -m comment --comment "Kubernetes health check node port" -m set --match-set KUBE-HEALTH-CHECK-NODE-PORT dst -j ACCEPT
-A KUBE-IPVS-FILTER -m set --match-set KUBE-LOAD-BALANCER dst,dst -j RETURN
-A KUBE-IPVS-FILTER -m set --match-set KUBE-CLUSTER-IP dst,dst -j RETURN
-A KUBE-IPVS-FILTER -m set --match-set KUBE-EXTERNAL-IP dst,dst -j RETURN
-A KUBE-IPVS-FILTER -m set --match-set KUBE-EXTERNAL-IP-LOCAL dst,dst -j RETURN
-A KUBE-IPVS-FILTER -m set --match-set KUBE-HEALTH-CHECK-NODE-PORT dst -j RETURN
-A KUBE-IPVS-FILTER -m conntrack --ctstate NEW -m set --match-set KUBE-IPVS-IPS dst -j REJECT
COMMIT
""", r.describe());
    assertEquals(Set.of("demo/sig"), r.noLocalEndpointsInternal());
    assertEquals(Set.of(), r.noLocalEndpointsExternal());
  }

  /**
   * IPv6: KUBE-6- set names (cut to 31 characters), ::1 returned early; masqueradeAll; an LB IP that
   * is a node address is not bound to kube-ipvs0; a source range that covers the node lets the node
   * reach its LB (KUBE-LOAD-BALANCER-SOURCE-IP); no --random-fully where iptables lacks it.
   */
  @Test
  void ipv6() {
    IpvsRulesetOptions o = new IpvsRulesetOptions(IpFamily.IPv6, "rr", true, "0x00004000", LocalTrafficDetector.noop(),
        false, "fd00::2", List.of("fd00::2"), Set.of("fd00::2", "2001:db8::7"));
    IpvsRuleset r = generator.generate(o, state().add(svc(spn("demo", "web6", "http", "TCP"), "fd00:96::10", 80)
        .loadBalancer("2001:db8::7").sourceRanges("fd00::/64").externalIPs("2001:db8::50"),
        ready("fd00:244::5", 8080, true)).build());
    assertEquals("""
# IPVS virtual servers
TCP [2001:db8::50]:80 rr
  -> [fd00:244::5]:8080 weight 1
TCP [2001:db8::7]:80 rr
  -> [fd00:244::5]:8080 weight 1
TCP [fd00:96::10]:80 rr
  -> [fd00:244::5]:8080 weight 1
# kube-ipvs0 addresses
2001:db8::50
fd00:96::10
# ipsets
KUBE-6-LOOP-BACK: fd00:244::5,tcp:8080,fd00:244::5
KUBE-6-CLUSTER-IP: fd00:96::10,tcp:80
KUBE-6-EXTERNAL-IP: 2001:db8::50,tcp:80
KUBE-6-LOAD-BALANCER: 2001:db8::7,tcp:80
KUBE-6-LOAD-BALANCER-FW: 2001:db8::7,tcp:80
KUBE-6-LOAD-BALANCER-SOURCE-IP: 2001:db8::7,tcp:80,2001:db8::7
KUBE-6-LOAD-BALANCER-SOURCE-CID: 2001:db8::7,tcp:80,fd00::/64
KUBE-6-IPVS-IPS: 2001:db8::50 fd00:96::10
# iptables-restore input
*nat
:KUBE-SERVICES - [0:0]
:KUBE-POSTROUTING - [0:0]
:KUBE-NODE-PORT - [0:0]
:KUBE-LOAD-BALANCER - [0:0]
:KUBE-MARK-MASQ - [0:0]
-A KUBE-SERVICES -s ::1/128 -j RETURN
-A KUBE-POSTROUTING -m comment --comment "Kubernetes endpoints dst ip:port, source ip for solving hairpin purpose" -m set --match-set KUBE-6-LOOP-BACK dst,dst,src -j MASQUERADE
-A KUBE-SERVICES -m comment --comment "Kubernetes service lb portal" -m set --match-set KUBE-6-LOAD-BALANCER dst,dst -j KUBE-LOAD-BALANCER
-A KUBE-SERVICES -m comment --comment "Kubernetes service cluster ip + port for masquerade purpose" -m set --match-set KUBE-6-CLUSTER-IP dst,dst -j KUBE-MARK-MASQ
-A KUBE-SERVICES -m comment --comment "Kubernetes service external ip + port for masquerade and filter purpose" -m set --match-set KUBE-6-EXTERNAL-IP dst,dst -j KUBE-MARK-MASQ
-A KUBE-SERVICES -m comment --comment "Kubernetes service external ip + port for masquerade and filter purpose" -m set --match-set KUBE-6-EXTERNAL-IP dst,dst -m physdev ! --physdev-is-in -m addrtype ! --src-type LOCAL -j ACCEPT
-A KUBE-SERVICES -m comment --comment "Kubernetes service external ip + port for masquerade and filter purpose" -m set --match-set KUBE-6-EXTERNAL-IP dst,dst -m addrtype --dst-type LOCAL -j ACCEPT
-A KUBE-SERVICES -m addrtype --dst-type LOCAL -j KUBE-NODE-PORT
-A KUBE-LOAD-BALANCER -j KUBE-MARK-MASQ
-A KUBE-SERVICES -m set --match-set KUBE-6-CLUSTER-IP dst,dst -j ACCEPT
-A KUBE-SERVICES -m set --match-set KUBE-6-LOAD-BALANCER dst,dst -j ACCEPT
-A KUBE-POSTROUTING -m mark ! --mark 0x00004000/0x00004000 -j RETURN
-A KUBE-POSTROUTING -j MARK --xor-mark 0x00004000
-A KUBE-POSTROUTING -m comment --comment "kubernetes service traffic requiring SNAT" -j MASQUERADE
-A KUBE-MARK-MASQ -j MARK --or-mark 0x00004000
COMMIT
*filter
:KUBE-FORWARD - [0:0]
:KUBE-NODE-PORT - [0:0]
:KUBE-PROXY-FIREWALL - [0:0]
:KUBE-SOURCE-RANGES-FIREWALL - [0:0]
:KUBE-IPVS-FILTER - [0:0]
:KUBE-IPVS-OUT-FILTER - [0:0]
-A KUBE-PROXY-FIREWALL -m comment --comment "Kubernetes service load balancer ip + port for load balancer with sourceRange" -m set --match-set KUBE-6-LOAD-BALANCER-FW dst,dst -j KUBE-SOURCE-RANGES-FIREWALL
-A KUBE-SOURCE-RANGES-FIREWALL -m comment --comment "Kubernetes service load balancer ip + port + source cidr for packet filter purpose" -m set --match-set KUBE-6-LOAD-BALANCER-SOURCE-CID dst,dst,src -j RETURN
-A KUBE-SOURCE-RANGES-FIREWALL -m comment --comment "Kubernetes service load balancer ip + port + source IP for packet filter purpose" -m set --match-set KUBE-6-LOAD-BALANCER-SOURCE-IP dst,dst,src -j RETURN
-A KUBE-SOURCE-RANGES-FIREWALL -j DROP
-A KUBE-FORWARD -m comment --comment "kubernetes forwarding rules" -m mark --mark 0x00004000/0x00004000 -j ACCEPT
-A KUBE-FORWARD -m comment --comment "kubernetes forwarding conntrack rule" -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT
-A KUBE-NODE-PORT -m comment --comment "Kubernetes health check node port" -m set --match-set KUBE-6-HEALTH-CHECK-NODE-PORT dst -j ACCEPT
-A KUBE-IPVS-FILTER -m set --match-set KUBE-6-LOAD-BALANCER dst,dst -j RETURN
-A KUBE-IPVS-FILTER -m set --match-set KUBE-6-CLUSTER-IP dst,dst -j RETURN
-A KUBE-IPVS-FILTER -m set --match-set KUBE-6-EXTERNAL-IP dst,dst -j RETURN
-A KUBE-IPVS-FILTER -m set --match-set KUBE-6-EXTERNAL-IP-LOCAL dst,dst -j RETURN
-A KUBE-IPVS-FILTER -m set --match-set KUBE-6-HEALTH-CHECK-NODE-PORT dst -j RETURN
-A KUBE-IPVS-FILTER -m conntrack --ctstate NEW -m set --match-set KUBE-6-IPVS-IPS dst -j REJECT
COMMIT
""", r.describe());
  }
}
