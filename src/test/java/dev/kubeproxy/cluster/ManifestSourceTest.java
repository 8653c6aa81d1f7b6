package dev.kubeproxy.cluster;

import static dev.kubeproxy.cluster.BusRecorder.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kubeproxy.AgentOptions;
import dev.kubeproxy.cluster.ClusterEvent.Kind;
import io.kubernetes.client.openapi.models.V1EndpointSlice;
import io.kubernetes.client.openapi.models.V1Service;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The --manifests directory source, on conf/examples and on a directory the test edits. */
class ManifestSourceTest {
  private static final Duration WAIT = Duration.ofSeconds(20);
  @TempDir Path tmp;
  private Vertx vertx;
  private BusRecorder bus;

  @BeforeEach
  void setUp() {
    vertx = Vertx.vertx();
    bus = new BusRecorder(vertx);
  }

  @AfterEach
  void tearDown() throws Exception {
    get(vertx.close());
  }

  static <T> T get(Future<T> f) throws Exception {
    return f.toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
  }

  private void deploy(Path dir) throws Exception {
    AgentOptions o = Fixtures.withManifests(Fixtures.options(null, "node-1"), dir.toString());
    get(vertx.deployVerticle(new ClusterWatchVerticle(o)));
  }

  @Test
  void examplesDirectory() throws Exception {
    deploy(Path.of("conf/examples"));
    await("synced", WAIT, () -> bus.synced.containsAll(Set.of(Kind.SERVICE, Kind.ENDPOINT_SLICE, Kind.NODE)));
    assertEquals(Set.of("default/web", "default/api", "shop/shop", "default/sticky", "default/dual"), bus.keysAtSync.get(Kind.SERVICE));
    assertEquals(Set.of("default/web-x7k2p", "default/api-5fd9q", "shop/shop-m4c8d", "default/sticky-q2w9z",
        "default/dual-ipv4-8hx2k", "default/dual-ipv6-p3n7v"), bus.keysAtSync.get(Kind.ENDPOINT_SLICE));
    assertEquals(Set.of("node-1"), bus.keysAtSync.get(Kind.NODE));
    assertEquals(List.of(true), bus.eligibility);
    V1Service shop = (V1Service) bus.state.get(Kind.SERVICE).get("shop/shop");
    assertEquals("Local", shop.getSpec().getExternalTrafficPolicy());
    assertEquals(32000, shop.getSpec().getHealthCheckNodePort());
    assertEquals("192.168.200.100", shop.getStatus().getLoadBalancer().getIngress().get(0).getIp());
    V1EndpointSlice v6 = (V1EndpointSlice) bus.state.get(Kind.ENDPOINT_SLICE).get("default/dual-ipv6-p3n7v");
    assertEquals("IPv6", v6.getAddressType());
  }

  @Test
  void editsBecomeUpsertsAndDeletesAndBadFilesKeepTheirLastGoodState() throws Exception {
    Path dir = Files.createDirectory(tmp.resolve("m"));
    Path a = dir.resolve("a.yaml");
    Files.writeString(a, svcYaml("a", "10.96.0.1", ""));
    Files.writeString(dir.resolve("notes.txt"), "not a manifest");
    deploy(dir);
    await("synced", WAIT, () -> bus.synced.contains(Kind.SERVICE) && bus.keys(Kind.SERVICE).equals(Set.of("default/a")));
    int eventsAfterSync = bus.events.size();

    // a second document and a change
    Files.writeString(a, svcYaml("a", "10.96.0.2", "") + "---\n" + svcYaml("b", "10.96.0.3", ""));
    await("change seen", WAIT, () -> bus.keys(Kind.SERVICE).equals(Set.of("default/a", "default/b"))
        && "10.96.0.2".equals(((V1Service) bus.state.get(Kind.SERVICE).get("default/a")).getSpec().getClusterIP()));
    assertEquals(eventsAfterSync + 2, bus.events.size(), "one upsert per changed object, none for unchanged ones");

    // a broken file: reported, and the last good state stays
    Files.writeString(a, "apiVersion: v1\nkind: Service\nmetadata: {name: a\n");
    Files.writeString(dir.resolve("c.json"), "{\"apiVersion\":\"v1\",\"kind\":\"Service\",\"metadata\":{\"name\":\"c\"},\"spec\":{\"clusterIP\":\"10.96.0.4\"}}");
    await("new good file seen", WAIT, () -> bus.keys(Kind.SERVICE).contains("default/c"));
    assertEquals(Set.of("default/a", "default/b", "default/c"), bus.keys(Kind.SERVICE));

    // an excluded label makes an object disappear, as with the informers' selector
    Files.writeString(a, svcYaml("a", "10.96.0.2", "  labels: {service.kubernetes.io/service-proxy-name: other}\n"));
    await("excluded", WAIT, () -> bus.keys(Kind.SERVICE).equals(Set.of("default/c")));

    Files.delete(dir.resolve("c.json"));
    await("file removed", WAIT, () -> bus.keys(Kind.SERVICE).isEmpty());
  }

  @Test
  void malformedFileNamesFileAndPosition() throws Exception {
    Path bad = tmp.resolve("bad.yaml");
    Files.writeString(bad, "apiVersion: v1\nkind: Service\nmetadata:\n  name: x\n spec: [\n");
    ManifestReader.ManifestException e = assertThrows(ManifestReader.ManifestException.class, () -> ManifestReader.read(bad));
    assertTrue(e.getMessage().startsWith(bad + ":5:"), e.getMessage());

    Path noName = tmp.resolve("noname.yaml");
    Files.writeString(noName, "apiVersion: v1\nkind: Service\nmetadata: {}\n---\napiVersion: v1\nkind: Service\nmetadata: {namespace: x}\n");
    e = assertThrows(ManifestReader.ManifestException.class, () -> ManifestReader.read(noName));
    assertTrue(e.getMessage().contains("has no metadata.name"), e.getMessage());

    Path wrongType = tmp.resolve("wrong.json");
    Files.writeString(wrongType, "{\"apiVersion\":\"v1\",\"kind\":\"Service\",\"metadata\":{\"name\":\"x\"},\"spec\":{\"ports\":\"eighty\"}}");
    e = assertThrows(ManifestReader.ManifestException.class, () -> ManifestReader.read(wrongType));
    assertTrue(e.getMessage().startsWith(wrongType + ":1:1: Service x does not match"), e.getMessage());
  }

  private static String svcYaml(String name, String ip, String extraMeta) {
    return "apiVersion: v1\nkind: Service\nmetadata:\n  name: " + name + "\n" + extraMeta
        + "spec:\n  clusterIP: " + ip + "\n  ports:\n  - {name: http, port: 80, protocol: TCP}\n";
  }
}
