package dev.kubeproxy.backend.nftables;

import static dev.kubeproxy.backend.nftables.Fixtures.*;
import static dev.kubeproxy.testutil.ModelFixtures.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.kubeproxy.config.ProxyMode;
import dev.kubeproxy.host.CommandRunner;
import dev.kubeproxy.host.ProcessCommandRunner;
import dev.kubeproxy.host.netlink.InNetns;
import dev.kubeproxy.metrics.ProxyMetrics;
import dev.kubeproxy.model.ProxierSettings;
import dev.kubeproxy.model.ServicePortName;
import dev.kubeproxy.net.IpFamily;
import dev.kubeproxy.testutil.tier.Kernel;
import java.io.IOException;
import java.net.ConnectException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.PortUnreachableException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Localhost NodePorts in a scratch network namespace with the real nftables table: a TCP connection
 * to 127.0.0.1:NODEPORT made inside the namespace reaches an endpoint server of the namespace with
 * KubeProxyNFTablesLocalhostNodePorts on, is refused with it off, and is refused again once the
 * endpoints go. Nothing is written outside the namespace.
 */
@Kernel
class NftablesLocalhostNodePortKernelTest {
  private static final ServicePortName web = spn("demo", "web", "http");
  private static final int NODE_PORT = 30080; // below the ephemeral range: no self-connect
  private static final int ENDPOINT_PORT = 8080;

  private String ns;
  private CommandRunner inNs;
  private ServerSocket endpoint;
  private final List<NftablesProxier> proxiers = new ArrayList<>();
  private final ProxyMetrics metrics = new ProxyMetrics().registerFor(ProxyMode.NFTABLES);
  private final TestClock clock = new TestClock();

  @BeforeEach
  void createNamespace() throws Exception {
    assumeTrue("root".equals(System.getProperty("user.name")), "needs root to create network namespaces");
    assumeTrue(runs("ip", "-V") && runs("nft", "--version"), "needs the ip and nft commands");
    ns = "kp-lhnp-" + UUID.randomUUID().toString().substring(0, 8);
    CommandRunner.Result r = new ProcessCommandRunner().run(List.of("ip", "netns", "add", ns));
    assumeTrue(r.ok(), "cannot create a network namespace: " + r.stderr());
    inNs = CommandRunner.inNetns(ns);
    assertTrue(inNs.run(List.of("ip", "link", "set", "lo", "up")).ok());
    endpoint = InNetns.call(ns, () -> new ServerSocket(ENDPOINT_PORT, 50, InetAddress.getByName("127.0.0.1")));
    Thread t = new Thread(() -> {
      while (!endpoint.isClosed()) {
        try (Socket c = endpoint.accept()) {
          byte[] in = c.getInputStream().readAllBytes();
          c.getOutputStream().write(("echo:" + new String(in, StandardCharsets.UTF_8)).getBytes(StandardCharsets.UTF_8));
        } catch (IOException e) {
          // closed at the end of the test
        }
      }
    });
    t.setDaemon(true);
    t.start();
  }

  @AfterEach
  void deleteNamespace() throws Exception {
    proxiers.forEach(NftablesProxier::close);
    if (endpoint != null) {
      endpoint.close();
    }
    if (ns != null) {
      new ProcessCommandRunner().run(List.of("ip", "netns", "del", ns));
    }
  }

  private static boolean runs(String... argv) {
    try {
      return new ProcessCommandRunner().run(List.of(argv)).ok();
    } catch (Exception e) {
      return false;
    }
  }

  private NftablesProxier proxier() {
    ProxierSettings s = with(settings(IpFamily.IPv4), false, settings(IpFamily.IPv4).localDetector(),
        List.of("192.168.1.10/32", "127.0.0.0/8"));
    NftablesProxier p = new NftablesProxier(s, inNs, new NftCommand(s.family(), inNs), metrics, clock,
        List::of);
    proxiers.add(p);
    return p;
  }

  /** Connects to 127.0.0.1:port from inside the namespace, sends msg and reads the answer. */
  private String exchange(int port, String msg) throws IOException {
    try (Socket s = InNetns.call(ns, () -> {
      Socket created = new Socket();
      created.setTcpNoDelay(true); // creates the socket, in the namespace
      return created;
    })) {
      s.connect(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), port), 2000);
      s.setSoTimeout(5000);
      s.getOutputStream().write(msg.getBytes(StandardCharsets.UTF_8));
      s.shutdownOutput();
      return new String(s.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  private void connectOnHost() throws IOException {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), NODE_PORT), 2000);
    }
  }

  private boolean hostListens() {
    try {
      connectOnHost();
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  @Test
  void loopbackNodePortServedWithTheGateRefusedWithoutAndClosedWhenTheEndpointsGo() throws Exception {
    Model model = new Model().put(svc(web, "10.96.12.34", 80).nodePort(NODE_PORT),
        ready("127.0.0.1", ENDPOINT_PORT, true));
    assertEquals("echo:direct", exchange(ENDPOINT_PORT, "direct"), "the endpoint answers in the namespace");

    NftablesProxier off = proxier();
    off.sync(model.state());
    assertThrows(ConnectException.class, () -> exchange(NODE_PORT, "hi"),
        "gate off: nftables never DNATs a loopback destination, nothing listens");
    off.close();

    boolean hostListensOnNodePort = hostListens();
    NftablesProxier on = proxier();
    assertTrue(on.enableLocalhostNodePorts());
    on.sync(model.state());
    assertEquals("echo:hello", exchange(NODE_PORT, "hello"));
    // the listener is the namespace's: the host's own loopback has none (unless something else holds the port)
    if (!hostListensOnNodePort) {
      assertThrows(ConnectException.class, this::connectOnHost);
    }

    model.put(svc(web, "10.96.12.34", 80).nodePort(NODE_PORT));
    on.sync(model.state());
    assertThrows(ConnectException.class, () -> exchange(NODE_PORT, "hi"), "no endpoints: the listener is gone");

    model.put(svc(web, "10.96.12.34", 80).nodePort(NODE_PORT), ready("127.0.0.1", ENDPOINT_PORT, true));
    on.sync(model.state());
    assertEquals("echo:back", exchange(NODE_PORT, "back"));
    on.close();
    assertThrows(ConnectException.class, () -> exchange(NODE_PORT, "hi"), "closed at shutdown");
  }

  /**
   * A UDP NodePort on 127.0.0.1 is rejected (the client sees ICMP port unreachable although a UDP
   * socket listens on that port) and counted, with the table written over netlink; an hourly
   * resync reads the table back and finds nothing to change.
   */
  @Test
  void udpToALoopbackNodePortIsRejectedAndCounted() throws Exception {
    ServicePortName dns = spn("demo", "dns", "dns", "UDP");
    Model model = new Model().put(svc(dns, "10.96.0.10", 53).nodePort(NODE_PORT), ready("10.244.1.6", 53, false));
    try (DatagramSocket server = InNetns.call(ns, () -> new DatagramSocket(
        new InetSocketAddress(InetAddress.getByName("127.0.0.1"), NODE_PORT)))) {
      assertFalse(udpRejected(server), "without the table the datagram arrives");

      NftablesProxier on = proxier();
      on.privilegedInit();
      assertTrue(on.viaNetlink());
      assertTrue(on.enableLocalhostNodePorts());
      on.sync(model.state());
      assertTrue(udpRejected(server), "rejected: the userspace proxy serves TCP only");
      assertTrue(udpRejected(server));
      String scrape = metrics.registry().scrape();
      assertTrue(scrape.contains("kubeproxy_nftables_localhost_nodeport_rejected_packets_total{ip_family=\"IPv4\","
          + "protocol=\"UDP\"} 2\n"), scrape);

      clock.advance(Duration.ofMinutes(61));
      assertTrue(on.sync(model.state()).full());
      assertTrue(on.lastFullSyncReconciled());
      assertEquals("", on.lastTransaction().render(IpFamily.IPv4), "the table read back is the one written");
      assertTrue(metrics.registry().scrape().contains("protocol=\"UDP\"} 2\n"), "a resync keeps the counts");

      model.remove(dns);
      on.sync(model.state());
      assertFalse(udpRejected(server), "the NodePort is gone: nothing rejects it");
      on.close();

      // a restart with the gate off removes the map, the chains and the counters
      model.put(svc(dns, "10.96.0.10", 53).nodePort(NODE_PORT), ready("10.244.1.6", 53, false));
      NftablesProxier off = proxier();
      off.privilegedInit();
      off.sync(model.state());
      String table = inNs.run(List.of("nft", "list", "table", "ip", "kube-proxy")).stdout();
      assertFalse(table.contains("localhost-nodeport"), table);
      assertFalse(udpRejected(server));
    }
  }

  /** Sends a datagram from inside the namespace to 127.0.0.1:NODE_PORT: rejected, or received by server. */
  private boolean udpRejected(DatagramSocket server) throws IOException {
    try (DatagramSocket client = InNetns.call(ns, DatagramSocket::new)) {
      client.connect(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), NODE_PORT));
      client.setSoTimeout(1000);
      client.send(new DatagramPacket(new byte[] {1}, 1));
      try {
        client.receive(new DatagramPacket(new byte[16], 16));
        throw new AssertionError("nothing answers on the NodePort");
      } catch (PortUnreachableException e) {
        return true;
      } catch (SocketTimeoutException e) {
        server.setSoTimeout(2000);
        server.receive(new DatagramPacket(new byte[16], 16)); // times out (fails the test) when lost
        return false;
      }
    }
  }
}
