package dev.kubeproxy.backend.nftables;

import static dev.kubeproxy.backend.nftables.Fixtures.*;
import static dev.kubeproxy.testutil.ModelFixtures.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kubeproxy.config.ProxyMode;
import dev.kubeproxy.metrics.ProxyMetrics;
import dev.kubeproxy.model.ProxierSettings;
import dev.kubeproxy.model.ServicePortName;
import dev.kubeproxy.net.IpFamily;
import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import dev.kubeproxy.testutil.tier.Unit;

/**
 * Localhost NodePorts in nftables mode (KubeProxyNFTablesLocalhostNodePorts): real TCP connections to
 * 127.0.0.1:NODEPORT reach an endpoint listening on this host's loopback through the proxier's sync,
 * and the listeners follow each sync's ports and endpoints.
 */
@Unit
class NftablesLocalhostNodePortTest {
  private static final ServicePortName web = spn("demo", "web", "http");
  private static final ServicePortName dns = spn("demo", "dns", "dns", "UDP");

  private EchoServer endpoint;
  private NftablesProxier proxier;
  private final ProxyMetrics metrics = new ProxyMetrics().registerFor(ProxyMode.NFTABLES);

  @BeforeEach
  void startEndpoint() throws IOException {
    endpoint = new EchoServer();
  }

  @AfterEach
  void stop() throws Exception {
    endpoint.close();
    if (proxier != null) {
      proxier.close();
    }
  }

  private NftablesProxier proxier(List<String> nodePortAddresses) {
    if (proxier != null) {
      proxier.close();
    }
    ProxierSettings s = with(settings(IpFamily.IPv4), false, settings(IpFamily.IPv4).localDetector(), nodePortAddresses);
    proxier = Fixtures.proxier(s, new FakeNftables(IpFamily.IPv4), metrics, new TestClock());
    return proxier;
  }

  @Test
  void listenerFollowsTheEndpointsAndTheService() throws Exception {
    int nodePort = freePort();
    Model model = new Model().put(svc(web, "10.96.12.34", 80).nodePort(nodePort), endpoint.asEndpoint(true));

    NftablesProxier off = proxier(List.of("192.168.1.10/32", "127.0.0.0/8"));
    off.sync(model.state());
    assertThrows(ConnectException.class, () -> exchange(nodePort, "hi"), "the gate off serves nothing on localhost");

    NftablesProxier p = proxier(List.of("192.168.1.10/32", "127.0.0.0/8"));
    assertTrue(p.enableLocalhostNodePorts());
    p.sync(model.state());
    assertEquals(Set.of("TCP/" + nodePort), p.localhostProxy.listening());
    assertEquals("echo:hello", exchange(nodePort, "hello"));
    assertTrue(metrics.registry().scrape().contains(
        "kubeproxy_nftables_localhost_nodeport_listeners{ip_family=\"IPv4\"} 1\n"));

    // the endpoints go: the listener closes and the port refuses
    model.put(svc(web, "10.96.12.34", 80).nodePort(nodePort));
    p.sync(model.state());
    assertEquals(Set.of(), p.localhostProxy.listening());
    assertThrows(ConnectException.class, () -> exchange(nodePort, "hi"));
    assertTrue(metrics.registry().scrape().contains(
        "kubeproxy_nftables_localhost_nodeport_listeners{ip_family=\"IPv4\"} 0\n"));

    // they come back: served again
    model.put(svc(web, "10.96.12.34", 80).nodePort(nodePort), endpoint.asEndpoint(true));
    p.sync(model.state());
    assertEquals("echo:again", exchange(nodePort, "again"));

    // the service goes: closed
    model.services.remove(web);
    model.endpoints.remove(web);
    p.sync(model.state());
    assertThrows(ConnectException.class, () -> exchange(nodePort, "hi"));
  }

  @Test
  void movedNodePortMovesTheListener() throws Exception {
    int first = freePort();
    int second = freePort();
    NftablesProxier p = proxier(List.of("127.0.0.1/32"));
    p.enableLocalhostNodePorts();
    Model model = new Model().put(svc(web, "10.96.12.34", 80).nodePort(first), endpoint.asEndpoint(true));
    p.sync(model.state());
    assertEquals("echo:1", exchange(first, "1"));
    model.put(svc(web, "10.96.12.34", 80).nodePort(second), endpoint.asEndpoint(true));
    p.sync(model.state());
    assertEquals(Set.of("TCP/" + second), p.localhostProxy.listening(), first + " " + second);
    assertThrows(ConnectException.class, () -> exchange(first, "hi"));
    assertEquals("echo:2", exchange(second, "2"));
  }

  @Test
  void onlyAnExplicitLoopbackCidrStartsTheProxy() throws Exception {
    assertFalse(proxier(List.of("0.0.0.0/0")).enableLocalhostNodePorts(), "'all' is no explicit loopback");
    assertFalse(proxier(List.of("192.168.1.10/32")).enableLocalhostNodePorts());
    assertFalse(proxier(List.of()).enableLocalhostNodePorts(), "unset nodePortAddresses (all) is none either");
    assertTrue(proxier(List.of("0.0.0.0/0", "127.0.0.0/8")).enableLocalhostNodePorts(), "all,localhost");
    assertTrue(proxier(List.of("127.0.0.1/32")).enableLocalhostNodePorts());

    int nodePort = freePort();
    NftablesProxier none = proxier(List.of("0.0.0.0/0"));
    none.enableLocalhostNodePorts();
    none.sync(new Model().put(svc(web, "10.96.12.34", 80).nodePort(nodePort), endpoint.asEndpoint(true)).state());
    assertThrows(ConnectException.class, () -> exchange(nodePort, "hi"));
  }

  @Test
  void udpAndLocalPolicyWithoutLocalEndpointsGetNoListener() throws Exception {
    int udpPort = freePort();
    int localPort = freePort();
    NftablesProxier p = proxier(List.of("127.0.0.0/8"));
    p.enableLocalhostNodePorts();
    p.sync(new Model()
        .put(svc(dns, "10.96.0.10", 53).nodePort(udpPort), endpoint.asEndpoint(true))
        .put(svc(web, "10.96.12.34", 80).nodePort(localPort).etpLocal(), endpoint.asEndpoint(false))
        .state());
    assertEquals(Set.of(), p.localhostProxy.listening());
    assertThrows(ConnectException.class, () -> exchange(udpPort, "hi"), "no TCP listener for a UDP NodePort");
    assertThrows(ConnectException.class, () -> exchange(localPort, "hi"),
        "externalTrafficPolicy Local never falls back to other nodes' endpoints");
  }

  @Test
  void closeShutsTheListenersAndTheConnectionsInFlight() throws Exception {
    int nodePort = freePort();
    NftablesProxier p = proxier(List.of("127.0.0.0/8"));
    p.enableLocalhostNodePorts();
    p.sync(new Model().put(svc(web, "10.96.12.34", 80).nodePort(nodePort), endpoint.asEndpoint(true)).state());
    try (Socket open = new Socket()) {
      open.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), nodePort), 2000);
      open.setSoTimeout(5000);
      open.getOutputStream().write("x".getBytes(StandardCharsets.UTF_8));
      assertEquals('e', open.getInputStream().read(), "the connection is proxied");
      p.close();
      InputStream in = open.getInputStream();
      // the proxy closed its side: the rest of the stream ends (or is reset) instead of hanging
      assertTrue(drainsToEnd(in));
    }
    assertThrows(ConnectException.class, () -> exchange(nodePort, "hi"));
  }

  private static boolean drainsToEnd(InputStream in) {
    try {
      while (in.read() >= 0) {
        // what the endpoint wrote before the close
      }
      return true;
    } catch (java.net.SocketTimeoutException e) {
      return false;
    } catch (IOException e) {
      return true; // reset
    }
  }

  /**
   * A free port of the NodePort range, below the ephemeral ports: a client connecting to a free
   * ephemeral port of its own host can be given that very port as its source and connect to itself,
   * which would look like a listener still open.
   */
  static int freePort() throws IOException {
    for (int attempt = 0; attempt < 100; attempt++) {
      int port = 30000 + java.util.concurrent.ThreadLocalRandom.current().nextInt(2768);
      try (ServerSocket s = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
        return s.getLocalPort();
      } catch (IOException e) {
        // taken: try another
      }
    }
    throw new IOException("no free port in 30000-32767");
  }

  static String exchange(int port, String msg) throws IOException {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 2000);
      s.setSoTimeout(5000);
      s.getOutputStream().write(msg.getBytes(StandardCharsets.UTF_8));
      s.shutdownOutput();
      return new String(s.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  /**
   * An endpoint on 127.0.0.1: answers "echo:" and what it read until the end; a connection that
   * stays open gets "e" at once, then the echo.
   */
  static final class EchoServer implements AutoCloseable {
    final ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    final java.util.concurrent.atomic.AtomicInteger connections = new java.util.concurrent.atomic.AtomicInteger();

    EchoServer() throws IOException {
      Thread t = new Thread(() -> {
        while (!server.isClosed()) {
          try {
            Socket c = server.accept();
            connections.incrementAndGet();
            Thread h = new Thread(() -> serve(c));
            h.setDaemon(true);
            h.start();
          } catch (IOException e) {
            // closed at the end of the test
          }
        }
      });
      t.setDaemon(true);
      t.start();
    }

    private static void serve(Socket c) {
      try (c) {
        c.getOutputStream().write('e');
        byte[] in = c.getInputStream().readAllBytes();
        c.getOutputStream().write(("cho:" + new String(in, StandardCharsets.UTF_8)).getBytes(StandardCharsets.UTF_8));
      } catch (IOException e) {
        // the client or the proxy went away
      }
    }

    int port() {
      return server.getLocalPort();
    }

    dev.kubeproxy.model.Endpoint asEndpoint(boolean local) {
      return ready("127.0.0.1", port(), local);
    }

    @Override
    public void close() throws IOException {
      server.close();
    }
  }
}
