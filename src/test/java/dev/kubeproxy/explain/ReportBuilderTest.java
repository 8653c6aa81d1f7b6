package dev.kubeproxy.explain;

import dev.kubeproxy.config.ProxyMode;

import static dev.kubeproxy.explain.Model.ready;
import static dev.kubeproxy.explain.Model.service;
import static dev.kubeproxy.explain.Model.terminating;
import static dev.kubeproxy.explain.Model.zoned;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kubeproxy.explain.DebugReport.EndpointEntry;
import dev.kubeproxy.explain.DebugReport.Port;
import dev.kubeproxy.model.Endpoint;
import dev.kubeproxy.messages.FamilySnapshot;
import dev.kubeproxy.messages.InvalidObjects;
import dev.kubeproxy.model.NamespacedName;
import dev.kubeproxy.model.ProgrammedRules;
import dev.kubeproxy.messages.ProxierSnapshot;
import dev.kubeproxy.model.ProxyState;
import dev.kubeproxy.model.ServicePort;
import dev.kubeproxy.model.ServicePortName;
import dev.kubeproxy.model.ServiceSyncLog;
import dev.kubeproxy.testutil.tier.Unit;
import io.vertx.core.json.JsonObject;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

@Unit
class ReportBuilderTest {
  static final Instant T0 = Instant.parse("2026-12-03T10:00:00Z");

  final Map<ServicePortName, ServicePort> services = new HashMap<>();
  final Map<ServicePortName, List<Endpoint>> endpoints = new HashMap<>();
  Map<String, String> labels = Map.of("topology.kubernetes.io/zone", "zone-a");
  final ServiceSyncLog syncs = new ServiceSyncLog();
  final List<InvalidObjects.Invalid> invalid = new java.util.ArrayList<>();
  Map<ServicePortName, ProgrammedRules> programmed = Map.of();

  void add(ServicePort svc, Endpoint... eps) {
    services.put(svc.name(), svc);
    endpoints.put(svc.name(), List.of(eps));
  }

  ProxyState state() {
    return new ProxyState(Map.copyOf(services), Map.copyOf(endpoints), Set.of(), labels, List.of(), Map.of());
  }

  DebugReport report(String service, String from, String to) {
    return report("iptables", service, from, to);
  }

  DebugReport report(String mode, String service, String from, String to) {
    ProxierSnapshot snapshot = new ProxierSnapshot(ProxyMode.parse(mode).orElseThrow(), false, true,
        List.of(new FamilySnapshot(Model.settings(), state(), syncs, programmed)), invalid);
    return ReportBuilder.build(snapshot, ServiceQuery.parse(service, from, to));
  }

  static EndpointEntry endpoint(Port p, String ep) {
    return p.endpoints().stream().filter(e -> e.endpoint().equals(ep)).findFirst().orElseThrow();
  }

  @Test
  void clusterIpPortWithItsModelEndpointsAndLastSync() {
    add(service("web", 10).build(), ready("10.244.1.5", true), ready("10.244.2.5", false),
        new Endpoint("10.244.3.5", 8080, false, false, false, false, null));
    add(service("other", 11).build(), ready("10.244.1.7", true));
    syncs.synced(Set.of(), T0, true, null);
    syncs.synced(Set.of(new NamespacedName("ns", "web")), T0.plusSeconds(5), false, null);
    DebugReport r = report("ns/web", null, null);
    assertEquals(1, r.ports().size());
    Port p = r.ports().get(0);
    assertEquals("ns/web:p80", p.servicePort());
    assertEquals("10.96.0.10", p.clusterIP());
    assertEquals("Cluster", p.externalTrafficPolicy());
    assertEquals(List.of("cluster"), endpoint(p, "10.244.1.5:8080").sets());
    assertEquals("node-1", endpoint(p, "10.244.1.5:8080").node());
    assertEquals("zone-b", endpoint(p, "10.244.2.5:8080").zone());
    assertEquals(List.of("unused"), endpoint(p, "10.244.3.5:8080").sets());
    assertEquals("not ready", endpoint(p, "10.244.3.5:8080").reason());
    assertEquals("partial", p.lastSync().kind(), "the partial sync that touched it is newer than the full one");
    assertEquals("ok", p.lastSync().result());
    assertEquals("full", report("ns/other", null, null).ports().get(0).lastSync().kind());
    assertNull(p.path());
  }

  @Test
  void terminatingFallbackIsNamed() {
    add(service("web", 10).build(), terminating("10.244.1.5", true), terminating("10.244.2.5", false));
    Port p = report("ns/web", null, null).ports().get(0);
    assertEquals(List.of("cluster", "terminating fallback"), endpoint(p, "10.244.1.5:8080").sets());
    assertTrue(endpoint(p, "10.244.1.5:8080").reason().contains("no ready endpoint"));
    assertTrue(p.policy().stream().anyMatch(x -> x.name().equals("clusterTerminatingFallback") && x.value()));

    add(service("web", 10).build(), terminating("10.244.1.5", true), ready("10.244.2.5", false));
    Port mixed = report("ns/web", null, null).ports().get(0);
    assertEquals(List.of("unused"), endpoint(mixed, "10.244.1.5:8080").sets(), "a ready endpoint is left");
  }

  @Test
  void topologyFiltersOtherZones() {
    add(service("web", 10).build(), zoned("10.244.1.5", true, "zone-a"), zoned("10.244.2.5", false, "zone-b"));
    Port p = report("ns/web", null, null).ports().get(0);
    assertEquals("PreferSameZone", p.topologyMode());
    assertEquals(List.of("cluster"), endpoint(p, "10.244.1.5:8080").sets());
    EndpointEntry other = endpoint(p, "10.244.2.5:8080");
    assertEquals(List.of("filtered by topology"), other.sets());
    assertTrue(other.reason().contains("zone-b") && other.reason().contains("zone-a"), other.reason());
    assertTrue(p.trafficDistribution().contains("zone hints"), p.trafficDistribution());

    labels = Map.of();
    Port noZone = report("ns/web", null, null).ports().get(0);
    assertEquals("none", noZone.topologyMode());
    assertEquals(List.of("cluster"), endpoint(noZone, "10.244.2.5:8080").sets());
  }

  @Test
  void externalTrafficPolicyLocalPutsLocalEndpointsInBothSets() {
    add(service("shop", 30).nodePort(30080).etpLocal().build(), ready("10.244.1.5", true), ready("10.244.2.5", false));
    Port p = report("ns/shop", null, null).ports().get(0);
    assertEquals("Local", p.externalTrafficPolicy());
    assertEquals(32000, p.healthCheckNodePort());
    assertEquals(List.of("cluster", "local"), endpoint(p, "10.244.1.5:8080").sets());
    assertEquals(List.of("cluster"), endpoint(p, "10.244.2.5:8080").sets());
  }

  /** The plan line names the mode's own objects: chains in iptables, virtual servers in ipvs. */
  @Test
  void planWordsFitTheMode() {
    add(service("shop", 30).nodePort(30080).etpLocal().build(), ready("10.244.1.5", true), ready("10.244.2.5", false));
    String iptables = TextReport.of(report("ns/shop", null, null));
    assertTrue(iptables.contains("plan:            hasEndpoints hasInternalEndpoints hasExternalEndpoints"
        + " usesClusterPolicyChain usesLocalPolicyChain usesExternalChain\n"), iptables);
    String ipvs = TextReport.of(report("ipvs", "ns/shop", null, null));
    assertTrue(ipvs.contains("plan:            hasEndpoints hasInternalEndpoints hasExternalEndpoints"
        + " clusterRealServers localRealServers externalVirtualServers\n"), ipvs);
    assertTrue(!ipvs.contains("Chain"), ipvs);
  }

  @Test
  void ipvsLocalPolicyWithoutLocalEndpointsForwardsToTheClusterEndpoints() {
    add(service("shop", 30).etpLocal().build(), ready("10.244.2.5", false));
    Port p = report("ipvs", "ns/shop", null, null).ports().get(0);
    Map<String, Boolean> plan = new HashMap<>();
    p.policy().forEach(x -> plan.put(x.name(), x.value()));
    assertEquals(Boolean.TRUE, plan.get("clusterRealServers"));
    assertEquals(Boolean.FALSE, plan.get("localRealServers"));
    assertEquals(Boolean.FALSE, plan.get("externalVirtualServers"));
  }

  @Test
  void refusedFailedInvalidAndOrphans() {
    ServicePort web = service("web", 10).build();
    add(web, ready("10.244.1.5", true));
    ServicePortName orphan = Model.name("ns", "web", "metrics");
    endpoints.put(orphan, List.of(ready("10.244.1.5", true)));
    syncs.refused(state(), web.name(), T0);
    syncs.synced(Set.of(new NamespacedName("ns", "web")), T0.plusSeconds(1), false, "iptables-restore failed");
    invalid.add(new InvalidObjects.Invalid("Service", "ns", "web", "spec.ports[1].port: Invalid value: 70000", T0));
    invalid.add(new InvalidObjects.Invalid("EndpointSlice", "ns", "web-abcde", "endpoints[0].addresses: bad", T0));
    invalid.add(new InvalidObjects.Invalid("EndpointSlice", "ns", "webapp-x", "not ours", T0));
    DebugReport r = report("ns/web", null, null);
    Port p = r.ports().get(0);
    assertEquals(2, p.problems().size(), p.problems().toString());
    assertTrue(p.problems().get(0).contains("kernel refused"));
    assertTrue(p.lastSync().result().startsWith("failed: iptables-restore failed"));
    String notes = String.join("\n", r.notes());
    assertTrue(notes.contains("\"metrics\"") && notes.contains("no such port"), notes);
    assertTrue(notes.contains("70000") && notes.contains("web-abcde") && !notes.contains("webapp-x"), notes);

    // a change of the refused port's endpoints ends the refusal: the backend tries it again
    add(web, ready("10.244.1.6", true));
    assertEquals(1, report("ns/web", null, null).ports().get(0).problems().size());
  }

  @Test
  void unknownServiceListsCloseNamesAndPortFilterAndPath() {
    add(service("web", 10).build(), ready("10.244.1.5", true));
    add(service("api", 20).build(), ready("10.244.1.6", true));
    add(service("other/web", 21).build(), ready("10.244.1.7", true));
    DebugReport unknown = report("ns/wbe", null, null);
    assertTrue(unknown.empty());
    assertEquals("ns/web", unknown.closeNames().get(0));
    assertEquals(List.of("ns/web", "other/web"), report("elsewhere/web", null, null).closeNames(),
        "the same name in other namespaces");

    assertEquals(1, report("ns/web:p80", null, null).ports().size());
    assertEquals(1, report("ns/web:80", null, null).ports().size());
    assertTrue(report("ns/web:81", null, null).empty());

    DebugReport byDestination = report(null, "10.244.1.50", "10.96.0.20:80");
    assertEquals(1, byDestination.ports().size(), "without a Service, only the ports the destination hits");
    assertEquals("ns/api:p80", byDestination.ports().get(0).servicePort());
    assertNotNull(byDestination.ports().get(0).path());
  }

  @Test
  void jsonAndTextCarryTheSameFacts() {
    add(service("web", 10).build(), ready("10.244.1.5", true));
    programmed = Map.of(Model.name("ns", "web", "p80"), ProgrammedRules.of("iptables-save", List.of("-A KUBE-SVC-X")));
    DebugReport r = report("ns/web", "10.244.1.50", "10.96.0.10:80");
    JsonObject json = JsonReport.of(r);
    JsonObject port = json.getJsonArray("ports").getJsonObject(0);
    assertEquals("ns/web:p80", port.getString("servicePort"));
    assertEquals("DNAT", port.getJsonObject("path").getString("verdict"));
    assertEquals("-A KUBE-SVC-X", port.getJsonObject("programmed").getJsonArray("lines").getString(0));
    assertTrue(port.getJsonObject("policy").getBoolean("hasEndpoints"));
    String text = TextReport.of(r);
    assertTrue(text.contains("ns/web:p80 TCP (IPv4)") && text.contains("-A KUBE-SVC-X") && text.contains("=> DNAT")
        && text.contains("10.244.1.5:8080"), text);
  }

  @Test
  void queryParsing() {
    assertEquals("web", ServiceQuery.parse("ns/web:http", null, null).service().name());
    assertEquals("http", ServiceQuery.parse("ns/web:http", null, null).port());
    ServiceQuery v6 = ServiceQuery.parse(null, "fd00::1", "[fd00::10]:443");
    assertEquals("fd00::10", v6.toIp());
    assertEquals(443, v6.toPort());
    for (String[] bad : new String[][] {{"web", null, null}, {"ns/", null, null}, {"ns/web", "x", "10.0.0.1:80"},
        {"ns/web", "10.0.0.1", "10.0.0.2"}, {"ns/web", "10.0.0.1", null}, {"ns/web", "10.0.0.1", "fd00::1:80"}}) {
      try {
        ServiceQuery.parse(bad[0], bad[1], bad[2]);
        throw new AssertionError("accepted " + List.of(bad));
      } catch (IllegalArgumentException expected) {
        assertTrue(!expected.getMessage().isEmpty());
      }
    }
  }
}
