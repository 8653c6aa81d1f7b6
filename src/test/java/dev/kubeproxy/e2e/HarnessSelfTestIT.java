package dev.kubeproxy.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kubeproxy.testutil.tier.EndToEnd;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Proves the topology and the echo processes work without the agent: routing between all
 * namespaces, and hand-written DNAT rules (iptables-legacy, iptables-nft, nft) in the node
 * namespace carrying a client's traffic to a pod with the client's address preserved.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@ExtendWith(SharedTopology.class)
@EndToEnd
class HarnessSelfTestIT {
  private Topology topo;

  @BeforeAll
  void setUp(Topology shared) {
    topo = shared;
    topo.resetNode();
  }

  @AfterAll
  void tearDown() {
    if (topo != null) {
      topo.resetNode();
    }
  }

  @Test
  @Order(1)
  void routingReachesEveryPodFromTheNodeAndAcrossNodes() {
    for (Family f : Family.values()) {
      for (int i = 0; i < Topology.LOCAL_PODS.length; i++) {
        Answer a = topo.host("node").tcp(f.localPodIp(i), Topology.TCP_PORT);
        assertEquals(Topology.LOCAL_PODS[i], a.backend(), f + " node -> " + Topology.LOCAL_PODS[i] + ": " + a);
      }
      Answer remote = topo.host("pod-a").tcp(f.remotePodIp(), Topology.TCP_PORT);
      assertEquals("rpod", remote.backend(), f + " pod-a -> rpod: " + remote);
      assertTrue(remote.sourceIs(f.localPodIp(0)), f + " pod IPs are routed, not translated: " + remote);
      Answer udp = topo.host("rpod").udp(f.localPodIp(1), Topology.UDP_PORT, 0);
      assertEquals("pod-b", udp.backend(), f + " rpod -> pod-b udp: " + udp);
      Answer closed = topo.host("node").tcp(f.localPodIp(0), 9);
      assertTrue(closed.refused(), f + " a closed port is refused: " + closed);
      Answer noRoute = topo.host("client-a").tcp(f.localPodIp(0), Topology.TCP_PORT, 500);
      assertTrue(!noRoute.ok(), f + " clients have no route to pods: " + noRoute);
    }
  }

  @Test
  @Order(2)
  void handWrittenIptablesLegacyDnatCarriesClientTrafficToAPod() {
    Requirements.assumeTool("iptables-legacy");
    Netns node = topo.node();
    node.must("iptables-legacy", "-t", "nat", "-A", "PREROUTING", "-d", Family.V4.externalIp(0), "-p", "tcp",
        "--dport", "80", "-j", "DNAT", "--to-destination", Family.V4.localPodIp(0) + ":" + Topology.TCP_PORT);
    node.must("ip6tables-legacy", "-t", "nat", "-A", "PREROUTING", "-d", Family.V6.externalIp(0), "-p", "tcp",
        "--dport", "80", "-j", "DNAT", "--to-destination", "[" + Family.V6.localPodIp(0) + "]:" + Topology.TCP_PORT);
    try {
      for (Family f : Family.values()) {
        Answer a = topo.host("client-a").tcp(f.externalIp(0), 80);
        assertEquals("pod-a", a.backend(), f + " client-a -> DNAT -> pod-a: " + a);
        assertTrue(a.sourceIs(f.clientAIp()), f + " client address preserved: " + a);
      }
    } finally {
      node.exec("iptables-legacy", "-t", "nat", "-F", "PREROUTING");
      node.exec("ip6tables-legacy", "-t", "nat", "-F", "PREROUTING");
    }
  }

  @Test
  @Order(4)
  void rejectRulesAreSeenAsRefusedNotAsTimeouts() {
    Netns node = topo.node();
    String vip = Family.V4.serviceIp(200);
    for (String chain : new String[] {"OUTPUT", "FORWARD"}) {
      node.must("iptables", "-A", chain, "-d", vip, "-j", "REJECT");
    }
    try {
      Answer fromNode = topo.host("node").tcp(vip, 80);
      assertTrue(fromNode.refused(), "node -> rejected VIP: " + fromNode);
      Answer fromPod = topo.host("pod-a").tcp(vip, 80);
      assertTrue(fromPod.refused(), "pod -> rejected VIP: " + fromPod);
      Answer udp = topo.host("pod-a").udp(vip, 53, 0);
      assertTrue(udp.refused(), "pod -> rejected VIP over UDP: " + udp);
    } finally {
      node.exec("iptables", "-F", "OUTPUT");
      node.exec("iptables", "-F", "FORWARD");
    }
  }

  @Test
  @Order(3)
  void handWrittenNftDnatWithMasqueradeCarriesTrafficToARemotePod() {
    Netns node = topo.node();
    String ruleset = """
        table inet kp_e2e_selftest {
          chain pre { type nat hook prerouting priority dstnat; policy accept;
            ip daddr %s udp dport 53 dnat ip to %s:%d
            ip6 daddr %s tcp dport 80 dnat ip6 to [%s]:%d
          }
          chain post { type nat hook postrouting priority srcnat; policy accept;
            ct status dnat masquerade
          }
        }
        """.formatted(Family.V4.externalIp(1), Family.V4.remotePodIp(), Topology.UDP_PORT,
        Family.V6.externalIp(1), Family.V6.remotePodIp(), Topology.TCP_PORT);
    try {
      var r = node.exec("sh", "-c", "nft -f - <<'EOF'\n" + ruleset + "EOF\n");
      assertTrue(r.ok(), "nft -f: " + r.stderr());
      Answer udp = topo.host("client-b").udp(Family.V4.externalIp(1), 53, 0);
      assertEquals("rpod", udp.backend(), "udp via nft dnat: " + udp);
      assertTrue(udp.sourceIs(Family.V4.nodeIp()), "masqueraded to the node: " + udp);
      Answer tcp6 = topo.host("client-b").tcp(Family.V6.externalIp(1), 80);
      assertEquals("rpod", tcp6.backend(), "tcp6 via nft dnat: " + tcp6);
      assertTrue(tcp6.sourceIs(Family.V6.nodeIp()), "masqueraded to the node: " + tcp6);
      String conntrack = node.output("conntrack", "-L", "-p", "udp", "--orig-dst", Family.V4.externalIp(1));
      assertTrue(conntrack.contains("src=" + Family.V4.remotePodIp()), "conntrack sees the flow: " + conntrack);
    } finally {
      node.exec("nft", "delete", "table", "inet", "kp_e2e_selftest");
    }
  }
}
