package dev.kubeproxy.backend.nftables;

import static dev.kubeproxy.backend.nftables.Fixtures.*;
import static dev.kubeproxy.testutil.ModelFixtures.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kubeproxy.host.CommandRunner;
import dev.kubeproxy.model.ProxierSettings;
import dev.kubeproxy.model.ServicePortName;
import dev.kubeproxy.net.IpFamily;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Localhost NodePorts in nftables mode (KubeProxyNFTablesLocalhostNodePorts): real TCP connections to
 * 127.0.0.1:NODEPORT reach an endpoint listening on this host's loopback, through the proxier's sync.
 */
class NftablesLocalhostNodePortTest {
  private static final ServicePortName web = spn("demo", "web", "http");
  private static final ServicePortName dns = spn("demo", "dns", "dns", "UDP");

  private ServerSocket endpoint;
  private NftablesProxier proxier;

  @BeforeEach
  void startEndpoint() throws IOException {
    endpoint = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
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
  void stop() throws Exception {
    endpoint.close();
    if (proxier != null) {
      proxier.cleanup();
    }
  }

  private NftablesProxier proxier(List<String> nodePortAddresses) {
    ProxierSettings s = with(settings(IpFamily.IPv4), false, settings(IpFamily.IPv4).localDetector(), nodePortAddresses);
    proxier = new NftablesProxier(s, new CommandRunner(), new FakeNftables(IpFamily.IPv4), new CountingMetrics(),
        new TestClock(), List::of);
    return proxier;
  }

  @Test
  void connectionToLoopbackNodePortReachesTheEndpoint() throws Exception {
    int nodePort = freePort();
    NftablesProxier p = proxier(List.of("192.168.1.10/32", "127.0.0.0/8", "::1/128"));
    Model model = new Model().put(svc(web, "10.96.12.34", 80).nodePort(nodePort), ready("127.0.0.1", endpoint.getLocalPort(), true));

    p.sync(model.state());
    assertThrows(ConnectException.class, () -> exchange(nodePort, "hi"), "the gate off serves nothing on localhost");

    assertTrue(p.serveLocalhostNodePorts());
    p.sync(model.state());
    assertEquals("echo:hello", exchange(nodePort, "hello"));

    // no endpoints left: the listener closes, the port refuses
    model.put(svc(web, "10.96.12.34", 80).nodePort(nodePort));
    p.sync(model.state());
    assertThrows(ConnectException.class, () -> exchange(nodePort, "hi"));
  }

  @Test
  void allAddressesOrUdpAreNotServedOnLocalhost() throws Exception {
    assertFalse(proxier(List.of("0.0.0.0/0", "::/0")).serveLocalhostNodePorts(), "'all' is no explicit loopback");
    assertFalse(proxier(List.of("192.168.1.10/32")).serveLocalhostNodePorts());

    int nodePort = freePort();
    NftablesProxier p = proxier(List.of("127.0.0.0/8"));
    assertTrue(p.serveLocalhostNodePorts());
    p.sync(new Model().put(svc(dns, "10.96.0.10", 53).nodePort(nodePort), ready("127.0.0.1", endpoint.getLocalPort(), true))
        .state());
    assertThrows(ConnectException.class, () -> exchange(nodePort, "hi"), "no listener for a UDP NodePort");
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  private static String exchange(int port, String msg) throws IOException {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 2000);
      s.setSoTimeout(5000);
      OutputStream out = s.getOutputStream();
      out.write(msg.getBytes(StandardCharsets.UTF_8));
      s.shutdownOutput();
      InputStream in = s.getInputStream();
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }
}
