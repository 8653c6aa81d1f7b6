package dev.kubeproxy.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.kubeproxy.host.CommandRunner;
import dev.kubeproxy.testutil.Await;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.extension.TestWatcher;

/**
 * The real-traffic scenarios, run against one packaged agent per subclass (a proxy mode, an
 * iptables variant, a set of families) in the run's shared topology. Checks run in order and share the
 * agent; checks that change the cluster change only their own Service. Every check runs for
 * every family of the class; a check outside the class's set is skipped, saying so.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@ExtendWith(SharedTopology.class)
abstract class ProxyScenarios {
  /**
   * How long the agent may take to apply a change: generous, this machine is shared, and a sync
   * that fails (e.g. on a busy xtables lock) is retried only after syncPeriod (30 s).
   */
  static final Duration CONVERGE = Duration.ofSeconds(45);
  static final int HEALTH_CHECK_NODE_PORT = 30100;
  /**
   * How long a stale UDP entry may live after its change: one sync plus the reconcile. Below the
   * kernel's UDP timeout (30 s), so a check cannot pass by the entry expiring.
   */
  static final Duration RECONCILE = Duration.ofSeconds(20);

  // The test Services; numbers give cluster IPs (serviceIp(n)) and NodePorts (30000 + 2n).
  final ServiceDef web = new ServiceDef("web", 10).nodePort()
      .endpoints(Backend.POD_A, Backend.POD_B, Backend.RPOD);
  final ServiceDef ext = new ServiceDef("ext", 11).tcpOnly().externalIp(0).endpoints(Backend.POD_B);
  final ServiceDef lb = new ServiceDef("lb", 12).tcpOnly().loadBalancer(1).allowOnly("client-a")
      .endpoints(Backend.POD_C);
  final ServiceDef local = new ServiceDef("local", 13).tcpOnly().loadBalancer(2)
      .externalTrafficPolicyLocal(HEALTH_CHECK_NODE_PORT).endpoints(Backend.POD_A, Backend.RPOD);
  final ServiceDef itp = new ServiceDef("itp", 14).tcpOnly().internalTrafficPolicyLocal()
      .endpoints(Backend.POD_B, Backend.RPOD);
  final ServiceDef sticky = new ServiceDef("sticky", 15).tcpOnly().nodePort().sessionAffinity(600)
      .endpoints(Backend.POD_A, Backend.POD_B, Backend.POD_C, Backend.RPOD);
  final ServiceDef empty = new ServiceDef("empty", 16).nodePort().endpoints();
  final ServiceDef hairpin = new ServiceDef("hairpin", 17).tcpOnly().endpoints(Backend.POD_A);
  final ServiceDef churn = new ServiceDef("churn", 18).endpoints(Backend.POD_A, Backend.POD_B, Backend.POD_C);
  final ServiceDef scale = new ServiceDef("scale", 19).endpoints(Backend.POD_A, Backend.POD_B);
  final ServiceDef gone = new ServiceDef("gone", 20).endpoints(Backend.POD_A);
  final ServiceDef sameNode = new ServiceDef("same-node", 21).tcpOnly().preferSameNode()
      .endpoints(Backend.POD_A, Backend.RPOD);
  final ServiceDef sameZone = new ServiceDef("same-zone", 22).tcpOnly()
      .preferSameZone("PreferSameZone", java.util.Map.of(Backend.POD_B, Manifests.NODE_ZONE, Backend.RPOD, "zone-b"))
      .endpoints(Backend.POD_B, Backend.RPOD);
  final ServiceDef close = new ServiceDef("close", 23).tcpOnly()
      .preferSameZone("PreferClose", java.util.Map.of(Backend.POD_C, "zone-b", Backend.RPOD, Manifests.NODE_ZONE))
      .endpoints(Backend.POD_C, Backend.RPOD);

  Topology topo;
  Manifests manifests;
  KubeProxyAgent agent;

  /** A failed check leaves the agent's threads in its log: a sync that hangs shows where. */
  @RegisterExtension
  final TestWatcher threadDumpOnFailure = new TestWatcher() {
    @Override
    public void testFailed(ExtensionContext context, Throwable cause) {
      if (agent != null) {
        agent.threadDump(context.getDisplayName() + " failed");
      }
    }
  };

  /** "iptables" or "nftables". */
  abstract String mode();

  abstract List<Family> families();

  abstract Set<Check> checks();

  /** The iptables variant the agent must use, or null in nftables mode. */
  IptablesVariant iptablesVariant() {
    return null;
  }

  String label() {
    return getClass().getSimpleName();
  }

  @BeforeAll
  void startAgent(Topology shared) throws Exception {
    Requirements.assumeTool("conntrack");
    Path jar = Requirements.assumeAgentJar();
    if (iptablesVariant() != null) {
      Requirements.assumeTool(iptablesVariant().binary(false));
    }
    topo = shared;
    topo.resetNode();
    Path dir = topo.classDir(label());
    manifests = new Manifests(dir.resolve("manifests"), families());
    for (ServiceDef s : List.of(web, ext, lb, local, itp, sticky, empty, hairpin, churn, scale, gone, sameNode,
        sameZone, close)) {
      manifests.put(s);
    }
    Path binDir = null;
    if (iptablesVariant() != null) {
      binDir = iptablesVariant().binDir(dir);
      iptablesVariant().markNode(topo.node());
    }
    agent = new KubeProxyAgent(topo, jar, mode(), manifests, families(), binDir, dir, List.of());
    agent.start();
    agent.awaitHealthy(Duration.ofSeconds(90));
    for (Family f : families()) {
      Await.until(f + " first sync: node -> web cluster IP (agent log: " + agent.log() + ")", Duration.ofSeconds(90),
          () -> topo.host("node").tcp(web.clusterIp(f), ServiceDef.TCP), Answer::ok);
    }
  }

  @AfterAll
  void stopAgent() {
    if (agent != null) {
      agent.close();
    }
  }

  void require(Check c) {
    assumeTrue(checks().contains(c), c + " is not in the reduced set of " + label()
        + " (it runs in the full IPv4 classes)");
  }

  // ---------------------------------------------------------------- checks

  @Test
  @Order(1)
  void rulesAreInTheExpectedBackend() {
    Netns node = topo.node();
    if (iptablesVariant() == null) {
      String ruleset = node.output("nft", "list", "tables");
      for (Family f : families()) {
        String table = "table " + (f.v6() ? "ip6" : "ip") + " kube-proxy";
        assertTrue(ruleset.contains(table), "nftables mode must create `" + table + "`; tables: " + ruleset);
      }
      // Transactions (the first load and every later check's changes) go over netlink, not through nft.
      assertTrue(agent.tail(Integer.MAX_VALUE).contains("transactions go to nf_tables over netlink"),
          "the agent opened its netlink socket; log:\n" + agent.tail(40));
    } else {
      IptablesVariant used = iptablesVariant();
      IptablesVariant other = used == IptablesVariant.LEGACY ? IptablesVariant.NFT : IptablesVariant.LEGACY;
      for (Family f : families()) {
        String mine = used.save(node, f.v6());
        assertTrue(mine.contains(":KUBE-SERVICES"), f + ": no KUBE-SERVICES in " + used.saveBinary(f.v6())
            + " although the node was pinned to " + used + ":\n" + mine);
        String theirs = other.save(node, f.v6());
        assertFalse(theirs.contains("KUBE-SERVICES"), f + ": the agent also wrote rules with "
            + other.saveBinary(f.v6()) + ":\n" + theirs);
      }
    }
  }

  /** Upstream v1.33's per-family /healthz: a status entry for each family of the scenario, healthy after the first syncs. */
  @Test
  @Order(1)
  void healthzReportsEveryFamily() {
    String body = topo.node().output("curl", "-s", "--max-time", "5", "http://127.0.0.1:" + KubeProxyAgent.HEALTHZ_PORT + "/healthz");
    assertTrue(body.startsWith("{\"lastUpdated\":\"") && body.contains(",\"nodeEligible\":true,\"healthy\":true,\"status\":{"), body);
    for (Family f : families()) {
      assertTrue(body.matches(".*\"" + f.apiName() + "\":\\{\"lastUpdated\":\"[0-9T:.+Z-]+\",\"healthy\":true}.*"),
          f + " missing from " + body);
    }
  }

  @Test
  @Order(2)
  void clusterIpFromAPodReachesEveryEndpointWithThePodAddressKept() {
    require(Check.CLUSTER_IP_FROM_POD);
    for (Family f : families()) {
      List<Answer> answers = probeTcp(topo.host("pod-c"), web.clusterIp(f), ServiceDef.TCP, 30);
      assertEquals(Set.of("pod-a", "pod-b", "rpod"), backends(answers),
          f + " 30 connections from pod-c should reach all three endpoints: " + answers);
      for (Answer a : answers) {
        assertTrue(a.sourceIs(f.localPodIp(2)), f + " pod-to-service traffic is not masqueraded: " + a);
      }
      assertExplained(f, web, f.localPodIp(2), web.clusterIp(f), ServiceDef.TCP, answers);
    }
  }

  @Test
  @Order(3)
  void clusterIpFromTheNode() {
    require(Check.CLUSTER_IP_FROM_NODE);
    for (Family f : families()) {
      List<Answer> answers = probeTcp(topo.host("node"), web.clusterIp(f), ServiceDef.TCP, 20);
      assertTrue(Set.of("pod-a", "pod-b", "rpod").containsAll(backends(answers)) && allOk(answers),
          f + " node -> cluster IP: " + answers);
    }
  }

  @Test
  @Order(4)
  void clusterIpOverUdp() {
    require(Check.CLUSTER_IP_UDP);
    for (Family f : families()) {
      List<Answer> answers = new ArrayList<>();
      for (int i = 0; i < 10; i++) {
        answers.add(topo.host("pod-c").udp(web.clusterIp(f), ServiceDef.UDP, 0));
      }
      assertTrue(allOk(answers) && Set.of("pod-a", "pod-b", "rpod").containsAll(backends(answers)),
          f + " pod-c -> cluster IP udp: " + answers);
    }
  }

  @Test
  @Order(5)
  void nodePortFromAnOutsideClient() {
    require(Check.NODE_PORT);
    for (Family f : families()) {
      List<Answer> answers = probeTcp(topo.host("client-a"), f.nodeIp(), web.tcpNodePort(), 20);
      assertTrue(allOk(answers) && Set.of("pod-a", "pod-b", "rpod").containsAll(backends(answers))
              && backends(answers).size() >= 2,
          f + " client-a -> NodePort " + web.tcpNodePort() + " spreads over the endpoints: " + answers);
      for (Answer a : answers) {
        assertFalse(a.sourceIs(f.clientAIp()), f + " externalTrafficPolicy Cluster masquerades: " + a);
      }
      assertExplained(f, web, f.clientAIp(), f.nodeIp(), web.tcpNodePort(), answers);
      Answer udp = topo.host("client-a").udp(f.nodeIp(), web.udpNodePort(), 0);
      assertTrue(udp.ok(), f + " client-a -> NodePort " + web.udpNodePort() + "/udp: " + udp);
    }
  }

  @Test
  @Order(6)
  void externalIpFromAnOutsideClient() {
    require(Check.EXTERNAL_IP);
    for (Family f : families()) {
      Answer a = topo.host("client-a").tcp(ext.externalIp(f), ServiceDef.TCP);
      assertEquals("pod-b", a.backend(), f + " client-a -> externalIP " + ext.externalIp(f) + ": " + a);
      Answer node = topo.host("node").tcp(ext.externalIp(f), ServiceDef.TCP);
      assertEquals("pod-b", node.backend(), f + " node -> externalIP " + ext.externalIp(f) + ": " + node);
    }
  }

  @Test
  @Order(7)
  void loadBalancerSourceRangesAllowAndDeny() {
    require(Check.LB_SOURCE_RANGES);
    for (Family f : families()) {
      Answer allowed = topo.host("client-a").tcp(lb.lbIp(f), ServiceDef.TCP);
      assertEquals("pod-c", allowed.backend(), f + " client-a is inside loadBalancerSourceRanges: " + allowed);
      assertExplained(f, lb, f.clientAIp(), lb.lbIp(f), ServiceDef.TCP, List.of(allowed));
      for (int i = 0; i < 3; i++) {
        Answer denied = topo.host("client-b").tcp(lb.lbIp(f), ServiceDef.TCP, 800);
        assertFalse(denied.ok(), f + " client-b is outside loadBalancerSourceRanges, must not connect: " + denied);
        assertExplained(f, lb, f.clientBIp(), lb.lbIp(f), ServiceDef.TCP, List.of(denied));
      }
      Answer viaNodePort = topo.host("client-b").tcp(f.nodeIp(), lb.tcpNodePort());
      assertEquals("pod-c", viaNodePort.backend(),
          f + " source ranges apply to the LB IP only, not the NodePort: " + viaNodePort);
    }
  }

  @Test
  @Order(8)
  void externalTrafficPolicyLocalUsesOnlyLocalEndpointsAndKeepsTheClientAddress() {
    require(Check.EXTERNAL_TRAFFIC_POLICY_LOCAL);
    for (Family f : families()) {
      List<Answer> viaNodePort = probeTcp(topo.host("client-a"), f.nodeIp(), local.tcpNodePort(), 10);
      assertEquals(Set.of("pod-a"), backends(viaNodePort),
          f + " ETP=Local NodePort must only use the local endpoint: " + viaNodePort);
      for (Answer a : viaNodePort) {
        assertTrue(a.sourceIs(f.clientAIp()), f + " ETP=Local keeps the client address: " + a);
      }
      assertExplained(f, local, f.clientAIp(), f.nodeIp(), local.tcpNodePort(), viaNodePort);
      Answer viaLb = topo.host("client-a").tcp(local.lbIp(f), ServiceDef.TCP);
      assertTrue("pod-a".equals(viaLb.backend()) && viaLb.sourceIs(f.clientAIp()),
          f + " ETP=Local via LB IP: " + viaLb);
    }
  }

  @Test
  @Order(9)
  void healthCheckNodePortAnswers200WithLocalEndpointsAnd503Without() {
    require(Check.EXTERNAL_TRAFFIC_POLICY_LOCAL);
    for (Family f : families()) {
      Answer health = awaitAnswer(f + " health check node port " + HEALTH_CHECK_NODE_PORT + " answers 200",
          () -> topo.host("client-a").http(healthUrl(f)), a -> a.httpStatus() == 200);
      assertTrue(health.raw().replace(" ", "").contains("\"localEndpoints\":1"),
          f + " health check body counts one local endpoint: " + health);
    }
    // ... and keeps answering: a load balancer probes it all the time, across the agent's syncs.
    for (int i = 0; i < 6; i++) {
      for (Family f : families()) {
        Answer again = topo.host("client-a").http(healthUrl(f));
        assertEquals(200, again.httpStatus(), f + " health check node port, probe " + (i + 2)
            + " over 3 s, must still answer 200: " + again);
      }
      pause(500);
    }
    // Only a remote endpoint left: the health check says 503 and external traffic is not sent away.
    local.endpoints(Backend.RPOD);
    manifests.put(local);
    for (Family f : families()) {
      Answer dropped = awaitAnswer(f + " ETP=Local NodePort without local endpoints gets no answer",
          () -> topo.host("client-a").tcp(f.nodeIp(), local.tcpNodePort(), 800), a -> !a.ok());
      assertFalse(dropped.ok());
      awaitAnswer(f + " health check node port answers 503 without local endpoints",
          () -> topo.host("client-a").http(healthUrl(f)), a -> a.httpStatus() == 503);
    }
  }

  String healthUrl(Family f) {
    return "http://" + f.urlHost(f.nodeIp()) + ":" + HEALTH_CHECK_NODE_PORT + "/healthz";
  }

  @Test
  @Order(10)
  void internalTrafficPolicyLocalUsesOnlyLocalEndpoints() {
    require(Check.INTERNAL_TRAFFIC_POLICY_LOCAL);
    for (Family f : families()) {
      List<Answer> fromPod = probeTcp(topo.host("pod-a"), itp.clusterIp(f), ServiceDef.TCP, 12);
      assertEquals(Set.of("pod-b"), backends(fromPod), f + " ITP=Local from pod-a: only pod-b is local: " + fromPod);
      assertExplained(f, itp, f.localPodIp(0), itp.clusterIp(f), ServiceDef.TCP, fromPod);
      List<Answer> fromNode = probeTcp(topo.host("node"), itp.clusterIp(f), ServiceDef.TCP, 12);
      assertEquals(Set.of("pod-b"), backends(fromNode), f + " ITP=Local from the node: " + fromNode);
    }
  }

  @Test
  @Order(11)
  void sessionAffinityKeepsOneBackendPerClient() {
    require(Check.SESSION_AFFINITY);
    for (Family f : families()) {
      List<Answer> viaNodePort = probeTcp(topo.host("client-a"), f.nodeIp(), sticky.tcpNodePort(), 20);
      assertTrue(allOk(viaNodePort) && backends(viaNodePort).size() == 1,
          f + " ClientIP affinity: 20 connections from client-a, one backend: " + viaNodePort);
      assertExplained(f, sticky, f.clientAIp(), f.nodeIp(), sticky.tcpNodePort(), viaNodePort);
      List<Answer> fromNode = probeTcp(topo.host("pod-b"), sticky.clusterIp(f), ServiceDef.TCP, 20);
      assertTrue(allOk(fromNode) && backends(fromNode).size() == 1,
          f + " ClientIP affinity: 20 connections from pod-b to the cluster IP, one backend: " + fromNode);
    }
  }

  @Test
  @Order(12)
  void serviceWithoutEndpointsRefusesAtOnce() {
    require(Check.NO_ENDPOINTS);
    for (Family f : families()) {
      assertRefused(f + " pod-a -> cluster IP without endpoints",
          () -> topo.host("pod-a").tcp(empty.clusterIp(f), ServiceDef.TCP));
      assertExplained(f, empty, f.localPodIp(0), empty.clusterIp(f), ServiceDef.TCP,
          List.of(topo.host("pod-a").tcp(empty.clusterIp(f), ServiceDef.TCP)));
      assertRefused(f + " node -> cluster IP without endpoints",
          () -> topo.host("node").tcp(empty.clusterIp(f), ServiceDef.TCP));
      assertRefused(f + " client-a -> NodePort without endpoints",
          () -> topo.host("client-a").tcp(f.nodeIp(), empty.tcpNodePort()));
      assertRefused(f + " pod-a -> cluster IP without endpoints, UDP",
          () -> topo.host("pod-a").udp(empty.clusterIp(f), ServiceDef.UDP, 0));
    }
  }

  @Test
  @Order(13)
  void hairpinTrafficIsMasqueraded() {
    require(Check.HAIRPIN);
    for (Family f : families()) {
      Answer a = topo.host("pod-a").tcp(hairpin.clusterIp(f), ServiceDef.TCP);
      assertEquals("pod-a", a.backend(), f + " pod-a reaches itself through its Service: " + a);
      assertFalse(a.sourceIs(f.localPodIp(0)),
          f + " hairpin traffic must be masqueraded (else the reply would bypass the node): " + a);
      assertExplained(f, hairpin, f.localPodIp(0), hairpin.clusterIp(f), ServiceDef.TCP, List.of(a));
    }
  }

  @Test
  @Order(14)
  void removedEndpointGetsNoNewConnectionsAndItsUdpConntrackEntryIsDeleted() {
    require(Check.REMOVED_ENDPOINT);
    int clientPort = 40053;
    List<String> victims = new ArrayList<>();
    for (Family f : families()) {
      Answer first = awaitAnswer(f + " node -> churn udp", () -> topo.host("node").udp(churn.clusterIp(f), ServiceDef.UDP, clientPort),
          Answer::ok);
      victims.add(first.backend());
      assertTrue(conntrackUdp(f, churn.clusterIp(f), Backend.valueOf(first.backend().toUpperCase().replace("-", "_")).ip(f)) > 0,
          f + " the UDP flow to " + first.backend() + " is in the node's conntrack table");
    }
    // Remove the endpoint(s) the UDP flows went to (one per family; in dual-stack it may differ).
    List<Backend> remaining = new ArrayList<>(List.of(Backend.POD_A, Backend.POD_B, Backend.POD_C));
    remaining.removeIf(b -> victims.contains(b.host()));
    assumeTrue(!remaining.isEmpty(), "the flows of both families landed on different pods, none left");
    churn.endpoints(remaining.toArray(Backend[]::new));
    manifests.put(churn);
    for (int i = 0; i < families().size(); i++) {
      Family f = families().get(i);
      String victim = victims.get(i);
      String victimIp = Backend.valueOf(victim.toUpperCase().replace("-", "_")).ip(f);
      Await.until(f + " the stale UDP conntrack entry to removed endpoint " + victim + " is deleted", CONVERGE,
          () -> conntrackUdp(f, churn.clusterIp(f), victimIp), n -> n == 0);
      Answer again = topo.host("node").udp(churn.clusterIp(f), ServiceDef.UDP, clientPort);
      assertTrue(again.ok() && !victims.contains(again.backend()),
          f + " the same UDP flow now reaches a remaining endpoint: " + again);
      List<Answer> tcp = probeTcp(topo.host("pod-a"), churn.clusterIp(f), ServiceDef.TCP, 20);
      assertTrue(allOk(tcp) && backends(tcp).stream().noneMatch(victims::contains),
          f + " new connections never reach the removed endpoint " + victim + ": " + tcp);
    }
  }

  @Test
  @Order(15)
  void scaleToZeroAndBack() {
    require(Check.SCALE_TO_ZERO_AND_BACK);
    int clientPort = 40054;
    // A UDP flow while there are endpoints: its conntrack entry is DNAT-ed to one of them.
    List<String> before = new ArrayList<>();
    for (Family f : families()) {
      Answer first = awaitAnswer(f + " pod-b -> scale udp", () -> topo.host("pod-b").udp(scale.clusterIp(f),
          ServiceDef.UDP, clientPort), Answer::ok);
      before.add(backendOf(first).ip(f));
    }
    scale.endpoints();
    manifests.put(scale);
    for (int i = 0; i < families().size(); i++) {
      Family f = families().get(i);
      awaitAnswer(f + " scaled to zero: connections refused", () -> topo.host("pod-a").tcp(scale.clusterIp(f), ServiceDef.TCP),
          Answer::refused);
      // #139628: the old entry must be deleted, not kept alive by the same client's datagrams
      // (which, DNAT-ed by it, would still reach the old pod). Each probe refreshes it.
      Answer udp = Await.until(f + " scaled to zero: the same UDP client is refused, its flow to "
              + before.get(i) + " deleted", RECONCILE,
          () -> topo.host("pod-b").udp(scale.clusterIp(f), ServiceDef.UDP, clientPort), Answer::refused);
      assertTrue(udp.refused(), f + " scaled to zero: UDP refused: " + udp);
      assertEquals(0, conntrackUdp(f, scale.clusterIp(f), before.get(i)), f + " no entry to the old endpoint");
    }
    scale.endpoints(Backend.POD_C);
    manifests.put(scale);
    for (Family f : families()) {
      awaitAnswer(f + " scaled back to one: pod-c answers", () -> topo.host("pod-a").tcp(scale.clusterIp(f), ServiceDef.TCP),
          a -> "pod-c".equals(a.backend()));
      Answer udp = awaitAnswer(f + " scaled back: the same UDP client reaches pod-c",
          () -> topo.host("pod-b").udp(scale.clusterIp(f), ServiceDef.UDP, clientPort), Answer::ok);
      assertEquals("pod-c", udp.backend(), f + " " + udp);
    }
  }

  @Test
  @Order(16)
  void deletedUdpServiceLosesItsConntrackEntries() {
    require(Check.DELETED_UDP_SERVICE);
    int clientPort = 40055;
    for (Family f : families()) {
      Answer first = awaitAnswer(f + " pod-b -> gone udp", () -> topo.host("pod-b").udp(gone.clusterIp(f),
          ServiceDef.UDP, clientPort), Answer::ok);
      assertEquals("pod-a", first.backend(), f + " " + first);
      assertTrue(conntrackUdp(f, gone.clusterIp(f), Backend.POD_A.ip(f)) > 0, f + " the flow is in conntrack");
    }
    manifests.remove(gone);
    for (Family f : families()) {
      // #141371: the Service is gone from the model, but its entries must go too; while the client keeps
      // sending, a kept entry would keep delivering to pod-a.
      Await.until(f + " deleted UDP Service: the client's datagrams no longer reach pod-a", RECONCILE,
          () -> topo.host("pod-b").udp(gone.clusterIp(f), ServiceDef.UDP, clientPort), a -> !a.ok());
      assertEquals(0, conntrackUdp(f, gone.clusterIp(f), Backend.POD_A.ip(f)),
          f + " no entry of the deleted Service to pod-a is left");
    }
  }

  @Test
  @Order(17)
  void trafficDistributionKeepsTrafficOnTheNodeOrInTheZone() {
    require(Check.TOPOLOGY);
    for (Family f : families()) {
      List<Answer> node = probeTcp(topo.host("pod-c"), sameNode.clusterIp(f), ServiceDef.TCP, 12);
      assertEquals(Set.of("pod-a"), backends(node),
          f + " PreferSameNode: only the endpoint hinted for this node (hints.forNodes): " + node);
      List<Answer> zone = probeTcp(topo.host("pod-c"), sameZone.clusterIp(f), ServiceDef.TCP, 12);
      assertEquals(Set.of("pod-b"), backends(zone),
          f + " PreferSameZone: only the endpoint of this node's zone " + Manifests.NODE_ZONE + ": " + zone);
      List<Answer> near = probeTcp(topo.host("pod-a"), close.clusterIp(f), ServiceDef.TCP, 12);
      assertEquals(Set.of("rpod"), backends(near),
          f + " PreferClose: the zone's endpoint, even on another node: " + near);
      assertExplained(f, sameNode, f.localPodIp(2), sameNode.clusterIp(f), ServiceDef.TCP, node);
      assertExplained(f, sameZone, f.localPodIp(2), sameZone.clusterIp(f), ServiceDef.TCP, zone);
      assertExplained(f, close, f.localPodIp(0), close.clusterIp(f), ServiceDef.TCP, near);
    }
    // The endpoint for this node goes: every remaining endpoint has node hints, none for this node,
    // and there are no zone hints, so all of them are used.
    sameNode.endpoints(Backend.RPOD);
    manifests.put(sameNode);
    for (Family f : families()) {
      awaitAnswer(f + " PreferSameNode without an endpoint here falls back to the others",
          () -> topo.host("pod-c").tcp(sameNode.clusterIp(f), ServiceDef.TCP), a -> "rpod".equals(a.backend()));
    }
  }

  @Test
  @Order(18)
  void localhostNodePortPacketsAreCountedInNfacctAndExported() {
    require(Check.NFACCT_COUNTERS);
    assumeTrue(iptablesVariant() != null && families().contains(Family.V4),
        "nfacct counters are an iptables-mode, IPv4 localhost NodePort feature");
    String counter = "kubeproxy_iptables_localhost_nodeports_accepted_packets_total";
    String invalid = "kubeproxy_iptables_ct_state_invalid_dropped_packets_total";
    String before = agent.metrics("/metrics").raw();
    assertTrue(before.contains("# TYPE " + invalid + " counter"), "the INVALID-drop counter is exported: " + before);
    double start = sample(before, counter);
    Answer viaLocalhost = awaitAnswer("node -> 127.0.0.1:" + web.tcpNodePort(),
        () -> topo.host("node").tcp("127.0.0.1", web.tcpNodePort()), Answer::ok);
    assertTrue(Set.of("pod-a", "pod-b", "rpod").contains(viaLocalhost.backend()), viaLocalhost.toString());
    double after = sample(agent.metrics("/metrics").raw(), counter);
    assertTrue(after >= start + 1, "the localhost NodePort connection was counted: " + start + " -> " + after);
    String rules = iptablesVariant().save(topo.node(), false).replaceAll(" +", " ");
    assertTrue(rules.contains("-m nfacct --nfacct-name localhost_nps_accepted_pkts"), rules);
    assertTrue(rules.contains("-m nfacct --nfacct-name ct_state_invalid_dropped_pkts -j DROP"), rules);
  }

  /** The value of a label-less sample in a /metrics body flattened to one line. */
  static double sample(String metrics, String name) {
    java.util.regex.Matcher m = java.util.regex.Pattern.compile("(?:^|\\s)" + java.util.regex.Pattern.quote(name)
        + " ([0-9][0-9.e+]*)(?:\\s|$)").matcher(metrics);
    assertTrue(m.find(), name + " is not in /metrics: " + metrics);
    return Double.parseDouble(m.group(1));
  }

  @Test
  @Order(100)
  void cleanupLeavesNoKubeChains() throws Exception {
    require(Check.CLEANUP);
    Netns node = topo.node();
    assertTrue(!rulesLeft(node).isEmpty(), "before --cleanup the agent's rules must be there");
    int status = agent.stop();
    CommandRunner.Result r = agent.cleanup();
    assertEquals(0, r.exitCode(), "kube-proxy --cleanup exit status (agent exited " + status + "); log:\n" + r.stdout());
    List<String> left = rulesLeft(node);
    assertTrue(left.isEmpty(), "after --cleanup these kube-proxy rules remain:\n" + String.join("\n", left));
  }

  // ---------------------------------------------------------------- helpers

  /** Every KUBE-* chain/rule (except kubelet's own) and kube-proxy nftables table in the node. */
  static List<String> rulesLeft(Netns node) {
    List<String> left = new ArrayList<>();
    for (IptablesVariant v : IptablesVariant.values()) {
      for (boolean v6 : new boolean[] {false, true}) {
        for (String line : v.save(node, v6).split("\n")) {
          if (line.contains("KUBE-") && IptablesVariant.KUBELET_CHAINS.stream().noneMatch(line::contains)) {
            left.add(v.saveBinary(v6) + ": " + line);
          }
        }
      }
    }
    for (String line : node.output("nft", "list", "tables").split("\n")) {
      if (line.contains("kube-proxy")) {
        left.add("nft: " + line);
      }
    }
    return left;
  }

  static Backend backendOf(Answer a) {
    return Backend.valueOf(a.backend().toUpperCase().replace("-", "_"));
  }

  long conntrackUdp(Family f, String origDst, String replySrc) {
    List<String> cmd = new ArrayList<>(List.of("conntrack", "-L", "-p", "udp", "--orig-dst", origDst, "--reply-src", replySrc));
    if (f.v6()) {
      cmd.addAll(List.of("-f", "ipv6"));
    }
    String out = topo.node().output(cmd.toArray(String[]::new));
    return out.lines().filter(l -> l.startsWith("udp")).count();
  }

  /**
   * Issue 14's cross-check: /debug/services' path for this packet (computed from the agent's model,
   * not from its rules) names every backend that answered and the masquerading each answer saw, or,
   * when nothing answered, says the packet is rejected or dropped.
   */
  void assertExplained(Family f, ServiceDef svc, String from, String toIp, int toPort, List<Answer> answers) {
    String url = "http://127.0.0.1:" + KubeProxyAgent.METRICS_PORT + "/debug/services?service=" + ServiceDef.NAMESPACE
        + "/" + svc.name() + ":tcp&from=" + from + "&to=" + (f.v6() ? "[" + toIp + "]" : toIp) + ":" + toPort;
    String body = topo.node().output("curl", "-s", "--max-time", "10", "-g", url);
    io.vertx.core.json.JsonObject path = null;
    for (Object o : new io.vertx.core.json.JsonObject(body).getJsonArray("ports")) {
      io.vertx.core.json.JsonObject port = (io.vertx.core.json.JsonObject) o;
      if (port.getString("family").equals(f.apiName())) {
        path = port.getJsonObject("path");
      }
    }
    assertTrue(path != null, f + " /debug/services has no path for " + url + ":\n" + body);
    java.util.Map<String, Boolean> masqueradeByIp = new java.util.HashMap<>();
    for (Object o : path.getJsonArray("endpoints")) {
      io.vertx.core.json.JsonObject c = (io.vertx.core.json.JsonObject) o;
      String ep = c.getString("endpoint");
      masqueradeByIp.put(ep.substring(ep.startsWith("[") ? 1 : 0, ep.lastIndexOf(ep.startsWith("[") ? ']' : ':')),
          c.getBoolean("masquerade"));
    }
    for (Answer a : answers) {
      if (!a.ok()) {
        assertTrue(List.of("REJECT", "DROP").contains(path.getString("verdict")),
            f + " nothing answered (" + a + ") but the path says " + path.encode());
        continue;
      }
      String ip = Backend.valueOf(a.backend().toUpperCase().replace("-", "_")).ip(f);
      Boolean masquerade = masqueradeByIp.entrySet().stream().filter(e -> Answer.sameAddress(e.getKey(), ip))
          .map(java.util.Map.Entry::getValue).findFirst().orElse(null);
      assertTrue(masquerade != null, f + " " + a.backend() + " answered, but the path does not name it: "
          + path.encode());
      assertEquals(!a.sourceIs(from), masquerade, f + " " + a.backend() + " saw " + a.seenSource()
          + ", the path says masquerade=" + masquerade + ": " + path.encode());
    }
  }

  static List<Answer> probeTcp(NetnsHost from, String ip, int port, int count) {
    List<Answer> answers = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      answers.add(from.tcp(ip, port));
    }
    return answers;
  }

  static Set<String> backends(List<Answer> answers) {
    return answers.stream().filter(Answer::ok).map(Answer::backend).collect(Collectors.toCollection(TreeSet::new));
  }

  static boolean allOk(List<Answer> answers) {
    return answers.stream().allMatch(Answer::ok);
  }

  static Answer awaitAnswer(String what, Supplier<Answer> probe, java.util.function.Predicate<Answer> done) {
    return Await.until(what, CONVERGE, probe, done);
  }

  /** Refused, not timed out: the probe must fail fast with a reset / port unreachable. */
  static void assertRefused(String what, Supplier<Answer> probe) {
    long start = System.nanoTime();
    Answer a = probe.get();
    long ms = (System.nanoTime() - start) / 1_000_000;
    assertTrue(a.refused(), what + ": expected `refused`, got `" + a + "` after " + ms + " ms");
  }

  /** A pause between repeated probes of a steady state (not a wait for convergence). */
  static void pause(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
