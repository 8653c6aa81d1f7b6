package dev.kubeproxy.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import dev.kubeproxy.testutil.tier.Unit;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

@Unit
class RefusedServicePortsTest {
  private static final ServicePortName BAD = new ServicePortName(new NamespacedName("demo", "bad"), "", "TCP");
  private static final ServicePortName GOOD = new ServicePortName(new NamespacedName("demo", "good"), "", "TCP");

  private static ServicePort port(ServicePortName name, int port) {
    return new ServicePort(name, "10.96.0.10", port, "TCP", 0, List.of(), List.of(), List.of(), false, 0,
        false, false, 0, "");
  }

  private static ProxyState state(int badPort) {
    Endpoint ep = new Endpoint("10.244.0.1", 80, true, true, true, false, null);
    return new ProxyState(Map.of(BAD, port(BAD, badPort), GOOD, port(GOOD, 80)),
        Map.of(BAD, List.of(ep), GOOD, List.of(ep)), Set.of(), Map.of(), List.of(), Map.of());
  }

  @Test
  void leftOutUntilItChangesAndReportedOnce() {
    RefusedServicePorts refused = new RefusedServicePorts("test");
    ProxyState state = state(80);
    assertSame(state, refused.filter(state), "nothing refused, nothing filtered");

    refused.add(state, BAD);
    assertEquals(List.of(BAD), refused.takeUnreported());
    assertEquals(List.of(), refused.takeUnreported());
    ProxyState filtered = refused.filter(state(80));
    assertEquals(Set.of(GOOD), filtered.services().keySet());
    assertEquals(Set.of(GOOD), filtered.endpoints().keySet());

    ProxyState changed = state(81);
    assertSame(changed, refused.filter(changed), "a changed port is tried again");
    assertEquals(Set.of(BAD, GOOD), refused.filter(state(80)).services().keySet(), "and is no longer left out");
  }
}
