package dev.kubeproxy.health;

import dev.kubeproxy.gotext.GoTime;
import dev.kubeproxy.messages.HealthUpdate;
import dev.kubeproxy.server.ConnectionGuardTest;

import dev.kubeproxy.config.ProxyMode;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kubeproxy.config.AgentOptions;
import dev.kubeproxy.messages.EventBusAddresses;
import dev.kubeproxy.messages.EventRequest;
import dev.kubeproxy.metrics.ProxyMetrics;
import dev.kubeproxy.net.IpFamily;
import dev.kubeproxy.testutil.Await;
import dev.kubeproxy.messages.EventBusCodecs;
import dev.kubeproxy.testutil.MutableClock;
import dev.kubeproxy.testutil.TestConfigs;
import dev.kubeproxy.testutil.tier.Unit;
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
@Unit
class HealthzServerVerticleTest {

  private final Instant t0 = Instant.now();
  private final MutableClock clock = new MutableClock(t0);
  private final ProxyMetrics metrics = new ProxyMetrics().registerFor(ProxyMode.IPTABLES);
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
    String now = GoTime.format(t0);
    // no family has synced: no status, and "healthy" (upstream: healthy while starting up)
    assertEquals("{\"lastUpdated\":\"" + now + "\",\"currentTime\":\"" + now + "\",\"nodeEligible\":true,\"healthy\":true}",
        r.bodyAsString());

    HttpResponse<Buffer> l = get("/livez");
    assertEquals(200, l.statusCode());
    assertEquals("application/json", l.getHeader("Content-Type"));
    assertEquals("{\"lastUpdated\":\"" + now + "\",\"currentTime\":\"" + now + "\",\"healthy\":true}", l.bodyAsString());
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
    String s = GoTime.format(synced);
    String now = GoTime.format(clock.instant());
    assertEquals("{\"lastUpdated\":\"" + s + "\",\"currentTime\":\"" + now + "\",\"nodeEligible\":true,\"healthy\":false,"
        + "\"status\":{\"IPv4\":{\"lastUpdated\":\"" + s + "\",\"healthy\":false}}}", r.bodyAsString());
    HttpResponse<Buffer> l = get("/livez");
    assertEquals(503, l.statusCode());
    assertEquals("{\"lastUpdated\":\"" + s + "\",\"currentTime\":\"" + now + "\",\"healthy\":false,"
        + "\"status\":{\"IPv4\":{\"lastUpdated\":\"" + s + "\",\"healthy\":false}}}", l.bodyAsString());
    assertTrue(metrics.registry().scrape().contains("kubeproxy_proxy_healthz_total{code=\"503\"} 1\n"));
    assertTrue(metrics.registry().scrape().contains("kubeproxy_proxy_livez_total{code=\"503\"} 1\n"));

    Instant later = clock.instant();
    publish(new HealthUpdate(IpFamily.IPv4, HealthUpdate.Type.UPDATED, later));
    Await.until("healthy again", 5000, () -> get("/livez").statusCode() == 200);
  }

  @Test
  void dualStackReportsEachFamilyAndOneLateFamilyFailsBoth() {
    Instant v4 = t0.minusSeconds(100);
    Instant v6 = t0.minusSeconds(10);
    publish(new HealthUpdate(IpFamily.IPv6, HealthUpdate.Type.UPDATED, v6));
    publish(new HealthUpdate(IpFamily.IPv4, HealthUpdate.Type.UPDATED, v4));
    Await.until("both families synced", 5000, () -> verticle.health().health().status().size() == 2);
    String now = GoTime.format(t0);
    HttpResponse<Buffer> ok = get("/healthz");
    assertEquals(200, ok.statusCode());
    assertEquals("{\"lastUpdated\":\"" + now + "\",\"currentTime\":\"" + now + "\",\"nodeEligible\":true,\"healthy\":true,"
        + "\"status\":{\"IPv4\":{\"lastUpdated\":\"" + GoTime.format(v4) + "\",\"healthy\":true},"
        + "\"IPv6\":{\"lastUpdated\":\"" + GoTime.format(v6) + "\",\"healthy\":true}}}", ok.bodyAsString());

    publish(new HealthUpdate(IpFamily.IPv4, HealthUpdate.Type.QUEUED, t0));
    clock.advance(Duration.ofSeconds(61)); // only IPv4 has a change waiting, for longer than 60 s
    Await.until("IPv4 is late", 5000, () -> get("/livez").statusCode() == 503);
    String later = GoTime.format(clock.instant());
    // unhealthy: lastUpdated is the newest sync of any family (IPv6's), each family says its own
    String late = "\"status\":{\"IPv4\":{\"lastUpdated\":\"" + GoTime.format(v4) + "\",\"healthy\":false},"
        + "\"IPv6\":{\"lastUpdated\":\"" + GoTime.format(v6) + "\",\"healthy\":true}}}";
    assertEquals("{\"lastUpdated\":\"" + GoTime.format(v6) + "\",\"currentTime\":\"" + later + "\",\"nodeEligible\":true,"
        + "\"healthy\":false," + late, get("/healthz").bodyAsString());
    assertEquals("{\"lastUpdated\":\"" + GoTime.format(v6) + "\",\"currentTime\":\"" + later + "\",\"healthy\":false," + late,
        get("/livez").bodyAsString());
  }

  @Test
  void anIneligibleNodeFailsHealthzButNotLivez() {
    vertx.eventBus().publish(EventBusAddresses.NODE_ELIGIBLE, false);
    Await.until("node marked ineligible", 5000, () -> get("/healthz").statusCode() == 503);
    String now = GoTime.format(t0);
    // only node eligibility failed: "healthy" is the proxiers' part; lastUpdated the newest sync, none yet
    assertEquals("{\"lastUpdated\":\"0001-01-01T00:00:00Z\",\"currentTime\":\"" + now + "\",\"nodeEligible\":false,\"healthy\":true}",
        get("/healthz").bodyAsString());
    assertEquals(200, get("/livez").statusCode());
    vertx.eventBus().publish(EventBusAddresses.NODE_ELIGIBLE, true);
    Await.until("node eligible again", 5000, () -> get("/healthz").statusCode() == 200);
  }

  @Test
  void beforeTheNodeIsKnownHealthzIs503AndLivezIs200(Vertx vertx) {
    HealthzServerVerticle early = HealthzServerVerticle.beforeTheNodeIsKnown(TestConfigs.options(c -> c.healthzBindAddress = "127.0.0.1:0"),
        clock, metrics);
    Await.result(vertx.deployVerticle(early));
    int p = early.actualPort();
    HttpResponse<Buffer> h = Await.result(client.get(p, "127.0.0.1", "/healthz").send());
    assertEquals(503, h.statusCode());
    assertTrue(h.bodyAsString().contains(",\"nodeEligible\":false,\"healthy\":true}"), h.bodyAsString());
    assertEquals(200, Await.result(client.get(p, "127.0.0.1", "/livez").send()).statusCode());
    vertx.eventBus().publish(EventBusAddresses.NODE_ELIGIBLE, true); // what the agent sends once the lookup is done
    Await.until("eligible once known", 5000, () -> Await.result(client.get(p, "127.0.0.1", "/healthz").send()).statusCode() == 200);
  }

  @Test
  void http2IsNotSpoken() throws Exception {
    try (java.net.Socket a = new java.net.Socket(java.net.InetAddress.getLoopbackAddress(), port);
         java.net.Socket b = new java.net.Socket(java.net.InetAddress.getLoopbackAddress(), port)) {
      a.setSoTimeout(5000);
      b.setSoTimeout(5000);
      ConnectionGuardTest.assertH2cRefused(a, b);
    }
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
  void aWildcardAddressAnswersOnIpv4AndIpv6(Vertx vertx) throws Exception {
    HealthzServerVerticle wildcard = new HealthzServerVerticle(TestConfigs.options(c -> c.healthzBindAddress = "0.0.0.0:0"), clock, metrics);
    Await.result(vertx.deployVerticle(wildcard));
    int p = wildcard.actualPort();
    assertEquals(200, Await.result(client.get(p, "127.0.0.1", "/livez").send()).statusCode());
    boolean ipv6 = java.util.Collections.list(java.net.NetworkInterface.getNetworkInterfaces()).stream()
        .flatMap(n -> java.util.Collections.list(n.getInetAddresses()).stream())
        .anyMatch(a -> a instanceof java.net.Inet6Address && a.isLoopbackAddress());
    if (ipv6) {
      assertEquals(200, Await.result(client.get(p, "::1", "/livez").send()).statusCode());
    }
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
