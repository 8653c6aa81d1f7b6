package dev.kubeproxy.health;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kubeproxy.AgentOptions;
import dev.kubeproxy.EventBusAddresses;
import dev.kubeproxy.cluster.EventRequest;
import dev.kubeproxy.metrics.ProxyMetrics;
import dev.kubeproxy.proxy.IpFamily;
import dev.kubeproxy.testutil.Await;
import dev.kubeproxy.EventBusCodecs;
import dev.kubeproxy.testutil.MutableClock;
import dev.kubeproxy.testutil.TestConfigs;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.junit5.VertxExtension;
import java.net.ServerSocket;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(VertxExtension.class)
class HealthzServerVerticleTest {
  private static final String TIME = "\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d(\\.\\d+)? [+-]\\d{4} \\S+ m=[+-]\\d+\\.\\d{9}";

  private final Instant t0 = Instant.now();
  private final MutableClock clock = new MutableClock(t0);
  private final ProxyMetrics metrics = new ProxyMetrics().registerFor("iptables");
  private Vertx vertx;
  private WebClient client;
  private HealthzServerVerticle verticle;
  private int port;

  @BeforeEach
  void deploy(Vertx vertx) {
    this.vertx = vertx;
    EventBusCodecs.register(vertx);
    verticle = new HealthzServerVerticle(TestConfigs.options(c -> c.healthzBindAddress = "127.0.0.1:0"), clock, metrics);
    Await.result(vertx.deployVerticle(verticle));
    port = verticle.actualPort();
    client = WebClient.create(vertx);
  }

  private HttpResponse<Buffer> get(String path) {
    return Await.result(client.get(port, "127.0.0.1", path).send());
  }

  private void publish(HealthUpdate u) {
    vertx.eventBus().publish(EventBusAddresses.HEALTH, u);
  }

  @Test
  void healthyBeforeAnySyncAndLastUpdatedIsCurrentTime() {
    HttpResponse<Buffer> r = get("/healthz");
    assertEquals(200, r.statusCode());
    assertEquals("application/json", r.getHeader("Content-Type"));
    assertEquals("nosniff", r.getHeader("X-Content-Type-Options"));
    String body = r.bodyAsString();
    assertTrue(body.matches("\\{\"lastUpdated\": \"(" + TIME + ")\",\"currentTime\": \"\\1\", \"nodeEligible\": true\\}"), body);
    String now = GoTime.format(t0);
    assertEquals("{\"lastUpdated\": \"" + now + "\",\"currentTime\": \"" + now + "\", \"nodeEligible\": true}", body);

    HttpResponse<Buffer> l = get("/livez");
    assertEquals(200, l.statusCode());
    assertEquals("application/json", l.getHeader("Content-Type"));
    assertEquals("{\"lastUpdated\": \"" + now + "\",\"currentTime\": \"" + now + "\"}", l.bodyAsString());
    assertEquals(1, metrics.registry().scrape().lines().filter(s -> s.equals("kubeproxy_proxy_healthz_total{code=\"200\"} 1")).count());
    assertEquals(1, metrics.registry().scrape().lines().filter(s -> s.equals("kubeproxy_proxy_livez_total{code=\"200\"} 1")).count());
  }

  @Test
  void aQueuedChangeOlderThanTwoSyncPeriodsMakesBoth503() {
    Instant synced = t0.minusSeconds(200);
    publish(new HealthUpdate(IpFamily.IPv4, HealthUpdate.Type.UPDATED, synced));
    publish(new HealthUpdate(IpFamily.IPv4, HealthUpdate.Type.QUEUED, t0));
    clock.advance(Duration.ofSeconds(59));
    Await.until("the update was applied", 5000, () -> get("/healthz").statusCode() == 200 && verticle.health().verdict().lastUpdated() != null);
    clock.advance(Duration.ofSeconds(1)); // 60 s = 2 × the default 30 s syncPeriod
    HttpResponse<Buffer> r = get("/healthz");
    assertEquals(503, r.statusCode());
    assertEquals("{\"lastUpdated\": \"" + GoTime.format(synced) + "\",\"currentTime\": \"" + GoTime.format(clock.instant())
        + "\", \"nodeEligible\": true}", r.bodyAsString());
    HttpResponse<Buffer> l = get("/livez");
    assertEquals(503, l.statusCode());
    assertEquals("{\"lastUpdated\": \"" + GoTime.format(synced) + "\",\"currentTime\": \"" + GoTime.format(clock.instant()) + "\"}",
        l.bodyAsString());
    assertTrue(metrics.registry().scrape().contains("kubeproxy_proxy_healthz_total{code=\"503\"} 1\n"));
    assertTrue(metrics.registry().scrape().contains("kubeproxy_proxy_livez_total{code=\"503\"} 1\n"));

    Instant later = clock.instant();
    publish(new HealthUpdate(IpFamily.IPv4, HealthUpdate.Type.UPDATED, later));
    Await.until("healthy again", 5000, () -> get("/livez").statusCode() == 200);
  }

  @Test
  void anIneligibleNodeFailsHealthzButNotLivez() {
    vertx.eventBus().publish(EventBusAddresses.NODE_ELIGIBLE, false);
    Await.until("node marked ineligible", 5000, () -> get("/healthz").statusCode() == 503);
    String now = GoTime.format(t0);
    // only node eligibility failed: lastUpdated is the newest update, the zero time here
    assertEquals("{\"lastUpdated\": \"0001-01-01 00:00:00 +0000 UTC\",\"currentTime\": \"" + now + "\", \"nodeEligible\": false}",
        get("/healthz").bodyAsString());
    assertEquals(200, get("/livez").statusCode());
    vertx.eventBus().publish(EventBusAddresses.NODE_ELIGIBLE, true);
    Await.until("node eligible again", 5000, () -> get("/healthz").statusCode() == 200);
  }

  @Test
  void otherPathsAre404AndQueriesAndMethodsAreIgnored() {
    HttpResponse<Buffer> r = get("/metrics");
    assertEquals(404, r.statusCode());
    assertEquals("404 page not found\n", r.bodyAsString());
    assertEquals("text/plain; charset=utf-8", r.getHeader("Content-Type"));
    assertEquals(404, get("/healthz/").statusCode());
    assertEquals(404, get("/").statusCode());
    assertEquals(200, get("/healthz?verbose=1").statusCode());
    HttpResponse<Buffer> post = Await.result(client.post(port, "127.0.0.1", "/livez").send());
    assertEquals(200, post.statusCode());
    HttpResponse<Buffer> head = Await.result(client.head(port, "127.0.0.1", "/healthz").send());
    assertEquals(200, head.statusCode());
    assertEquals("application/json", head.getHeader("Content-Type"));
    assertEquals(null, head.body());
  }

  @Test
  void emptyAddressDisablesTheServer(Vertx vertx) {
    HealthzServerVerticle off = new HealthzServerVerticle(TestConfigs.options(c -> c.healthzBindAddress = ""), clock, metrics);
    Await.result(vertx.deployVerticle(off));
    assertEquals(-1, off.actualPort());
  }

  @Test
  void bindFailureWithHardFailIsFatal(Vertx vertx) throws Exception {
    BlockingQueue<String> fatal = new ArrayBlockingQueue<>(4);
    BlockingQueue<EventRequest> events = new ArrayBlockingQueue<>(4);
    vertx.eventBus().<String>consumer(EventBusAddresses.FATAL, m -> fatal.add(m.body()));
    vertx.eventBus().<EventRequest>consumer(EventBusAddresses.EVENTS, m -> events.add(m.body()));
    AgentOptions opts = TestConfigs.options(c -> {
      c.healthzBindAddress = "127.0.0.1:" + port; // taken by the server deployed above
      c.bindAddressHardFail = true;
    });
    Await.result(vertx.deployVerticle(new HealthzServerVerticle(opts, clock, metrics)));
    String reason = fatal.poll(10, TimeUnit.SECONDS);
    assertEquals("healthz server failed: failed to start proxier healthz on 127.0.0.1:" + port + ": listen tcp 127.0.0.1:" + port
        + ": bind: address already in use", reason);
    EventRequest event = events.poll(5, TimeUnit.SECONDS);
    assertEquals(EventRequest.failedToStartProxierHealthcheck(reason), event);
  }

  @Test
  void bindFailureWithoutHardFailRetriesEveryFiveSeconds(Vertx vertx) throws Exception {
    BlockingQueue<String> fatal = new ArrayBlockingQueue<>(4);
    vertx.eventBus().<String>consumer(EventBusAddresses.FATAL, m -> fatal.add(m.body()));
    int free;
    try (ServerSocket blocker = new ServerSocket()) {
      blocker.setReuseAddress(true);
      blocker.bind(new java.net.InetSocketAddress("127.0.0.1", 0));
      free = blocker.getLocalPort();
      int p = free;
      HealthzServerVerticle retrying = new HealthzServerVerticle(TestConfigs.options(c -> c.healthzBindAddress = "127.0.0.1:" + p), clock, metrics);
      Await.result(vertx.deployVerticle(retrying));
      assertEquals(-1, retrying.actualPort());
      blocker.close();
      long before = System.nanoTime();
      Await.until("the retry bound the port", 12_000, () -> retrying.actualPort() == p);
      long waited = (System.nanoTime() - before) / 1_000_000;
      assertTrue(waited <= 6_000, "retried after " + waited + " ms");
    }
    assertEquals(null, fatal.poll(100, TimeUnit.MILLISECONDS));
    assertEquals(200, Await.result(client.get(free, "127.0.0.1", "/livez").send()).statusCode());
  }
}
