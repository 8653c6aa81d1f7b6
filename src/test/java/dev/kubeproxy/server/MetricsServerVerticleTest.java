package dev.kubeproxy.server;

import dev.kubeproxy.metrics.ProxyMetrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kubeproxy.config.AgentOptions;
import dev.kubeproxy.messages.EventBusAddresses;
import dev.kubeproxy.messages.EventBusCodecs;
import dev.kubeproxy.testutil.Await;
import dev.kubeproxy.testutil.TestConfigs;
import dev.kubeproxy.testutil.tier.Unit;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;
import io.vertx.junit5.VertxExtension;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(VertxExtension.class)
@Unit
class MetricsServerVerticleTest {
  private Vertx vertx;
  private WebClient client;
  private final ProxyMetrics metrics = new ProxyMetrics(); // the server registers the mode's sets
  private final List<Integer> verbosity = new java.util.concurrent.CopyOnWriteArrayList<>();

  @BeforeEach
  void setUp(Vertx vertx) {
    this.vertx = vertx;
    EventBusCodecs.register(vertx);
    client = WebClient.create(vertx, new WebClientOptions().setFollowRedirects(false));
  }

  private int deploy(boolean profiling) {
    return deploy(profiling, java.util.Map.of());
  }

  private int deploy(boolean profiling, java.util.Map<String, Boolean> gates) {
    AgentOptions opts = TestConfigs.options(c -> {
      c.metricsBindAddress = "127.0.0.1:0";
      c.mode = "nftables";
      c.enableProfiling = profiling;
      c.featureGates = new java.util.TreeMap<>(gates);
    });
    MetricsServerVerticle v = new MetricsServerVerticle(opts, metrics, verbosity::add);
    Await.result(vertx.deployVerticle(v));
    return v.actualPort();
  }

  private HttpResponse<Buffer> call(int port, HttpMethod method, String path, String body) {
    var req = client.request(method, port, "127.0.0.1", path);
    return Await.result(body == null ? req.send() : req.sendBuffer(Buffer.buffer(body)));
  }

  private HttpResponse<Buffer> get(int port, String path) {
    return call(port, HttpMethod.GET, path, null);
  }

  @Test
  void metricsServesKubeProxyAndRuntimeFamilies() {
    int port = deploy(false);
    metrics.incNftablesSyncFailures("IPv4");
    metrics.observeSyncDuration("IPv4", java.time.Duration.ofMillis(1));
    HttpResponse<Buffer> r = get(port, "/metrics");
    assertEquals(200, r.statusCode());
    assertEquals("text/plain; version=0.0.4; charset=utf-8", r.getHeader("Content-Type"));
    String text = r.bodyAsString();
    assertTrue(text.contains("# TYPE kubeproxy_sync_proxy_rules_duration_seconds histogram\n"), text);
    assertTrue(text.contains("\nkubeproxy_sync_proxy_rules_nftables_sync_failures_total{ip_family=\"IPv4\"} 1\n"), text);
    assertTrue(text.contains("# TYPE jvm_threads_live_threads gauge"), text);
    assertTrue(!text.contains("kubeproxy_sync_proxy_rules_iptables"), "nftables mode has no iptables metrics");
    assertTrue(text.contains("\nkubernetes_feature_enabled{name=\"NFTablesProxyMode\",stage=\"\"} 1\n"), text);
    assertTrue(text.contains("\nkubernetes_feature_enabled{name=\"KubeProxyIPVS\",stage=\"DEPRECATED\"} 1\n"), text);
    assertTrue(text.contains("\nkubernetes_feature_enabled{name=\"AllAlpha\",stage=\"ALPHA\"} 0\n"), text);
  }

  @Test
  void metricsAreGzippedWhenAccepted() {
    int port = deploy(false);
    HttpResponse<Buffer> r = Await.result(client.get(port, "127.0.0.1", "/metrics").putHeader("Accept-Encoding", "gzip").send());
    assertEquals("gzip", r.getHeader("Content-Encoding"));
  }

  @Test
  void healthzWithPingCheckAndSlis() {
    int port = deploy(false);
    HttpResponse<Buffer> r = get(port, "/healthz");
    assertEquals(200, r.statusCode());
    assertEquals("ok", r.bodyAsString());
    assertEquals("text/plain; charset=utf-8", r.getHeader("Content-Type"));
    assertEquals("nosniff", r.getHeader("X-Content-Type-Options"));
    assertEquals("[+]ping ok\nhealthz check passed\n", get(port, "/healthz?verbose").bodyAsString());
    assertEquals("[+]ping excluded: ok\nhealthz check passed\n", get(port, "/healthz?verbose&exclude=ping").bodyAsString());
    assertEquals("[+]ping ok\nwarn: some health checks cannot be excluded: no matches for \"etcd\"\nhealthz check passed\n",
        get(port, "/healthz?verbose=true&exclude=etcd").bodyAsString());
    assertEquals("ok", get(port, "/healthz?exclude=ping").bodyAsString());
    HttpResponse<Buffer> ping = get(port, "/healthz/ping");
    assertEquals(200, ping.statusCode());
    assertEquals("ok", ping.bodyAsString());

    // four runs of the ping check (the excluded ones do not count), one of /healthz/ping does not either
    String slis = get(port, "/metrics/slis").bodyAsString();
    assertTrue(slis.contains("kubernetes_healthcheck{name=\"ping\",type=\"healthz\"} 1\n"), slis);
    assertTrue(slis.contains("kubernetes_healthchecks_total{name=\"ping\",status=\"success\",type=\"healthz\"} 3\n"), slis);
    HttpResponse<Buffer> reset = call(port, HttpMethod.DELETE, "/metrics/slis", null);
    assertEquals("metrics reset\n", reset.bodyAsString());
    HttpResponse<Buffer> empty = get(port, "/metrics/slis");
    assertEquals(200, empty.statusCode());
    assertTrue(empty.body() == null || empty.body().length() == 0, empty.bodyAsString());
  }

  @Test
  void proxyMode() {
    int port = deploy(false);
    HttpResponse<Buffer> r = get(port, "/proxyMode");
    assertEquals(200, r.statusCode());
    assertEquals("nftables", r.bodyAsString());
    assertEquals("text/plain; charset=utf-8", r.getHeader("Content-Type"));
    assertEquals("nosniff", r.getHeader("X-Content-Type-Options"));
  }

  @Test
  void configzServesTheVersionedConfiguration() throws Exception {
    int port = deploy(false);
    HttpResponse<Buffer> r = get(port, "/configz");
    assertEquals(200, r.statusCode());
    assertEquals("application/json", r.getHeader("Content-Type"));
    assertEquals("nosniff", r.getHeader("X-Content-Type-Options"));
    JsonNode c = new ObjectMapper().readTree(r.bodyAsString()).get("kubeproxy.config.k8s.io");
    assertEquals("kubeproxy.config.k8s.io/v1alpha1", c.get("apiVersion").asText());
    assertEquals("KubeProxyConfiguration", c.get("kind").asText());
    assertEquals("nftables", c.get("mode").asText());
    assertEquals("127.0.0.1:0", c.get("metricsBindAddress").asText());
    assertEquals(32768, c.get("conntrack").get("maxPerCore").asInt());
  }

  @Test
  void unknownPathsAndTrailingSlashesAre404AndProfilingIsOffByDefault() {
    int port = deploy(false);
    for (String path : List.of("/", "/metrics/", "/livez", "/proxyMode/", "/debug/pprof/", "/debug/flags/v", "/configz/x")) {
      HttpResponse<Buffer> r = get(port, path);
      assertEquals(404, r.statusCode(), path);
      assertEquals("404 page not found\n", r.bodyAsString(), path);
    }
  }

  @Test
  void debugFlagsVChangesVerbosity() {
    int port = deploy(true);
    HttpResponse<Buffer> ok = call(port, HttpMethod.PUT, "/debug/flags/v", "4");
    assertEquals(200, ok.statusCode());
    assertEquals("successfully set klog.logging.verbosity to 4\n", ok.bodyAsString());
    assertEquals("text/plain", ok.getHeader("Content-Type"));
    assertEquals(List.of(4), verbosity);
    HttpResponse<Buffer> bad = call(port, HttpMethod.PUT, "/debug/flags/v", "-1");
    assertEquals(400, bad.statusCode());
    assertTrue(bad.bodyAsString().startsWith("failed set klog.logging.verbosity -1: "), bad.bodyAsString());
    assertEquals(406, get(port, "/debug/flags/v").statusCode());
    assertEquals("unsupported http method\n", get(port, "/debug/flags/v").bodyAsString());
    assertEquals(List.of(4), verbosity);
    assertTrue(get(port, "/debug/flags").bodyAsString().contains("/debug/flags/v"));
    assertTrue(get(port, "/debug/flags/").bodyAsString().contains("/debug/flags/v"));
  }

  @Test
  void profilingEndpoints() {
    int port = deploy(true);
    HttpResponse<Buffer> redirect = get(port, "/debug/pprof");
    assertEquals(302, redirect.statusCode());
    assertEquals("/debug/pprof/", redirect.getHeader("Location"));
    assertTrue(get(port, "/debug/pprof/").bodyAsString().contains("href=\"heap\""));
    String threads = get(port, "/debug/pprof/goroutine").bodyAsString();
    assertTrue(threads.contains("Full thread dump") && threads.contains("vert.x-eventloop-thread"), threads);
    String heap = get(port, "/debug/pprof/heap").bodyAsString();
    assertTrue(heap.contains("java.lang.String"), heap);
    assertTrue(get(port, "/debug/pprof/cmdline").bodyAsString().contains("java"));
    assertEquals(404, get(port, "/debug/pprof/nonsense").statusCode());
    HttpResponse<Buffer> jfr = get(port, "/debug/pprof/profile?seconds=1");
    assertEquals(200, jfr.statusCode());
    assertEquals("application/octet-stream", jfr.getHeader("Content-Type"));
    assertTrue(jfr.body().length() > 1000);
    assertEquals("FLR\u0000", jfr.body().getString(0, 4)); // the JFR file magic
  }

  private static List<jdk.jfr.Recording> profileRecordings() {
    return jdk.jfr.FlightRecorder.getFlightRecorder().getRecordings().stream()
        .filter(r -> "kube-proxy /debug/pprof/profile".equals(r.getName())).toList();
  }

  @Test
  void aProfileRecordingStopsWhenItsClientGoesAway() throws Exception {
    int port = deploy(true);
    try (java.net.Socket s = new java.net.Socket(java.net.InetAddress.getLoopbackAddress(), port)) {
      s.getOutputStream().write("GET /debug/pprof/profile?seconds=120 HTTP/1.1\r\nHost: x\r\n\r\n"
          .getBytes(java.nio.charset.StandardCharsets.US_ASCII));
      s.getOutputStream().flush();
      Await.until("the recording runs", 10_000, () -> profileRecordings().stream()
          .anyMatch(r -> r.getState() == jdk.jfr.RecordingState.RUNNING));
    } // the client goes away long before the 120 s are up
    Await.until("the recording is stopped and discarded", 10_000, () -> profileRecordings().isEmpty());
  }

  @Test
  void statuszAndFlagzOnlyUnderTheirGates() {
    int off = deploy(false, java.util.Map.of("ComponentStatusz", false, "ComponentFlagz", false));
    assertEquals(404, get(off, "/statusz").statusCode());
    assertEquals(404, get(off, "/flagz").statusCode());
    AgentOptions base = TestConfigs.options(c -> {
      c.metricsBindAddress = "127.0.0.1:0";
      c.featureGates = new java.util.TreeMap<>(java.util.Map.of("ComponentStatusz", true, "ComponentFlagz", true));
    });
    java.util.TreeMap<String, String> flags = new java.util.TreeMap<>(java.util.Map.of("v", "4", "proxy-mode", "nftables"));
    AgentOptions opts = new AgentOptions(base.config(), null, "node-1", null, false, false, false, flags);
    MetricsServerVerticle v = new MetricsServerVerticle(opts, metrics, verbosity::add);
    Await.result(vertx.deployVerticle(v));
    int port = v.actualPort();
    HttpResponse<Buffer> text = get(port, "/statusz");
    assertEquals(200, text.statusCode());
    assertEquals("text/plain; charset=utf-8", text.getHeader("Content-Type"));
    assertTrue(text.bodyAsString().startsWith("\nkube-proxy statusz\nWarning: This endpoint is not meant to be machine parseable"),
        text.bodyAsString());
    assertTrue(text.bodyAsString().matches("(?s).*\nPaths(:|: |=| ) /configz /debug /flagz /healthz /metrics /proxyMode\n"),
        text.bodyAsString());
    HttpResponse<Buffer> json = Await.result(client.get(port, "127.0.0.1", "/statusz")
        .putHeader("Accept", "application/json;as=Statusz;v=v1beta1;g=config.k8s.io").send());
    assertEquals(200, json.statusCode());
    assertEquals("application/json", json.getHeader("Content-Type"));
    assertEquals("Statusz", json.bodyAsJsonObject().getString("kind"));
    assertEquals("config.k8s.io/v1beta1", json.bodyAsJsonObject().getString("apiVersion"));
    assertEquals("1.37.0", json.bodyAsJsonObject().getString("binaryVersion"));
    assertEquals(List.of("/configz", "/debug", "/flagz", "/healthz", "/metrics", "/proxyMode"),
        json.bodyAsJsonObject().getJsonArray("paths").getList());
    assertNull(json.getHeader("Warning"));
    HttpResponse<Buffer> alpha = Await.result(client.get(port, "127.0.0.1", "/statusz")
        .putHeader("Accept", "application/json;v=v1alpha1;g=config.k8s.io;as=Statusz").send());
    assertEquals("config.k8s.io/v1alpha1", alpha.bodyAsJsonObject().getString("apiVersion"));
    assertTrue(alpha.getHeader("Warning").startsWith("299 - "), alpha.getHeader("Warning"));
    HttpResponse<Buffer> yaml = Await.result(client.get(port, "127.0.0.1", "/statusz")
        .putHeader("Accept", "application/yaml;as=Statusz;v=v1beta1;g=config.k8s.io").send());
    assertEquals(200, yaml.statusCode());
    assertEquals("application/yaml", yaml.getHeader("Content-Type"));
    assertTrue(yaml.bodyAsString().startsWith("apiVersion: config.k8s.io/v1beta1\n"), yaml.bodyAsString());
    HttpResponse<Buffer> refused = Await.result(client.get(port, "127.0.0.1", "/statusz").putHeader("Accept", "application/json").send());
    assertEquals(406, refused.statusCode());
    assertEquals("NotAcceptable", refused.bodyAsJsonObject().getString("reason"));
    String flagz = get(port, "/flagz").bodyAsString();
    assertTrue(flagz.matches("(?s)\nkube-proxy flagz\n.*\nproxy-mode(:|: |=| )nftables\nv\\1?.*"), flagz);
    HttpResponse<Buffer> flagzJson = Await.result(client.get(port, "127.0.0.1", "/flagz")
        .putHeader("Accept", "application/json;v=v1beta1;g=config.k8s.io;as=Flagz").send());
    assertEquals("config.k8s.io/v1beta1", flagzJson.bodyAsJsonObject().getString("apiVersion"));
    assertEquals("{\"proxy-mode\":\"nftables\",\"v\":\"4\"}", flagzJson.bodyAsJsonObject().getJsonObject("flags").encode());
  }

  @Test
  void http2IsNotSpoken() throws Exception {
    int port = deploy(false);
    try (java.net.Socket a = new java.net.Socket(java.net.InetAddress.getLoopbackAddress(), port);
         java.net.Socket b = new java.net.Socket(java.net.InetAddress.getLoopbackAddress(), port)) {
      a.setSoTimeout(5000);
      b.setSoTimeout(5000);
      dev.kubeproxy.server.ConnectionGuardTest.assertH2cRefused(a, b);
    }
  }

  @Test
  void bindFailureWithHardFailIsFatal() throws Exception {
    int taken = deploy(false);
    BlockingQueue<String> fatal = new ArrayBlockingQueue<>(2);
    vertx.eventBus().<String>consumer(EventBusAddresses.FATAL, m -> fatal.add(m.body()));
    BlockingQueue<dev.kubeproxy.messages.EventRequest> events = new ArrayBlockingQueue<>(2);
    vertx.eventBus().<dev.kubeproxy.messages.EventRequest>consumer(EventBusAddresses.EVENTS, m -> events.add(m.body()));
    AgentOptions opts = TestConfigs.options(c -> {
      c.metricsBindAddress = "127.0.0.1:" + taken;
      c.bindAddressHardFail = true;
    });
    Await.result(vertx.deployVerticle(new MetricsServerVerticle(opts, metrics, verbosity::add)));
    String reason = fatal.poll(10, TimeUnit.SECONDS);
    assertEquals("starting metrics server failed: listen tcp 127.0.0.1:" + taken + ": bind: address already in use", reason);
    assertEquals(dev.kubeproxy.messages.EventRequest.failedToStartMetricServer(reason), events.poll(5, TimeUnit.SECONDS));
  }
}
