package dev.kubeproxy.runtime;

import static dev.kubeproxy.model.TestObjects.port;
import static dev.kubeproxy.model.TestObjects.service;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kubeproxy.config.AgentOptions;
import dev.kubeproxy.messages.EventBusAddresses;
import dev.kubeproxy.messages.EventBusCodecs;
import dev.kubeproxy.messages.ClusterEvent;
import dev.kubeproxy.messages.NodeInfo;
import dev.kubeproxy.model.objects.Service;
import dev.kubeproxy.config.FeatureGates;
import dev.kubeproxy.config.ProxyMode;
import dev.kubeproxy.health.HealthzServerVerticle;
import dev.kubeproxy.metrics.ProxyMetrics;
import dev.kubeproxy.host.CommandRunner;
import dev.kubeproxy.host.ProcessCommandRunner;
import dev.kubeproxy.testutil.Await;
import dev.kubeproxy.testutil.MutableClock;
import dev.kubeproxy.testutil.TestConfigs;
import dev.kubeproxy.net.IpFamily;
import dev.kubeproxy.testutil.tier.Unit;
import io.vertx.core.Vertx;
import io.vertx.ext.web.client.WebClient;
import io.vertx.junit5.VertxExtension;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A family whose syncs keep failing turns /healthz 503 once its oldest queued update has waited
 * the health timeout (pkg/proxy/healthcheck/proxier_health.go: QueuedUpdate keeps the oldest
 * time, only Updated clears it, and a failed sync does not call Updated).
 */
@ExtendWith(VertxExtension.class)
@Unit
class HealthWhileSyncsFailTest {
  private final MutableClock clock = new MutableClock(Instant.now());
  private final ProxyMetrics metrics = new ProxyMetrics().registerFor(ProxyMode.IPTABLES);

  @Test
  void healthzTurns503AfterTheTimeoutAndRecoversWithTheNextGoodSync(Vertx vertx) {
    EventBusCodecs.register(vertx);
    AgentOptions options = TestConfigs.options(c -> {
      c.mode = "iptables";
      c.healthzBindAddress = "127.0.0.1:0";
      c.iptables.syncPeriod = Duration.ofSeconds(30);
      c.iptables.minSyncPeriod = Duration.ZERO;
    });
    Duration timeout = HealthzServerVerticle.healthTimeout(options);
    assertEquals(Duration.ofSeconds(60), timeout, "2 × syncPeriod");
    HealthzServerVerticle healthz = new HealthzServerVerticle(options, clock, metrics);
    Await.result(vertx.deployVerticle(healthz));
    ProxierVerticleTest.FakeBackend backend = new ProxierVerticleTest.FakeBackend(IpFamily.IPv4);
    backend.failures.set(Integer.MAX_VALUE);
    AgentContext context = new AgentContext(metrics, FeatureGates.of(Map.of()), clock, new ProcessCommandRunner());
    NodeInfo node = new NodeInfo("node-a", List.of("192.168.200.1"), List.of(), Map.of());
    Await.result(vertx.deployVerticle(new ProxierVerticle(options, node, (o, n, r) -> List.of(backend), context, null),
        ProxierVerticle.DEPLOYMENT));
    WebClient client = WebClient.create(vertx);
    int port = healthz.actualPort();

    upsert(vertx, service("demo", "web", "10.96.0.10", port("http", 80, "TCP")));
    for (ClusterEvent.Kind kind : List.of(ClusterEvent.Kind.SERVICE, ClusterEvent.Kind.ENDPOINT_SLICE,
        ClusterEvent.Kind.NODE, ClusterEvent.Kind.SERVICE_CIDR)) {
      vertx.eventBus().send(EventBusAddresses.SYNCED, kind);
    }
    Await.until("the first sync failed", 10_000, () -> backend.attempts.get() >= 1);
    assertEquals(200, status(client, port), "a queued update is not late yet");

    clock.advance(timeout.minusSeconds(1));
    assertEquals(200, status(client, port), "still within the health timeout");
    // Another change while the first is pending keeps the older queued time.
    upsert(vertx, service("demo", "api", "10.96.0.11", port("http", 80, "TCP")));
    Await.until("the second sync failed", 10_000, () -> backend.attempts.get() >= 2);
    clock.advance(Duration.ofSeconds(2));
    assertEquals(503, status(client, port), "the oldest queued update has waited longer than the timeout");
    String body = Await.result(client.get(port, "127.0.0.1", "/healthz").send()).bodyAsString();
    assertTrue(body.contains("\"healthy\":false"), body);

    backend.failures.set(0);
    upsert(vertx, service("demo", "db", "10.96.0.12", port("sql", 5432, "TCP")));
    Await.until("a good sync", 10_000, () -> !backend.states.isEmpty());
    Await.until("healthy again", 10_000, () -> status(client, port) == 200);
  }

  private static void upsert(Vertx vertx, Service svc) {
    vertx.eventBus().send(EventBusAddresses.SERVICES, new ClusterEvent<>(ClusterEvent.Kind.SERVICE,
        ClusterEvent.Type.UPSERT, svc.metadata().key(), null, svc));
  }

  private static int status(WebClient client, int port) {
    return Await.result(client.get(port, "127.0.0.1", "/healthz").send()).statusCode();
  }
}
