package dev.kubeproxy.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kubeproxy.messages.ClusterEvent.Kind;
import dev.kubeproxy.model.objects.ClusterObjects;
import dev.kubeproxy.model.objects.ServiceBuilder;
import dev.kubeproxy.testutil.tier.Unit;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** One definition of what is watched: the informers send it, the manifests source applies it. */
@Unit
class SelectionTest {
  @Test
  void watchedKindsAndTheirSelectors() {
    var options = Fixtures.options(null, "node-1");
    List<Selection> watched = Selection.watched(options);
    assertEquals(List.of(Kind.SERVICE, Kind.ENDPOINT_SLICE, Kind.SERVICE_CIDR, Kind.NODE),
        watched.stream().map(Selection::kind).toList(), "ServiceCIDRs are watched without any gate since 1.33");
    assertEquals("!service.kubernetes.io/service-proxy-name,!service.kubernetes.io/headless", watched.get(0).labelSelector());
    assertEquals("spec.clusterIP!=None", watched.get(0).fieldSelector());
    assertEquals("metadata.name=node-1", watched.get(3).fieldSelector());
  }

  @Test
  void servicesForAnotherProxyAndHeadlessServicesAreNotOurs() {
    Selection services = Selection.watched(Fixtures.options(null, "node-1")).get(0);
    ServiceBuilder web = new ServiceBuilder("demo", "web").clusterIP("10.96.0.10");
    assertTrue(services.matches(web.build()));
    assertFalse(services.matches(web.labels(Map.of("service.kubernetes.io/service-proxy-name", "other")).build()));
    assertFalse(services.matches(new ServiceBuilder("demo", "h").clusterIP("None").build()));
    assertTrue(services.matches(new ServiceBuilder("demo", "e").clusterIP(null).build()));
  }

  @Test
  void theOwnNodeOnly() {
    Selection node = Selection.watched(Fixtures.options(null, "node-1")).get(3);
    assertTrue(node.matches(ClusterObjects.node("node-1", Map.of(), List.of(), List.of())));
    assertFalse(node.matches(ClusterObjects.node("node-2", Map.of(), List.of(), List.of())));
  }

  @Test
  void labelRequirements() {
    Selection s = new Selection(Kind.SERVICE, "app=web,tier!=db,env,!legacy", "");
    assertTrue(s.labelsMatch(Map.of("app", "web", "env", "")));
    assertTrue(s.labelsMatch(Map.of("app", "web", "env", "x", "tier", "front")));
    assertFalse(s.labelsMatch(Map.of("app", "web", "env", "x", "tier", "db")));
    assertFalse(s.labelsMatch(Map.of("app", "api", "env", "x")));
    assertFalse(s.labelsMatch(Map.of("app", "web")));
    assertFalse(s.labelsMatch(Map.of("app", "web", "env", "x", "legacy", "")));
    assertTrue(new Selection(Kind.SERVICE, "app==web", "").labelsMatch(Map.of("app", "web")));
  }
}
