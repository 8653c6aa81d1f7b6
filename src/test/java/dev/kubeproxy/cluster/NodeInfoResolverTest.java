package dev.kubeproxy.cluster;

import dev.kubeproxy.messages.NodeInfo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kubeproxy.config.AgentOptions;
import dev.kubeproxy.testapi.TestApiServer;
import dev.kubeproxy.testutil.tier.Unit;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@Unit
class NodeInfoResolverTest {
  @TempDir Path tmp;
  private Vertx vertx;
  private TestApiServer api;

  @BeforeEach
  void setUp() throws Exception {
    vertx = Vertx.vertx();
    api = new TestApiServer(vertx);
    get(api.start(0));
  }

  @AfterEach
  void tearDown() throws Exception {
    get(vertx.close());
  }

  /** Upstream's backoff steps, with short waits. */
  private static final NodeInfoResolver.Timing FAST =
      new NodeInfoResolver.Timing(6, Duration.ofMillis(100), Duration.ofMinutes(5), Duration.ofMillis(100));

  private NodeInfoResolver.Timing timing = FAST;

  private Future<NodeInfo> resolve(AgentOptions o) {
    return NodeInfoResolver.resolve(vertx, o, timing);
  }

  static <T> T get(Future<T> f) throws Exception {
    return f.toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);
  }

  private AgentOptions options() throws Exception {
    return Fixtures.options(api.writeKubeconfig(tmp).toString(), "node-1");
  }

  @Test
  void nodeFoundAndPrimaryExpandedInTheConfig() throws Exception {
    api.upsert(Fixtures.node("node-1", List.of("10.244.1.0/24"), List.of(
        Fixtures.address("InternalIP", "192.168.200.10"), Fixtures.address("InternalIP", "fd00:200::10"))));
    AgentOptions o = options();
    o.config().nodePortAddresses = List.of("primary");
    NodeInfo info = get(resolve(o));
    assertEquals("node-1", info.name());
    assertEquals(List.of("192.168.200.10", "fd00:200::10"), info.nodeIPs());
    assertEquals("zone-a", info.labels().get("topology.kubernetes.io/zone"));
    assertEquals(List.of("192.168.200.10/32", "fd00:200::10/128"), o.config().nodePortAddresses);
  }

  @Test
  void masterOverridesTheKubeconfigServer() throws Exception {
    api.upsert(Fixtures.node("node-1", List.of(), List.of(Fixtures.address("InternalIP", "192.168.200.10"))));
    Path wrong = Files.writeString(tmp.resolve("wrong-kubeconfig"), Files.readString(api.writeKubeconfig(tmp))
        .replace(api.url(), "http://127.0.0.1:1"));
    AgentOptions base = Fixtures.options(wrong.toString(), "node-1");
    AgentOptions o = new AgentOptions(base.config(), api.url(), "node-1", null, false, false, false);
    assertEquals(List.of("192.168.200.10", "::1"), get(resolve(o)).nodeIPs());
  }

  @Test
  void nodeAppearingDuringTheBackoffIsUsed() throws Exception {
    AgentOptions o = options();
    vertx.setTimer(250, t -> api.upsert(Fixtures.node("node-1", List.of(),
        List.of(Fixtures.address("InternalIP", "192.168.200.12")))));
    assertEquals(List.of("192.168.200.12", "::1"), get(resolve(o)).nodeIPs());
  }

  @Test
  void exhaustedBackoffIsNotFatalAndFallsBackToLoopbackOrBindAddress() throws Exception {
    timing = new NodeInfoResolver.Timing(6, Duration.ofMillis(10), FAST.podCidrTimeout(), FAST.podCidrPoll());
    AgentOptions o = options();
    assertEquals(List.of("127.0.0.1", "::1"), get(resolve(o)).nodeIPs());
    o.config().bindAddress = "fd00:200::7";
    assertEquals(List.of("fd00:200::7", "127.0.0.1"), get(resolve(o)).nodeIPs());
  }

  @Test
  void nodeCidrModeWaitsForPodCIDRsAndTimesOut() throws Exception {
    AgentOptions o = options();
    o.config().detectLocalMode = "NodeCIDR";
    o.config().clusterCIDR = "10.244.0.0/16";
    api.upsert(Fixtures.node("node-1", List.of(), List.of(Fixtures.address("InternalIP", "192.168.200.10"))));
    vertx.setTimer(400, t -> api.upsert(Fixtures.node("node-1", List.of("10.244.1.0/24"),
        List.of(Fixtures.address("InternalIP", "192.168.200.10")))));
    assertEquals(List.of("10.244.1.0/24"), get(resolve(o)).podCIDRs());

    api.upsert(Fixtures.node("node-1", List.of(), List.of(Fixtures.address("InternalIP", "192.168.200.10"))));
    timing = new NodeInfoResolver.Timing(6, FAST.backoffInitial(), Duration.ofMillis(300), FAST.podCidrPoll());
    ExecutionException e = org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class,
        () -> get(resolve(o)));
    assertEquals("timeout waiting for PodCIDR allocation to configure detect-local-mode NodeCIDR: timed out waiting for the condition",
        e.getCause().getMessage());
  }

  @Test
  void badIpConfigIsFatal() throws Exception {
    api.upsert(Fixtures.node("node-1", List.of("fd00:10:244:1::/64"), List.of(Fixtures.address("InternalIP", "192.168.200.10"))));
    AgentOptions o = options();
    o.config().detectLocalMode = "NodeCIDR";
    ExecutionException e = org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class,
        () -> get(resolve(o)));
    assertTrue(e.getCause().getMessage().startsWith("kube-proxy configuration is incorrect: cluster is IPv4-"), e.getCause().getMessage());
  }

  @Test
  void manifestsModeReadsTheNodeFromTheDirectory() throws Exception {
    Path dir = Files.createDirectory(tmp.resolve("m"));
    Files.writeString(dir.resolve("node.yaml"), """
        apiVersion: v1
        kind: Node
        metadata: {name: node-1, labels: {topology.kubernetes.io/zone: z1}}
        spec: {podCIDR: 10.244.1.0/24, podCIDRs: [10.244.1.0/24]}
        status:
          addresses: [{type: InternalIP, address: 192.168.200.10}]
        """);
    AgentOptions o = Fixtures.withManifests(Fixtures.options(null, "node-1"), dir.toString());
    NodeInfo info = get(resolve(o));
    assertEquals(List.of("192.168.200.10", "::1"), info.nodeIPs());
    assertEquals(Map.of("topology.kubernetes.io/zone", "z1"), info.labels());
    AgentOptions other = Fixtures.withManifests(Fixtures.options(null, "node-2"), dir.toString());
    assertEquals(List.of("127.0.0.1", "::1"), get(resolve(other)).nodeIPs());
  }
}
