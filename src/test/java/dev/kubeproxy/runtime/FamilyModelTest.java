package dev.kubeproxy.runtime;

import static dev.kubeproxy.model.TestObjects.ep;
import static dev.kubeproxy.model.TestObjects.port;
import static dev.kubeproxy.model.TestObjects.service;
import static dev.kubeproxy.model.TestObjects.slice;
import static dev.kubeproxy.model.TestObjects.slicePort;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.kubeproxy.metrics.ProxyMetrics;
import dev.kubeproxy.model.ModelGates;
import dev.kubeproxy.model.NamespacedName;
import dev.kubeproxy.model.ProxyState;
import dev.kubeproxy.model.ServicePortName;
import dev.kubeproxy.model.objects.Service;
import dev.kubeproxy.net.IpFamily;
import dev.kubeproxy.testutil.tier.Unit;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The ports a partial sync rewrites come from the model's own changes, so that a backend never
 * looks through every port of a large cluster to find the few that changed.
 */
@Unit
class FamilyModelTest {
  private final FamilyModel model = new FamilyModel(IpFamily.IPv4,
      new FamilyProxier.Settings("node-1", Map.of(), Duration.ofSeconds(30), Duration.ofSeconds(1),
          Duration.ofHours(1), new ModelGates(true, true, true, true)),
      new ProxyMetrics(), Clock.systemUTC(), (service, ip) -> { });

  private static ServicePortName spn(String name, String port) {
    return new ServicePortName(new NamespacedName("ns", name), port, "TCP");
  }

  private void endpoints(String name, String ip) {
    model.endpointSliceUpdated(slice("ns", name + "-1", name, "IPv4", List.of(slicePort("http", 80, "TCP")),
        ep(ip, "node-2")), false);
  }

  @Test
  void changedPortsAreThoseOfTheChangesOnly() {
    Service a = service("ns", "a", "10.96.0.1", port("http", 80, "TCP"), port("dns", 53, "TCP"));
    Service b = service("ns", "b", "10.96.0.2", port("http", 80, "TCP"));
    Service c = service("ns", "c", "10.96.0.3", port("http", 80, "TCP"));
    model.serviceUpdated(null, a);
    model.serviceUpdated(null, b);
    model.serviceUpdated(null, c);
    endpoints("a", "10.0.0.1");
    endpoints("b", "10.0.0.2");
    ProxyState first = model.checkout(true);
    assertNull(first.changedPorts(), "a full sync does not name ports");
    model.syncSucceeded();

    // b's endpoint replaced, c's only port renamed: a is untouched.
    endpoints("b", "10.0.0.3");
    model.serviceUpdated(c, service("ns", "c", "10.96.0.3", port("web", 80, "TCP")));
    ProxyState partial = model.checkout(false);
    assertEquals(Set.of(spn("b", "http"), spn("c", "http"), spn("c", "web")), partial.changedPorts());
    assertEquals(partial.changedPorts(), partial.portsOfChangedServices(Set.of(spn("a", "http"))));

    // That sync failed: the next one cannot tell from its own changes what the kernel lacks.
    model.syncFailed(partial);
    endpoints("a", "10.0.0.4");
    ProxyState retry = model.checkout(false);
    assertNull(retry.changedPorts());
    assertEquals(Set.of(spn("a", "http"), spn("a", "dns"), spn("b", "http"), spn("c", "web"), spn("c", "http")),
        retry.portsOfChangedServices(Set.of(spn("a", "http"), spn("b", "http"), spn("c", "http"))));
    model.syncSucceeded();

    // A deleted Service: its port, gone from the state, is still named.
    model.serviceUpdated(b, null);
    assertEquals(Set.of(spn("b", "http")), model.checkout(false).changedPorts());
  }
}
