package dev.kubeproxy;

import dev.kubeproxy.messages.EventBusAddresses;
import dev.kubeproxy.messages.EventBusCodecs;
import dev.kubeproxy.runtime.ProcessExit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kubeproxy.cli.Startup;
import dev.kubeproxy.testutil.tier.Unit;
import io.vertx.core.Vertx;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The agent's start order decisions and its exit path, with a recording ProcessExit (no real exit). */
@Unit
class AgentVerticleTest {
  private final Vertx vertx = Vertx.vertx();
  private final List<Integer> exits = new CopyOnWriteArrayList<>();

  @AfterEach
  void tearDown() throws Exception {
    vertx.close().toCompletionStage().toCompletableFuture().get(5, TimeUnit.SECONDS);
  }

  private Startup.Flags options(String mode, boolean cleanup) {
    return (Startup.Flags) Startup.parse(List.of("--proxy-mode=" + mode, "--cleanup=" + cleanup, "--dry-run",
        "--hostname-override=node-1"), System.out, System.err);
  }

  private String deploy(Startup.Flags flags) throws Exception {
    return vertx.deployVerticle(new AgentVerticle(flags, (v, status) -> exits.add(status)))
        .toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  private void waitForExits(int n) throws InterruptedException {
    for (int i = 0; i < 100 && exits.size() < n; i++) {
      Thread.sleep(20);
    }
  }

  @Test
  void cleanupInDryRunExitsZeroWithoutTouchingRules() throws Exception {
    deploy(options("iptables", true));
    waitForExits(1);
    assertEquals(List.of(0), exits);
  }

  @Test
  void anyFatalMessageEndsWithStatusOne() throws Exception {
    deploy(options("iptables", true));
    waitForExits(1);
    vertx.eventBus().send(EventBusAddresses.FATAL, "healthz server failed: bind: address already in use");
    waitForExits(2);
    assertEquals(List.of(0, 1), exits);
  }

  @Test
  void aConfigFileThatCannotBeReadExitsOne() throws Exception {
    deploy((Startup.Flags) Startup.parse(List.of("--config=/nonexistent/kube-proxy.yaml", "--dry-run"),
        System.out, System.err));
    waitForExits(1);
    assertEquals(List.of(1), exits);
  }

  @Test
  void codecsPassRecordsAsTheyAre() throws Exception {
    EventBusCodecs.register(vertx);
    EventBusCodecs.register(vertx); // twice is harmless
    dev.kubeproxy.messages.NodeInfo node = new dev.kubeproxy.messages.NodeInfo("n", List.of("10.0.0.1"), List.of(),
        java.util.Map.of());
    java.util.concurrent.CompletableFuture<Object> got = new java.util.concurrent.CompletableFuture<>();
    vertx.eventBus().consumer("test.node", m -> got.complete(m.body()));
    vertx.eventBus().send("test.node", node);
    assertTrue(got.get(5, TimeUnit.SECONDS) == node, "the same instance arrives");
  }
}
