package dev.kubeproxy.backend.iptables;

import static dev.kubeproxy.testutil.ModelFixtures.ready;
import static dev.kubeproxy.testutil.ModelFixtures.spn;
import static dev.kubeproxy.testutil.ModelFixtures.state;
import static dev.kubeproxy.testutil.ModelFixtures.svc;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.kubeproxy.model.objects.ClusterObjects;
import dev.kubeproxy.model.objects.EndpointSlice;
import dev.kubeproxy.metrics.ProxyMetrics;
import dev.kubeproxy.model.Endpoint;
import dev.kubeproxy.model.EndpointsChangeTracker;
import dev.kubeproxy.model.EndpointsMap;
import dev.kubeproxy.net.IpFamily;
import dev.kubeproxy.model.ServicePortName;
import dev.kubeproxy.testutil.tier.Unit;
import java.time.Clock;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A pod IP reused while the old pod's endpoint is still listed: from the slices to the restore
 * input, the ready copy is programmed next to the other address, whichever slice lists which.
 */
@Unit
class ReusedPodIpRulesetTest {
  private static final ServicePortName WEB = spn("demo", "web", "http", "TCP");

  private static EndpointSlice slice(String name, EndpointSlice.Endpoint... eps) {
    return ClusterObjects.slice("demo", name, "web", "IPv4",
        List.of(ClusterObjects.slicePort("http", 8080, "TCP")), List.of(eps));
  }

  @Test
  void theReadyCopyOfAReusedAddressIsProgrammed() {
    EndpointsChangeTracker tracker = new EndpointsChangeTracker(IpFamily.IPv4, "node-a", true, new ProxyMetrics(),
        Clock.systemUTC(), (svc, ip) -> {});
    tracker.update(slice("web-a", ClusterObjects.endpoint("10.244.1.10", "node-b", true, true, false)), false);
    tracker.update(slice("web-b", ClusterObjects.endpoint("10.244.1.10", "node-a", false, false, false),
        ClusterObjects.endpoint("10.244.1.11", "node-c", true, true, false)), false);
    EndpointsMap map = new EndpointsMap();
    map.update(tracker);

    String fromSlices = RulesetGeneratorTest.generate(RulesetGeneratorTest.V4,
        state().add(svc(WEB, "10.96.12.34", 80), map.get(WEB).toArray(Endpoint[]::new)));
    String twoReady = RulesetGeneratorTest.generate(RulesetGeneratorTest.V4,
        state().add(svc(WEB, "10.96.12.34", 80), ready("10.244.1.10", 8080, false), ready("10.244.1.11", 8080, false)));
    assertEquals(twoReady, fromSlices);
  }
}
