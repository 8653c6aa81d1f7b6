package dev.kubeproxy.metrics;

import dev.kubeproxy.config.ProxyMode;

import dev.kubeproxy.server.MetricsServerVerticle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kubeproxy.config.AgentOptions;
import dev.kubeproxy.messages.EventBusAddresses;
import dev.kubeproxy.messages.EventBusCodecs;
import dev.kubeproxy.messages.DebugServicesQuery;
import dev.kubeproxy.model.Endpoint;
import dev.kubeproxy.messages.FamilySnapshot;
import dev.kubeproxy.net.IpFamily;
import dev.kubeproxy.model.LocalTrafficDetector;
import dev.kubeproxy.model.NamespacedName;
import dev.kubeproxy.model.ProgrammedRules;
import dev.kubeproxy.model.ProxierSettings;
import dev.kubeproxy.messages.ProxierSnapshot;
import dev.kubeproxy.model.ProxyState;
import dev.kubeproxy.model.ServicePort;
import dev.kubeproxy.model.ServicePortName;
import dev.kubeproxy.model.ServiceSyncLog;
import dev.kubeproxy.testutil.Await;
import dev.kubeproxy.testutil.TestConfigs;
import dev.kubeproxy.testutil.tier.Unit;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.junit5.VertxExtension;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** GET /debug/services on the metrics server, with a proxier double answering on the event bus. */
@ExtendWith(VertxExtension.class)
@Unit
class DebugServicesRouteTest {
  static final ServicePortName WEB = new ServicePortName(new NamespacedName("demo", "web"), "http", "TCP");

  private Vertx vertx;
  private WebClient client;
  private final List<DebugServicesQuery> queries = new CopyOnWriteArrayList<>();

  @BeforeEach
  void setUp(Vertx vertx) {
    this.vertx = vertx;
    EventBusCodecs.register(vertx);
    client = WebClient.create(vertx);
  }

  private int deploy(boolean profiling) {
    AgentOptions opts = TestConfigs.options(c -> {
      c.metricsBindAddress = "127.0.0.1:0";
      c.mode = "nftables";
      c.enableProfiling = profiling;
    });
    MetricsServerVerticle v = new MetricsServerVerticle(opts, new ProxyMetrics(), level -> {});
    Await.result(vertx.deployVerticle(v));
    return v.actualPort();
  }

  /** The proxier's side: one IPv4 family with demo/web and its rules. */
  private void proxier() {
    ServicePort web = new ServicePort(WEB, "10.96.0.10", 80, "TCP", 0, List.of(), List.of(), List.of(), false, 0,
        false, false, 0, "");
    List<Endpoint> eps = List.of(new Endpoint("10.244.1.5", 8080, true, true, true, false, null,
        Endpoint.NodeHint.NONE, "node-a", "z1"));
    ProxyState state = new ProxyState(Map.of(WEB, web), Map.of(WEB, eps), Set.of(), Map.of(), List.of(), Map.of());
    ServiceSyncLog syncs = new ServiceSyncLog();
    syncs.synced(Set.of(), Instant.parse("2026-12-03T10:00:00Z"), true, null);
    ProxierSettings settings = new ProxierSettings(IpFamily.IPv4, "node-a", List.of("192.168.200.1"), List.of(),
        false, 14, true, new LocalTrafficDetector("ClusterCIDR", "10.244.0.0/16"), Duration.ofSeconds(30),
        Duration.ofSeconds(1), null);
    vertx.eventBus().<DebugServicesQuery>consumer(EventBusAddresses.DEBUG_SERVICES, msg -> {
      queries.add(msg.body());
      Map<ServicePortName, ProgrammedRules> rules = msg.body().service() == null ? Map.of()
          : Map.of(WEB, ProgrammedRules.of("nft list chain", List.of("chain service-X { dnat to 10.244.1.5:8080 }")));
      msg.reply(new ProxierSnapshot(ProxyMode.NFTABLES, false, true,
          List.of(new FamilySnapshot(settings, state, syncs, rules)), List.of()));
    });
  }

  private HttpResponse<Buffer> get(int port, String path) {
    return Await.result(client.get(port, "127.0.0.1", path).send());
  }

  @Test
  void jsonByDefaultTextOnRequestAndThePathOfAPacket() {
    proxier();
    int port = deploy(false);
    HttpResponse<Buffer> all = get(port, "/debug/services");
    assertEquals(200, all.statusCode());
    assertEquals("application/json", all.getHeader("Content-Type"));
    JsonObject json = all.bodyAsJsonObject();
    assertEquals("nftables", json.getString("mode"));
    assertEquals("demo/web:http", json.getJsonArray("ports").getJsonObject(0).getString("servicePort"));
    assertNull(json.getJsonArray("ports").getJsonObject(0).getJsonObject("programmed"),
        "without a Service, the kernel is not read");
    assertNull(queries.get(0).service());

    HttpResponse<Buffer> one = get(port, "/debug/services?service=demo/web:http&from=10.244.2.9&to=10.96.0.10:80");
    JsonObject p = one.bodyAsJsonObject().getJsonArray("ports").getJsonObject(0);
    assertEquals(new NamespacedName("demo", "web"), queries.get(1).service());
    assertEquals("chain service-X { dnat to 10.244.1.5:8080 }",
        p.getJsonObject("programmed").getJsonArray("lines").getString(0));
    assertEquals("DNAT", p.getJsonObject("path").getString("verdict"));
    assertEquals("10.244.1.5:8080", p.getJsonObject("path").getJsonArray("endpoints").getJsonObject(0)
        .getString("endpoint"));

    HttpResponse<Buffer> text = get(port, "/debug/services?service=demo/web&format=text");
    assertEquals(200, text.statusCode());
    assertTrue(text.getHeader("Content-Type").startsWith("text/plain"));
    assertTrue(text.bodyAsString().contains("demo/web:http TCP (IPv4)")
        && text.bodyAsString().contains("10.244.1.5:8080"), text.bodyAsString());
  }

  @Test
  void unknownServiceIs404WithCloseNamesAndBadParametersAre400() {
    proxier();
    int port = deploy(true); // with profiling on too: /debug/pprof does not take the path
    HttpResponse<Buffer> unknown = get(port, "/debug/services?service=demo/wbe&format=text");
    assertEquals(404, unknown.statusCode());
    assertTrue(unknown.bodyAsString().contains("close names: demo/web"), unknown.bodyAsString());
    HttpResponse<Buffer> bad = get(port, "/debug/services?service=web");
    assertEquals(400, bad.statusCode());
    assertTrue(bad.bodyAsString().contains("NAMESPACE/NAME"), bad.bodyAsString());
    assertEquals(400, get(port, "/debug/services?service=demo/web&from=10.0.0.1").statusCode());
  }

  @Test
  void withoutAProxierTheAnswerIs503() {
    int port = deploy(false);
    HttpResponse<Buffer> r = get(port, "/debug/services");
    assertEquals(503, r.statusCode());
    assertTrue(r.bodyAsString().contains("not running"), r.bodyAsString());
  }
}
