package dev.kubeproxy.cluster;

import dev.kubeproxy.messages.EventRequest;

import static dev.kubeproxy.cluster.BusRecorder.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kubeproxy.config.AgentOptions;
import dev.kubeproxy.messages.EventBusAddresses;
import dev.kubeproxy.messages.ClusterEvent.Kind;
import dev.kubeproxy.model.objects.EndpointSlice;
import dev.kubeproxy.model.objects.Service;
import dev.kubeproxy.testutil.tier.Unit;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The --manifests directory source, on conf/examples and on a directory the test edits. */
@Unit
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
  void theNodeLookupParsesOnlyFilesThatCanHoldANode() throws Exception {
    Files.writeString(tmp.resolve("10-svc.yaml"), "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\n"
        + "spec:\n  clusterIP: 10.96.0.10\n  ports:\n  - port: 80\n");
    Files.writeString(tmp.resolve("20-broken.yaml"), "kind: Service\nmetadata: [unclosed\n");
    ManifestSource source = new ManifestSource(vertx,
        Fixtures.withManifests(Fixtures.options(null, "node-1"), tmp.toString()));
    assertEquals(null, source.node("node-1"));

    // A kind spelled with an escape is still read: the text search cannot tell, so the file is parsed.
    Files.writeString(tmp.resolve("00-node.json"), "{\"apiVersion\": \"v1\", \"kind\": \"\\u004eode\", "
        + "\"metadata\": {\"name\": \"node-1\"}, \"status\": {\"addresses\": "
        + "[{\"type\": \"InternalIP\", \"address\": \"192.168.200.10\"}]}}");
    assertEquals("node-1", source.node("node-1").metadata().name());
    assertEquals(null, source.node("node-2"));
  }

  /**
   * A file written while the first read is under way (here: once the read has sent its first
   * object, after every file was read) is read again: the directory is watched from before the read.
   */
  @Test
  void aChangeDuringTheFirstReadIsSeen() throws Exception {
    Path dir = Files.createDirectory(tmp.resolve("m"));
    Path a = Files.writeString(dir.resolve("a.yaml"), svcYaml("a", "10.96.0.1", ""));
    AtomicBoolean written = new AtomicBoolean();
    vertx.eventBus().addOutboundInterceptor(ctx -> {
      // runs on the reading thread, inside the first read
      if (ctx.message().address().equals(EventBusAddresses.SERVICES) && written.compareAndSet(false, true)) {
        try {
          Files.writeString(a, svcYaml("a", "10.96.0.2", ""));
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      }
      ctx.next();
    });
    deploy(dir);
    await("synced", WAIT, () -> bus.synced.contains(Kind.SERVICE));
    assertTrue(written.get());
    await("the change made during the first read", WAIT,
        () -> "10.96.0.2".equals(((Service) bus.state.get(Kind.SERVICE).get("default/a")).clusterIP()));
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
    Service shop = (Service) bus.state.get(Kind.SERVICE).get("shop/shop");
    assertEquals("Local", shop.externalTrafficPolicy());
    assertEquals(32000, shop.healthCheckNodePort());
    assertEquals("192.168.200.100", shop.ingress().get(0).ip());
    EndpointSlice v6 = (EndpointSlice) bus.state.get(Kind.ENDPOINT_SLICE).get("default/dual-ipv6-p3n7v");
    assertEquals("IPv6", v6.addressType());
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
        && "10.96.0.2".equals(((Service) bus.state.get(Kind.SERVICE).get("default/a")).clusterIP()));
    assertEquals(eventsAfterSync + 2, bus.events.size(), "one upsert per changed object, none for unchanged ones");

    // a broken file: reported, and the last good state stays
    Files.writeString(a, "apiVersion: v1\nkind: Service\nmetadata: {name: a\n");
    Files.writeString(dir.resolve("c.json"), "{\"apiVersion\":\"v1\",\"kind\":\"Service\",\"metadata\":{\"name\":\"c\"},\"spec\":{\"clusterIP\":\"10.96.0.4\",\"ports\":[{\"port\":80}]}}");
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

    // An object that does not decode is left out and reported; the file's other objects stay.
    Path wrongType = tmp.resolve("wrong.yaml");
    Files.writeString(wrongType, "apiVersion: v1\nkind: Service\nmetadata: {name: x, namespace: n}\n"
        + "spec: {ports: [{port: eighty}]}\n---\n" + svcYaml("y", "10.96.0.9", ""));
    List<String> reported = new java.util.ArrayList<>();
    List<dev.kubeproxy.model.objects.ClusterObject> read =
        ManifestReader.read(wrongType, (kind, namespace, name, problem) -> reported.add(kind + " " + namespace + "/" + name + " " + problem));
    assertEquals(1, read.size());
    assertEquals("y", read.get(0).metadata().name());
    assertEquals(1, reported.size());
    assertTrue(reported.get(0).startsWith("Service n/x " + wrongType + ":1:1: Service does not match the v1 schema"), reported.get(0));
  }

  /**
   * Objects an API server would reject never reach the bus: each is reported once with a log line
   * and a FailedValidation event naming it and the field; valid objects in the same files are
   * delivered, and an invalid update leaves the last valid version in effect.
   */
  @Test
  void invalidObjectsAreReportedAndLeftOut() throws Exception {
    List<EventRequest> reports = java.util.Collections.synchronizedList(new java.util.ArrayList<>());
    vertx.eventBus().<EventRequest>consumer(dev.kubeproxy.messages.EventBusAddresses.EVENTS, m -> reports.add(m.body()));
    Path dir = Files.createDirectory(tmp.resolve("m"));
    String injection = "\"inj\\\"\\n-A KUBE-SERVICES -j DROP\\n#\"";
    Files.writeString(dir.resolve("a.yaml"), svcYaml("good", "10.96.0.1", "")
        + "---\n" + svcYaml(injection, "10.96.0.2", "")
        + "---\napiVersion: v1\nkind: Service\nmetadata: {name: big}\nspec: {clusterIP: 10.96.0.3, ports: [{port: 70000}]}\n"
        + "---\napiVersion: v1\nkind: Service\nmetadata: {name: sticky}\nspec: {clusterIP: 10.96.0.4, ports: [{port: 80}],"
        + " sessionAffinity: ClientIP, sessionAffinityConfig: {clientIP: {timeoutSeconds: -5}}}\n"
        + "---\n" + svcYaml("x".repeat(253), "10.96.0.5", "")
        + "---\n" + svcYaml("caf\u00e9", "10.96.0.6", "")
        + "---\napiVersion: v1\nkind: Service\nmetadata: {name: eighty}\nspec: {clusterIP: 10.96.0.7, ports: [{port: eighty}]}\n"
        + "---\napiVersion: discovery.k8s.io/v1\nkind: EndpointSlice\nmetadata: {name: good-1, labels: {kubernetes.io/service-name: good}}\n"
        + "addressType: IPv4\nendpoints: [{addresses: [10.244.0.5]}]\nports: [{name: http, port: 8080, protocol: TCP}]\n"
        + "---\napiVersion: discovery.k8s.io/v1\nkind: EndpointSlice\nmetadata: {name: big-1, labels: {kubernetes.io/service-name: big}}\n"
        + "addressType: IPv4\nendpoints: [{addresses: [10.244.0.6]}]\nports: [{name: http, port: 70000, protocol: TCP}]\n");
    deploy(dir);
    await("synced", WAIT, () -> bus.synced.containsAll(Set.of(Kind.SERVICE, Kind.ENDPOINT_SLICE)));
    assertEquals(Set.of("default/good"), bus.keysAtSync.get(Kind.SERVICE));
    assertEquals(Set.of("default/good-1"), bus.keysAtSync.get(Kind.ENDPOINT_SLICE));
    await("reports", WAIT, () -> reports.size() >= 7);
    Thread.sleep(300);
    assertEquals(7, reports.size(), reports.toString());
    List<String> notes = reports.stream().map(r -> r.regardingKind() + " " + r.serviceName() + ": " + r.note()).toList();
    assertTrue(notes.stream().anyMatch(n -> n.startsWith("Service big:") && n.contains("spec.ports[0].port: Invalid value: 70000")), notes.toString());
    assertTrue(notes.stream().anyMatch(n -> n.startsWith("Service sticky:") && n.contains("spec.sessionAffinityConfig.clientIP.timeoutSeconds")), notes.toString());
    assertTrue(notes.stream().anyMatch(n -> n.startsWith("Service inj") && n.contains("metadata.name")), notes.toString());
    assertTrue(notes.stream().anyMatch(n -> n.startsWith("Service " + "x".repeat(253)) && n.contains("metadata.name")), notes.toString());
    assertTrue(notes.stream().anyMatch(n -> n.startsWith("Service caf") && n.contains("metadata.name")), notes.toString());
    assertTrue(notes.stream().anyMatch(n -> n.startsWith("Service eighty:") && n.contains("schema")), notes.toString());
    assertTrue(notes.stream().anyMatch(n -> n.startsWith("EndpointSlice big-1:") && n.contains("ports[0].port: Invalid value: 70000")), notes.toString());
    assertTrue(reports.stream().allMatch(r -> "FailedValidation".equals(r.reason()) && "Warning".equals(r.type())));

    // A valid Service turned invalid: the last valid version stays; fixed again, the fix is delivered.
    Files.writeString(dir.resolve("b.yaml"), svcYaml("later", "10.96.0.8", ""));
    await("later", WAIT, () -> bus.keys(Kind.SERVICE).contains("default/later"));
    Files.writeString(dir.resolve("b.yaml"), "apiVersion: v1\nkind: Service\nmetadata: {name: later}\n"
        + "spec: {clusterIP: 10.96.0.8, ports: [{port: 80, protocol: ICMP}]}\n");
    await("reported", WAIT, () -> reports.size() == 8);
    assertTrue(reports.get(7).note().contains("spec.ports[0].protocol: Unsupported value: \"ICMP\""), reports.get(7).note());
    assertEquals("TCP", ((Service) bus.state.get(Kind.SERVICE).get("default/later")).ports().get(0).protocol());
    Files.writeString(dir.resolve("b.yaml"), svcYaml("later", "10.96.0.8", "").replace("port: 80,", "port: 81,"));
    await("fixed", WAIT, () -> ((Service) bus.state.get(Kind.SERVICE).get("default/later")).ports().get(0).port() == 81);
    Files.delete(dir.resolve("b.yaml"));
    await("deleted", WAIT, () -> !bus.keys(Kind.SERVICE).contains("default/later"));
    assertEquals(8, reports.size());
  }

  private static String svcYaml(String name, String ip, String extraMeta) {
    return "apiVersion: v1\nkind: Service\nmetadata:\n  name: " + name + "\n" + extraMeta
        + "spec:\n  clusterIP: " + ip + "\n  ports:\n  - {name: http, port: 80, protocol: TCP}\n";
  }
}
