package dev.kubeproxy.testapi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.kubeproxy.testutil.tier.Unit;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The test API server's HTTP contract, and that the real kubectl works against it. */
@Unit
class TestApiServerTest {
  @TempDir Path tmp;
  private Vertx vertx;
  private TestApiServer api;
  // HTTP/1.1 as the agent speaks it: the JDK client would otherwise offer an h2c upgrade mid-connection
  private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

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

  static <T> T get(Future<T> f) throws Exception {
    return f.toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
  }

  private HttpResponse<String> send(String method, String path, String body, String contentType) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(api.url() + path));
    b.method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
    if (contentType != null) {
      b.header("Content-Type", contentType);
    }
    return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  private static String svc(String name, String labels) {
    return "{\"apiVersion\":\"v1\",\"kind\":\"Service\",\"metadata\":{\"name\":\"" + name + "\",\"labels\":" + labels
        + "},\"spec\":{\"ports\":[{\"port\":80}]}}";
  }

  /** A watch with timeoutSeconds=1: all events it delivered before the server ended it. */
  private List<JsonObject> watch(String query) throws Exception {
    HttpResponse<java.util.stream.Stream<String>> r = http.send(HttpRequest.newBuilder(
        URI.create(api.url() + "/api/v1/namespaces/default/services?watch=true&timeoutSeconds=1&" + query)).build(),
        HttpResponse.BodyHandlers.ofLines());
    assertEquals(200, r.statusCode());
    List<JsonObject> out = new ArrayList<>();
    r.body().forEach(l -> out.add(new JsonObject(l)));
    return out;
  }

  /** The labels of every Service in a list answer, in its order. */
  private List<JsonObject> listedLabels() throws Exception {
    return new JsonObject(send("GET", "/api/v1/services", null, null).body()).getJsonArray("items").stream()
        .map(o -> ((JsonObject) o).getJsonObject("metadata").getJsonObject("labels")).toList();
  }

  private static String enc(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8);
  }

  @Test
  void aRefusedFieldLabelIsAnswered400AsAnOlderServerDoes() throws Exception {
    String path = "/api/v1/services?fieldSelector=" + enc("spec.clusterIP!=None");
    assertEquals(200, send("GET", path, null, null).statusCode());
    api.refuseFieldLabel("Service", "spec.clusterIP");
    HttpResponse<String> refused = send("GET", path, null, null);
    assertEquals(400, refused.statusCode());
    assertEquals("field label not supported: spec.clusterIP", new JsonObject(refused.body()).getString("message"));
    assertEquals(200, send("GET", "/api/v1/services?fieldSelector=" + enc("metadata.name=a"), null, null).statusCode());
  }

  @Test
  void crudWithConflicts() throws Exception {
    HttpResponse<String> created = send("POST", "/api/v1/namespaces/default/services", svc("a", "{\"app\":\"x\"}"), "application/json");
    assertEquals(201, created.statusCode(), created.body());
    String rv = new JsonObject(created.body()).getJsonObject("metadata").getString("resourceVersion");
    assertEquals(409, send("POST", "/api/v1/namespaces/default/services", svc("a", "{}"), "application/json").statusCode());

    JsonObject stale = new JsonObject(svc("a", "{\"app\":\"y\"}"));
    stale.getJsonObject("metadata").put("resourceVersion", "1");
    HttpResponse<String> conflict = send("PUT", "/api/v1/namespaces/default/services/a", stale.encode(), "application/json");
    assertEquals(409, conflict.statusCode());
    assertEquals("Conflict", new JsonObject(conflict.body()).getString("reason"));
    stale.getJsonObject("metadata").put("resourceVersion", rv);
    assertEquals(200, send("PUT", "/api/v1/namespaces/default/services/a", stale.encode(), "application/json").statusCode());
    assertEquals(List.of(new JsonObject().put("app", "y")), listedLabels());

    HttpResponse<String> patched = send("PATCH", "/api/v1/namespaces/default/services/a",
        "{\"metadata\":{\"labels\":{\"app\":null,\"tier\":\"web\"}}}", "application/merge-patch+json");
    assertEquals(200, patched.statusCode(), patched.body());
    assertEquals(new JsonObject().put("tier", "web"),
        new JsonObject(patched.body()).getJsonObject("metadata").getJsonObject("labels"));
    assertEquals(List.of(new JsonObject().put("tier", "web")), listedLabels()); // a list shows each object as it is now

    assertEquals(200, send("DELETE", "/api/v1/namespaces/default/services/a", null, null).statusCode());
    assertEquals(List.of(), listedLabels());
    HttpResponse<String> gone = send("GET", "/api/v1/namespaces/default/services/a", null, null);
    assertEquals(404, gone.statusCode());
    assertEquals("NotFound", new JsonObject(gone.body()).getString("reason"));
  }

  @Test
  void listWithSelectorsAndWatchReplayWithLabelTransitions() throws Exception {
    send("POST", "/api/v1/namespaces/default/services", svc("a", "{\"app\":\"x\"}"), "application/json");
    send("POST", "/api/v1/namespaces/default/services", svc("b", "{\"app\":\"y\",\"service.kubernetes.io/headless\":\"\"}"), "application/json");
    JsonObject list = new JsonObject(send("GET", "/api/v1/services?labelSelector="
        + enc("!service.kubernetes.io/headless,app in (x,y)"), null, null).body());
    assertEquals(1, list.getJsonArray("items").size());
    String rv = list.getJsonObject("metadata").getString("resourceVersion");
    JsonObject byName = new JsonObject(send("GET", "/api/v1/services?fieldSelector=" + enc("metadata.name=b"), null, null).body());
    assertEquals("b", byName.getJsonArray("items").getJsonObject(0).getJsonObject("metadata").getString("name"));
    assertEquals(400, send("GET", "/api/v1/services?fieldSelector=" + enc("spec.selector=x"), null, null).statusCode());

    // a gains the excluded label, b loses it, then a is deleted: seen through the selector
    send("PATCH", "/api/v1/namespaces/default/services/a",
        "{\"metadata\":{\"labels\":{\"service.kubernetes.io/headless\":\"\"}}}", "application/merge-patch+json");
    send("PATCH", "/api/v1/namespaces/default/services/b",
        "{\"metadata\":{\"labels\":{\"service.kubernetes.io/headless\":null}}}", "application/merge-patch+json");
    send("DELETE", "/api/v1/namespaces/default/services/a", null, null);
    List<JsonObject> events = watch("resourceVersion=" + rv + "&allowWatchBookmarks=true&labelSelector="
        + enc("!service.kubernetes.io/headless"));
    assertEquals(List.of("DELETED a", "ADDED b"), events.stream()
        .map(e -> e.getString("type") + " " + e.getJsonObject("object").getJsonObject("metadata").getString("name")).toList());

    // without a resourceVersion: the current state as ADDED events
    assertEquals(List.of("ADDED b"), watch("").stream()
        .map(e -> e.getString("type") + " " + e.getJsonObject("object").getJsonObject("metadata").getString("name")).toList());

    // expired history: 410 Gone as an ERROR event
    api.expireHistory();
    List<JsonObject> expired = watch("resourceVersion=" + rv);
    assertEquals(1, expired.size());
    assertEquals("ERROR", expired.get(0).getString("type"));
    assertEquals(410, expired.get(0).getJsonObject("object").getInteger("code"));
  }

  @Test
  void aLargeListIsPagedWithLimitAndContinueAndStreamedWhole() throws Exception {
    for (int i = 0; i < 1203; i++) {
      api.upsert(new JsonObject(svc(String.format("s%04d", i), "{\"app\":\"" + (i % 2 == 0 ? "even" : "odd") + "\"}")));
    }
    // unpaged: every item, in one answer written batch by batch
    JsonObject all = new JsonObject(send("GET", "/api/v1/services", null, null).body());
    assertEquals(1203, all.getJsonArray("items").size());
    assertEquals(null, all.getJsonObject("metadata").getString("continue"));

    // paged through a selector: pages of 250, the first page's resourceVersion on every page
    List<String> names = new ArrayList<>();
    String token = "";
    String firstRv = null;
    int pages = 0;
    do {
      JsonObject page = new JsonObject(send("GET", "/api/v1/services?limit=250&labelSelector=app%3Deven&continue="
          + enc(token), null, null).body());
      pages++;
      firstRv = firstRv == null ? page.getJsonObject("metadata").getString("resourceVersion") : firstRv;
      assertEquals(firstRv, page.getJsonObject("metadata").getString("resourceVersion"));
      page.getJsonArray("items").forEach(o -> names.add(((JsonObject) o).getJsonObject("metadata").getString("name")));
      token = page.getJsonObject("metadata").getString("continue", "");
      if (pages == 1) {
        api.upsert(new JsonObject(svc("s0000b", "{\"app\":\"even\"}"))); // before the cursor: not on a later page
      }
    } while (!token.isEmpty());
    assertEquals(3, pages);
    assertEquals(602, names.size());
    assertEquals(names.stream().sorted().distinct().toList(), names);

    // a token from before the history was compacted: 410 Gone, start again
    String stale = new JsonObject(send("GET", "/api/v1/services?limit=1", null, null).body())
        .getJsonObject("metadata").getString("continue");
    api.expireHistory();
    assertEquals(410, send("GET", "/api/v1/services?limit=1&continue=" + enc(stale), null, null).statusCode());
    assertEquals(400, send("GET", "/api/v1/services?limit=-1", null, null).statusCode());
    assertEquals(400, send("GET", "/api/v1/services?limit=1&continue=not-a-token", null, null).statusCode());
  }

  @Test
  void servicesByClusterIPFieldAsKubeProxyWatchesThem() throws Exception {
    send("POST", "/api/v1/namespaces/default/services", svc("plain", "{}"), "application/json");
    send("POST", "/api/v1/namespaces/default/services", svc("headless", "{}")
        .replace("\"spec\":{", "\"spec\":{\"clusterIP\":\"None\","), "application/json");
    send("POST", "/api/v1/namespaces/default/services", svc("lb", "{}")
        .replace("\"spec\":{", "\"spec\":{\"clusterIP\":\"10.96.0.9\",\"type\":\"LoadBalancer\","),
        "application/json");
    JsonObject notHeadless = new JsonObject(send("GET", "/api/v1/services?fieldSelector="
        + enc("spec.clusterIP!=None"), null, null).body());
    assertEquals(List.of("lb", "plain"), names(notHeadless));
    JsonObject lbOnly = new JsonObject(send("GET", "/api/v1/services?fieldSelector="
        + enc("spec.type=LoadBalancer,spec.clusterIP==10.96.0.9"), null, null).body());
    assertEquals(List.of("lb"), names(lbOnly));
    assertEquals(400, send("GET", "/api/v1/services?fieldSelector=" + enc("spec.clusterIP in (None)"), null, null)
        .statusCode(), "set-based operators are not field selectors");
    assertEquals(400, send("GET", "/apis/discovery.k8s.io/v1/endpointslices?fieldSelector="
        + enc("spec.clusterIP!=None"), null, null).statusCode(), "only Services have spec.clusterIP");

    String rv = notHeadless.getJsonObject("metadata").getString("resourceVersion");
    send("POST", "/api/v1/namespaces/default/services", svc("headless2", "{}")
        .replace("\"spec\":{", "\"spec\":{\"clusterIP\":\"None\","), "application/json");
    send("POST", "/api/v1/namespaces/default/services", svc("plain2", "{}"), "application/json");
    List<JsonObject> events = watch("resourceVersion=" + rv + "&fieldSelector=" + enc("spec.clusterIP!=None"));
    assertEquals(List.of("ADDED plain2"), events.stream()
        .map(e -> e.getString("type") + " " + e.getJsonObject("object").getJsonObject("metadata").getString("name"))
        .toList(), "a headless Service is never sent to such a watch");
  }

  private static List<String> names(JsonObject list) {
    List<String> out = new java.util.ArrayList<>();
    for (int i = 0; i < list.getJsonArray("items").size(); i++) {
      out.add(list.getJsonArray("items").getJsonObject(i).getJsonObject("metadata").getString("name"));
    }
    java.util.Collections.sort(out);
    return out;
  }

  @Test
  void discovery() throws Exception {
    assertEquals(200, send("GET", "/version", null, null).statusCode());
    assertTrue(send("GET", "/apis", null, null).body().contains("discovery.k8s.io"));
    for (String gv : List.of("/api/v1", "/apis/discovery.k8s.io/v1", "/apis/events.k8s.io/v1", "/apis/networking.k8s.io/v1")) {
      assertEquals("APIResourceList", new JsonObject(send("GET", gv, null, null).body()).getString("kind"), gv);
    }
  }

  private static final Path KUBECTL = Path.of("/usr/bin/kubectl");

  private String kubectl(Path kubeconfig, String... args) throws Exception {
    List<String> cmd = new ArrayList<>(List.of(KUBECTL.toString(), "--kubeconfig", kubeconfig.toString()));
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    assertTrue(p.waitFor(60, TimeUnit.SECONDS), "kubectl " + String.join(" ", args) + " did not finish");
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertEquals(0, p.exitValue(), "kubectl " + String.join(" ", args) + ": " + out);
    return out;
  }

  @Test
  void realKubectlApplyGetDeleteAndWatch() throws Exception {
    assumeTrue(Files.isExecutable(KUBECTL), "kubectl is not installed at /usr/bin/kubectl");
    Path kubeconfig = api.writeKubeconfig(tmp);
    Path manifest = tmp.resolve("web.yaml");
    String yaml = """
        apiVersion: v1
        kind: Service
        metadata:
          name: web
          labels: {app: web}
        spec:
          clusterIP: 10.96.0.10
          ports:
          - {name: http, port: 80, targetPort: 8080, protocol: TCP}
        ---
        apiVersion: discovery.k8s.io/v1
        kind: EndpointSlice
        metadata:
          name: web-1
          labels: {kubernetes.io/service-name: web}
        addressType: IPv4
        endpoints:
        - addresses: [10.244.1.5]
          nodeName: node-1
        ports:
        - {name: http, port: 8080, protocol: TCP}
        """;
    Files.writeString(manifest, yaml);
    String applied = kubectl(kubeconfig, "apply", "-f", manifest.toString());
    assertTrue(applied.contains("service/web created") && applied.contains("endpointslice.discovery.k8s.io/web-1 created"), applied);
    Files.writeString(manifest, yaml.replace("{app: web}", "{app: web, tier: front}"));
    assertTrue(kubectl(kubeconfig, "apply", "-f", manifest.toString()).contains("service/web configured"));
    assertEquals("front", api.get("Service", "default", "web").getJsonObject("metadata").getJsonObject("labels").getString("tier"));
    assertEquals("10.96.0.10", kubectl(kubeconfig, "get", "svc", "web", "-o", "jsonpath={.spec.clusterIP}"));
    assertTrue(kubectl(kubeconfig, "get", "endpointslices", "-A").contains("web-1"));

    // get -w: the initial state, then a label change and the delete made by kubectl meanwhile
    Process watch = new ProcessBuilder(KUBECTL.toString(), "--kubeconfig", kubeconfig.toString(), "get", "svc", "-w",
        "--output-watch-events", "--request-timeout=30s").redirectErrorStream(true).start();
    try {
      java.io.BufferedReader out = new java.io.BufferedReader(new java.io.InputStreamReader(watch.getInputStream()));
      assertTrue(out.readLine().startsWith("EVENT"));
      assertTrue(out.readLine().matches("ADDED\\s+web\\s+.*"));
      kubectl(kubeconfig, "label", "svc", "web", "tier=back", "--overwrite");
      assertTrue(out.readLine().matches("MODIFIED\\s+web\\s+.*"));
      assertTrue(kubectl(kubeconfig, "delete", "svc", "web").contains("service \"web\" deleted"));
      assertTrue(out.readLine().matches("DELETED\\s+web\\s+.*"));
    } finally {
      watch.destroy();
    }
    assertEquals(null, api.get("Service", "default", "web"));
  }
}
