package dev.kubeproxy.backend.ipvs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kubeproxy.testutil.tier.Unit;
import java.util.List;
import org.junit.jupiter.api.Test;

/** pkg/proxy/ipvs/graceful_termination.go's rules, against an in-memory table. */
@Unit
class GracefulTerminationTest {
  private final FakeIpvs ipvs = new FakeIpvs();
  private final GracefulTermination manager = new GracefulTermination(ipvs);
  private final VirtualServer tcp = new VirtualServer("10.96.0.10", "TCP", 80, "rr", 0, 0);
  private final VirtualServer udp = new VirtualServer("10.96.0.10", "UDP", 53, "rr", 0, 0);

  @Test
  void anIdleRealServerIsDeletedAtOnce() throws Exception {
    ipvs.addVirtualServer(tcp);
    ipvs.addRealServer(tcp, RealServer.of("10.244.1.5", 8080, 1));
    manager.gracefulDelete(tcp, RealServer.of("10.244.1.5", 8080, 1));
    assertEquals(List.of(), ipvs.realServers(tcp));
    assertEquals(List.of(), manager.waiting());
  }

  @Test
  void aTcpRealServerWithConnectionsDrainsAtWeightZeroUntilTheyAreGone() throws Exception {
    ipvs.addVirtualServer(tcp);
    ipvs.addRealServer(tcp, RealServer.of("10.244.1.5", 8080, 1));
    ipvs.connections(tcp, "10.244.1.5:8080", 0, 2); // inactive ones count too
    manager.gracefulDelete(tcp, RealServer.of("10.244.1.5", 8080, 1));
    assertEquals(0, ipvs.realServers(tcp).get(0).weight());
    assertTrue(manager.inTerminationList("10.96.0.10:80/TCP/10.244.1.5:8080"));
    manager.retry();
    assertEquals(1, ipvs.realServers(tcp).size(), "still draining");
    ipvs.connections(tcp, "10.244.1.5:8080", 0, 0);
    manager.retry();
    assertEquals(List.of(), ipvs.realServers(tcp));
    assertFalse(manager.inTerminationList("10.96.0.10:80/TCP/10.244.1.5:8080"));
  }

  @Test
  void udpRealServersAreDeletedAtOnceEvenWithConnections() throws Exception {
    ipvs.addVirtualServer(udp);
    ipvs.addRealServer(udp, RealServer.of("10.244.1.5", 5353, 1));
    ipvs.connections(udp, "10.244.1.5:5353", 0, 3);
    manager.gracefulDelete(udp, RealServer.of("10.244.1.5", 5353, 1));
    assertEquals(List.of(), ipvs.realServers(udp));
  }

  @Test
  void aReturningEndpointIsTakenOutOfTheListAndItsDrainingRealServerDeleted() throws Exception {
    ipvs.addVirtualServer(tcp);
    ipvs.addRealServer(tcp, RealServer.of("10.244.1.5", 8080, 1));
    ipvs.connections(tcp, "10.244.1.5:8080", 1, 0);
    manager.gracefulDelete(tcp, RealServer.of("10.244.1.5", 8080, 1));
    manager.moveOutOfList("10.96.0.10:80/TCP/10.244.1.5:8080");
    assertEquals(List.of(), ipvs.realServers(tcp));
    assertEquals(List.of(), manager.waiting());
  }

  @Test
  void aRealServerAlreadyGoneIsNoLongerAwaited() throws Exception {
    ipvs.addVirtualServer(tcp);
    ipvs.addRealServer(tcp, RealServer.of("10.244.1.5", 8080, 1));
    ipvs.connections(tcp, "10.244.1.5:8080", 1, 0);
    manager.gracefulDelete(tcp, RealServer.of("10.244.1.5", 8080, 1));
    ipvs.deleteRealServer(tcp, RealServer.of("10.244.1.5", 8080, 0));
    manager.retry();
    assertEquals(List.of(), manager.waiting());
  }
}
