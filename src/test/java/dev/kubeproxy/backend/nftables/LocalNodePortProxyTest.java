package dev.kubeproxy.backend.nftables;

import static dev.kubeproxy.backend.nftables.NftablesLocalhostNodePortTest.exchange;
import static dev.kubeproxy.backend.nftables.NftablesLocalhostNodePortTest.freePort;
import static dev.kubeproxy.testutil.ModelFixtures.spn;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kubeproxy.backend.nftables.Fixtures.TestClock;
import dev.kubeproxy.backend.nftables.NftablesLocalhostNodePortTest.EchoServer;
import dev.kubeproxy.config.ProxyMode;
import dev.kubeproxy.metrics.ProxyMetrics;
import dev.kubeproxy.net.IpFamily;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import dev.kubeproxy.testutil.tier.Unit;

/** The localhost NodePort listeners on their own: endpoint choice, affinity, bind failures, metrics. */
@Unit
class LocalNodePortProxyTest {
  private final ProxyMetrics metrics = new ProxyMetrics().registerFor(ProxyMode.NFTABLES);
  private final TestClock clock = new TestClock();

  private static LocalNodePortProxy.Spec spec(int nodePort, Duration affinity, EchoServer... eps) {
    List<InetSocketAddress> addresses = new java.util.ArrayList<>();
    for (EchoServer e : eps) {
      addresses.add(new InetSocketAddress(InetAddress.getLoopbackAddress(), e.port()));
    }
    return new LocalNodePortProxy.Spec(spn("ns", "svc" + nodePort, "p"), "TCP", nodePort, addresses, affinity);
  }

  @Test
  void connectionsSpreadOverTheEndpointsWithoutAffinity() throws Exception {
    try (EchoServer a = new EchoServer(); EchoServer b = new EchoServer()) {
      LocalNodePortProxy proxy = new LocalNodePortProxy(IpFamily.IPv4, clock, metrics);
      int nodePort = freePort();
      proxy.sync(List.of(spec(nodePort, Duration.ZERO, a, b)));
      try {
        Set<Integer> reached = new HashSet<>();
        for (int i = 0; i < 200 && reached.size() < 2; i++) {
          exchange(nodePort, "x");
          reached.add(a.connections.get() > 0 ? 1 : 0);
          reached.add(b.connections.get() > 0 ? 2 : 0);
          reached.remove(0);
        }
        assertEquals(Set.of(1, 2), reached, "both endpoints are used");
      } finally {
        proxy.shutdown();
      }
    }
  }

  @Test
  void clientIpAffinityPinsOneEndpointWhileItIsUsedAndStillThere() throws Exception {
    try (EchoServer a = new EchoServer(); EchoServer b = new EchoServer()) {
      LocalNodePortProxy proxy = new LocalNodePortProxy(IpFamily.IPv4, clock, metrics);
      int nodePort = freePort();
      proxy.sync(List.of(spec(nodePort, Duration.ofSeconds(10), a, b)));
      try {
        for (int i = 0; i < 20; i++) {
          exchange(nodePort, "x");
          clock.advance(Duration.ofSeconds(9)); // a sliding window: each connection renews it
        }
        assertTrue(a.connections.get() == 20 || b.connections.get() == 20,
            "pinned: " + a.connections.get() + "/" + b.connections.get());
        EchoServer pinned = a.connections.get() == 20 ? a : b;
        EchoServer other = pinned == a ? b : a;
        // the pinned endpoint goes: the next connection picks the remaining one
        proxy.sync(List.of(spec(nodePort, Duration.ofSeconds(10), other)));
        exchange(nodePort, "x");
        assertEquals(1, other.connections.get());
      } finally {
        proxy.shutdown();
      }
    }
  }

  @Test
  void aPortTakenByAnotherProcessIsCountedAndTheOthersAreServed() throws Exception {
    try (EchoServer a = new EchoServer(); ServerSocket squatter = new ServerSocket(freePort(), 1,
        InetAddress.getLoopbackAddress())) {
      LocalNodePortProxy proxy = new LocalNodePortProxy(IpFamily.IPv4, clock, metrics);
      int free = freePort();
      proxy.sync(List.of(spec(squatter.getLocalPort(), Duration.ZERO, a), spec(free, Duration.ZERO, a)));
      try {
        assertEquals(Set.of("TCP/" + free), proxy.listening());
        assertEquals("echo:y", exchange(free, "y"));
        String scrape = metrics.registry().scrape();
        assertTrue(scrape.contains(
            "kubeproxy_nftables_localhost_nodeport_listener_creation_failures_total{ip_family=\"IPv4\"} 1\n"), scrape);
        assertTrue(scrape.contains("kubeproxy_nftables_localhost_nodeport_listeners{ip_family=\"IPv4\"} 1\n"), scrape);
        // tried again at the next sync once the port is free
        int taken = squatter.getLocalPort();
        squatter.close();
        proxy.sync(List.of(spec(taken, Duration.ZERO, a), spec(free, Duration.ZERO, a)));
        assertEquals(Set.of("TCP/" + free, "TCP/" + taken), proxy.listening());
      } finally {
        proxy.shutdown();
      }
      assertEquals(Set.of(), proxy.listening());
      assertNotEquals(-1, metrics.registry().scrape().indexOf(
          "kubeproxy_nftables_localhost_nodeport_listeners{ip_family=\"IPv4\"} 0\n"));
    }
  }
}
