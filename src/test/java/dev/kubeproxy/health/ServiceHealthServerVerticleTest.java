package dev.kubeproxy.health;

import dev.kubeproxy.messages.HealthUpdate;
import dev.kubeproxy.messages.ServiceHealthState;
import dev.kubeproxy.server.ConnectionGuard;
import dev.kubeproxy.server.ConnectionGuardTest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kubeproxy.messages.EventBusAddresses;
import dev.kubeproxy.messages.EventRequest;
import dev.kubeproxy.messages.NodeInfo;
import dev.kubeproxy.net.IpFamily;
import dev.kubeproxy.model.NamespacedName;
import dev.kubeproxy.testutil.Await;
import dev.kubeproxy.messages.EventBusCodecs;
import dev.kubeproxy.testutil.FreePorts;
import dev.kubeproxy.testutil.MutableClock;
import dev.kubeproxy.testutil.TestConfigs;
import dev.kubeproxy.testutil.tier.Unit;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.junit5.VertxExtension;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(VertxExtension.class)
@Unit
class ServiceHealthServerVerticleTest {
  private static final NamespacedName WEB = new NamespacedName("default", "web");
  private static final NamespacedName DB = new NamespacedName("prod", "db");

  private final Instant t0 = Instant.now();
  private final MutableClock clock = new MutableClock(t0);
  private final NodeInfo node = new NodeInfo("node-1", List.of("192.168.200.10"), List.of(), Map.of());
  private Vertx vertx;
  private WebClient client;
  private ServiceHealthServerVerticle verticle;

  @BeforeEach
  void deploy(Vertx vertx) {
    this.vertx = vertx;
    EventBusCodecs.register(vertx);
    verticle = new ServiceHealthServerVerticle(TestConfigs.options(c -> c.nodePortAddresses = List.of("127.0.0.0/8")), node, clock);
    Await.result(vertx.deployVerticle(verticle));
    client = WebClient.create(vertx);
  }

  private static boolean listening(int port) {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress("127.0.0.1", port), 500);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  private void send(Map<NamespacedName, Integer> ports, Map<NamespacedName, Integer> endpoints) {
    vertx.eventBus().send(EventBusAddresses.SERVICE_HEALTH, new ServiceHealthState(ports, endpoints));
  }

  private HttpResponse<Buffer> get(int port, String path) {
    return Await.result(client.get(port, "127.0.0.1", path).send());
  }

  @Test
  void allHealthCheckPortsShareOneConnectionLimitAndSpeakHttp1Only() throws Exception {
    int webPort = FreePorts.loopback();
    int dbPort = FreePorts.loopback();
    send(Map.of(WEB, webPort, DB, dbPort), Map.of(WEB, 1, DB, 1));
    Await.until("both ports open", 5000, () -> listening(webPort) && listening(dbPort));
    List<Socket> idle = new java.util.ArrayList<>();
    try {
      for (int i = 0; i < ConnectionGuard.SERVICE_HEALTH_LIMIT + 40; i++) {
        Socket s = new Socket("127.0.0.1", i % 2 == 0 ? webPort : dbPort);
        idle.add(s);
      }
      Await.until("the limit is reached", 10_000, () -> verticle.guard().evicted() >= 40);
      assertTrue(verticle.guard().openConnections() <= ConnectionGuard.SERVICE_HEALTH_LIMIT);
      assertEquals(200, get(webPort, "/").statusCode());
      assertEquals(200, get(dbPort, "/").statusCode());
      try (Socket a = new Socket("127.0.0.1", webPort); Socket b = new Socket("127.0.0.1", dbPort)) {
        a.setSoTimeout(5000);
        b.setSoTimeout(5000);
        ConnectionGuardTest.assertH2cRefused(a, b);
      }
    } finally {
      for (Socket s : idle) {
        s.close();
      }
    }
  }

  @Test
  void listensOnTheNodePortAddressesIps() {
    assertEquals(List.of("127.0.0.1"), verticle.listenHosts());
  }

  @Test
  void servesEndpointCountsAndHealthOnAnyPath() throws Exception {
    int webPort = FreePorts.loopback();
    int dbPort = FreePorts.loopback();
    send(Map.of(WEB, webPort, DB, dbPort), Map.of(WEB, 2));
    Await.until("both ports open", 5000, () -> verticle.openPorts().size() == 2 && listening(webPort) && listening(dbPort));

    HttpResponse<Buffer> r = get(webPort, "/anything?x=1");
    assertEquals(200, r.statusCode());
    assertEquals("application/json", r.getHeader("Content-Type"));
    assertEquals("nosniff", r.getHeader("X-Content-Type-Options"));
    assertEquals("2", r.getHeader("X-Load-Balancing-Endpoint-Weight"));
    assertEquals("{\n\t\"service\": {\n\t\t\"namespace\": \"default\",\n\t\t\"name\": \"web\"\n\t},\n"
        + "\t\"localEndpoints\": 2,\n\t\"serviceProxyHealthy\": true\n}", r.bodyAsString());

    HttpResponse<Buffer> d = Await.result(client.post(dbPort, "127.0.0.1", "/").send());
    assertEquals(503, d.statusCode()); // no local endpoints
    assertEquals("0", d.getHeader("X-Load-Balancing-Endpoint-Weight"));
    assertTrue(d.bodyAsString().contains("\t\"localEndpoints\": 0,\n\t\"serviceProxyHealthy\": true\n}"));

    // endpoints move: counts follow; services missing from the map report 0
    send(Map.of(WEB, webPort, DB, dbPort), Map.of(DB, 1));
    Await.until("counts updated", 5000, () -> get(dbPort, "/").statusCode() == 200);
    assertEquals("0", get(webPort, "/").getHeader("X-Load-Balancing-Endpoint-Weight"));
  }

  @Test
  void anUnhealthyProxierMakesEveryServiceReport503() throws Exception {
    int webPort = FreePorts.loopback();
    send(Map.of(WEB, webPort), Map.of(WEB, 3));
    Await.until("port open", 5000, () -> listening(webPort));
    vertx.eventBus().publish(EventBusAddresses.HEALTH, new HealthUpdate(IpFamily.IPv4, HealthUpdate.Type.UPDATED, t0));
    vertx.eventBus().publish(EventBusAddresses.HEALTH, new HealthUpdate(IpFamily.IPv4, HealthUpdate.Type.QUEUED, t0));
    Await.until("health applied", 5000, () -> get(webPort, "/").statusCode() == 200);
    clock.advance(Duration.ofSeconds(61));
    HttpResponse<Buffer> r = get(webPort, "/");
    assertEquals(503, r.statusCode());
    assertEquals("3", r.getHeader("X-Load-Balancing-Endpoint-Weight"));
    assertTrue(r.bodyAsString().endsWith("\t\"localEndpoints\": 3,\n\t\"serviceProxyHealthy\": false\n}"));
  }

  @Test
  void removedOrMovedServicesAreClosed() throws Exception {
    int webPort = FreePorts.loopback();
    int dbPort = FreePorts.loopback();
    send(Map.of(WEB, webPort, DB, dbPort), Map.of(WEB, 1, DB, 1));
    Await.until("ports open", 5000, () -> listening(webPort) && listening(dbPort));
    int webPort2 = FreePorts.loopback();
    send(Map.of(WEB, webPort2), Map.of(WEB, 1));
    // the socket can accept before the verticle has recorded the new server: wait for both
    Await.until("db closed and web moved", 5000, () -> !listening(dbPort) && !listening(webPort) && listening(webPort2)
        && verticle.openPorts().equals(Map.of(WEB, webPort2)));
    assertEquals(Map.of(WEB, webPort2), verticle.openPorts());
    send(Map.of(), Map.of());
    Await.until("all closed", 5000, () -> !listening(webPort2) && verticle.openPorts().isEmpty());
  }

  @Test
  void aPortThatCannotBeOpenedIsRetriedOnTheNextSync() throws Exception {
    try (ServerSocket blocker = new ServerSocket()) {
      blocker.bind(new InetSocketAddress("127.0.0.1", 0));
      int port = blocker.getLocalPort();
      java.util.concurrent.BlockingQueue<EventRequest> events = new java.util.concurrent.ArrayBlockingQueue<>(4);
      vertx.eventBus().<EventRequest>consumer(EventBusAddresses.EVENTS, m -> events.add(m.body()));
      send(Map.of(WEB, port), Map.of(WEB, 1));
      EventRequest event = events.poll(5, java.util.concurrent.TimeUnit.SECONDS);
      assertEquals(EventRequest.failedToStartServiceHealthcheck("node-1", "default", "web", port,
          "listen tcp 127.0.0.1:" + port + ": bind: address already in use"), event);
      // the message is processed (and fails) before a later one: wait for that later one
      int other = FreePorts.loopback();
      send(Map.of(WEB, port, DB, other), Map.of(WEB, 1));
      Await.until("db opened", 5000, () -> verticle.openPorts().containsKey(DB));
      assertEquals(Map.of(DB, other), verticle.openPorts());
      blocker.close();
      send(Map.of(WEB, port, DB, other), Map.of(WEB, 1));
      Await.until("web opened on retry", 5000, () -> verticle.openPorts().containsKey(WEB));
      assertEquals(200, get(port, "/").statusCode());
    }
  }

  @Test
  void healthIsAlwaysTrueWhenHealthzIsDisabled() throws Exception {
    Vertx other = Vertx.vertx(); // its own event bus: the verticle of this test class must not see these messages
    try {
      EventBusCodecs.register(other);
      ServiceHealthServerVerticle noHealthz = new ServiceHealthServerVerticle(TestConfigs.options(c -> {
        c.healthzBindAddress = "";
        c.nodePortAddresses = List.of("127.0.0.1/32");
      }), node, clock);
      Await.result(other.deployVerticle(noHealthz));
      other.eventBus().publish(EventBusAddresses.HEALTH, new HealthUpdate(IpFamily.IPv4, HealthUpdate.Type.UPDATED, t0));
      other.eventBus().publish(EventBusAddresses.HEALTH, new HealthUpdate(IpFamily.IPv4, HealthUpdate.Type.QUEUED, t0));
      clock.advance(Duration.ofMinutes(5));
      int port = FreePorts.loopback();
      other.eventBus().send(EventBusAddresses.SERVICE_HEALTH, new ServiceHealthState(Map.of(WEB, port), Map.of(WEB, 1)));
      Await.until("port opened", 5000, () -> noHealthz.openPorts().containsKey(WEB));
      HttpResponse<Buffer> r = get(port, "/");
      assertEquals(200, r.statusCode());
      assertTrue(r.bodyAsString().endsWith("\"serviceProxyHealthy\": true\n}"));
    } finally {
      Await.result(other.close());
    }
  }

  @Test
  void dualStackProxiersEachSendTheirViewAndTheServersCombineThem() throws Exception {
    int webPort = FreePorts.loopback();
    int dbPort = FreePorts.loopback();
    // the IPv4 proxier knows web (2 local endpoints); the IPv6 proxier knows db and web (1 each)
    vertx.eventBus().publish(EventBusAddresses.SERVICE_HEALTH, new ServiceHealthState(Map.of(WEB, webPort), Map.of(WEB, 2), IpFamily.IPv4));
    vertx.eventBus().publish(EventBusAddresses.SERVICE_HEALTH,
        new ServiceHealthState(Map.of(WEB, webPort, DB, dbPort), Map.of(WEB, 1, DB, 1), IpFamily.IPv6));
    Await.until("both open", 5000, () -> verticle.openPorts().size() == 2);
    assertEquals("2", get(webPort, "/").getHeader("X-Load-Balancing-Endpoint-Weight"));
    assertEquals("1", get(dbPort, "/").getHeader("X-Load-Balancing-Endpoint-Weight"));
    // a later IPv4 sync that does not mention db must not close what IPv6 still wants
    vertx.eventBus().publish(EventBusAddresses.SERVICE_HEALTH, new ServiceHealthState(Map.of(WEB, webPort), Map.of(WEB, 0), IpFamily.IPv4));
    Await.until("web count from IPv6 only", 5000, () -> "1".equals(get(webPort, "/").getHeader("X-Load-Balancing-Endpoint-Weight")));
    assertEquals(Map.of(WEB, webPort, DB, dbPort), verticle.openPorts());
    vertx.eventBus().publish(EventBusAddresses.SERVICE_HEALTH, new ServiceHealthState(Map.of(WEB, webPort), Map.of(), IpFamily.IPv6));
    Await.until("db closed", 5000, () -> !verticle.openPorts().containsKey(DB) && !listening(dbPort));
  }

  @Test
  void primaryMeansTheNodeIpsThatAreNotLoopback(Vertx vertx) {
    NodeInfo loopbackNode = new NodeInfo("node-1", List.of("127.0.0.1"), List.of(), Map.of());
    ServiceHealthServerVerticle v = new ServiceHealthServerVerticle(TestConfigs.options(c -> c.nodePortAddresses = List.of("primary")),
        loopbackNode, clock);
    Await.result(vertx.deployVerticle(v));
    // a loopback node IP is dropped, leaving an empty list = every address
    assertTrue(List.of(List.of("::"), List.of("0.0.0.0")).contains(v.listenHosts()), v.listenHosts().toString());
  }
}
