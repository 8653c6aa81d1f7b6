package dev.kubeproxy.model;

import dev.kubeproxy.net.IpFamily;

import static dev.kubeproxy.model.TestObjects.edit;
import static dev.kubeproxy.model.TestObjects.ingress;
import static dev.kubeproxy.model.TestObjects.nodePort;
import static dev.kubeproxy.model.TestObjects.port;
import static dev.kubeproxy.model.TestObjects.service;
import static dev.kubeproxy.model.TestObjects.withIngress;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kubeproxy.model.objects.Service;
import dev.kubeproxy.testutil.tier.Unit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

@Unit
class ServicePortsTest {
  private static final NamespacedName WEB = new NamespacedName("demo", "web");

  private static ServicePort only(Map<ServicePortName, ServicePort> ports) {
    assertEquals(1, ports.size(), "ports: " + ports);
    return ports.values().iterator().next();
  }

  @Test
  void clusterIPServiceBecomesOnePortPerSpecPort() {
    Service svc = service("demo", "web", "10.96.0.10", port("http", 80, "TCP"), port("dns", 53, "UDP"));
    Map<ServicePortName, ServicePort> ports = ServicePorts.of(svc, IpFamily.IPv4);
    assertEquals(List.of(new ServicePortName(WEB, "http", "TCP"), new ServicePortName(WEB, "dns", "UDP")),
        new ArrayList<>(ports.keySet()));
    ServicePort http = ports.get(new ServicePortName(WEB, "http", "TCP"));
    assertEquals("10.96.0.10", http.clusterIP());
    assertEquals(80, http.port());
    assertEquals("TCP", http.protocol());
    assertEquals(0, http.nodePort());
    assertFalse(http.sessionAffinityClientIP());
    assertEquals(0, http.stickyMaxAgeSeconds());
    assertFalse(http.externalPolicyLocal());
    assertFalse(http.internalPolicyLocal());
    assertEquals(0, http.healthCheckNodePort());
    assertEquals("", http.hintsAnnotation());
    assertFalse(http.externallyAccessible());
    assertTrue(http.usesClusterEndpoints());
    assertFalse(http.usesLocalEndpoints());
  }

  @Test
  void unnamedPortDefaultsToTcp() {
    Service svc = service("demo", "web", "10.96.0.10", new Service.Port(null, null, 80, null, null, null));
    ServicePort p = only(ServicePorts.of(svc, IpFamily.IPv4));
    assertEquals(new ServicePortName(WEB, "", "TCP"), p.name());
    assertEquals("demo/web", p.name().toString());
  }

  @Test
  void skippedServices() {
    assertTrue(ServicePorts.of(service("demo", "web", "None", port("http", 80, "TCP")), IpFamily.IPv4).isEmpty());
    Service empty = service("demo", "web", "10.96.0.10", port("http", 80, "TCP"));
    empty = edit(empty).clusterIP("").clusterIPs(null).ipFamilies(null).build();
    assertTrue(ServicePorts.of(empty, IpFamily.IPv4).isEmpty());
    Service external = service("demo", "web", "10.96.0.10", port("http", 80, "TCP"));
    external = edit(external).type("ExternalName").build();
    assertTrue(ServicePorts.of(external, IpFamily.IPv4).isEmpty());
    // no cluster IP of the other family
    assertTrue(ServicePorts.of(service("demo", "web", "10.96.0.10", port("http", 80, "TCP")), IpFamily.IPv6).isEmpty());
    assertTrue(ServicePorts.of(null, IpFamily.IPv4).isEmpty());
  }

  @Test
  void invalidClusterIPSkipsTheServiceOnly() {
    Service bad = service("demo", "web", "10.96.0.300", port("http", 80, "TCP"));
    assertTrue(ServicePorts.of(bad, IpFamily.IPv4).isEmpty());
  }

  @Test
  void outOfRangePortsAreSkippedOthersKept() {
    Service svc = service("demo", "web", "10.96.0.10", port("bad", 70000, "TCP"), port("zero", 0, "TCP"),
        port("good", 80, "TCP"), nodePort("badnp", 81, "TCP", 99999), port("sctp", 82, "SCTP"), port("weird", 83, "ICMP"));
    Map<ServicePortName, ServicePort> ports = ServicePorts.of(svc, IpFamily.IPv4);
    assertEquals(List.of("good", "sctp"), ports.keySet().stream().map(ServicePortName::port).toList());
  }

  @Test
  void dualStackServiceGivesEachFamilyItsOwnClusterIP() {
    Service svc = service("demo", "web", "10.96.0.10", port("http", 80, "TCP"));
    svc = edit(svc).ipFamilies(new ArrayList<>(List.of("IPv6", "IPv4")))
        .clusterIP("fd00:10:96::a").clusterIPs(new ArrayList<>(List.of("fd00:10:96:0::a", "10.96.0.10")))
        .externalIPs(new ArrayList<>(List.of("192.168.200.10", "fd00::10", "", "not-an-ip"))).build();
    ServicePort v4 = only(ServicePorts.of(svc, IpFamily.IPv4));
    ServicePort v6 = only(ServicePorts.of(svc, IpFamily.IPv6));
    assertEquals("10.96.0.10", v4.clusterIP());
    assertEquals("fd00:10:96::a", v6.clusterIP());
    assertEquals(List.of("192.168.200.10"), v4.externalIPs());
    assertEquals(List.of("fd00::10"), v6.externalIPs());
  }

  @Test
  void withoutIpFamiliesTheClusterIPFamilyDecides() {
    Service svc = service("demo", "web", "fd00:10:96::a", port("http", 80, "TCP"));
    svc = edit(svc).ipFamilies(null).clusterIPs(null).build();
    assertTrue(ServicePorts.of(svc, IpFamily.IPv4).isEmpty());
    assertEquals("fd00:10:96::a", only(ServicePorts.of(svc, IpFamily.IPv6)).clusterIP());
  }

  @Test
  void loadBalancerIngressSkipsHostnamesProxyModeAndOtherFamily() {
    Service svc = withIngress(service("demo", "web", "10.96.0.10", nodePort("http", 80, "TCP", 30080)),
        ingress("192.168.200.50", null), ingress("192.168.200.51", "VIP"), ingress("192.168.200.52", "Proxy"),
        ingress("fd00::50", null), new Service.Ingress(null, "lb.example", null));
    svc = edit(svc).type("LoadBalancer").build();
    ServicePort p = only(ServicePorts.of(svc, IpFamily.IPv4));
    assertEquals(List.of("192.168.200.50", "192.168.200.51"), p.loadBalancerVIPs());
    assertEquals(30080, p.nodePort());
  }

  @Test
  void externalIPsAreLeftOutWhenAllowServiceExternalIPsIsOff() {
    Service svc = edit(service("demo", "web", "10.96.0.10", port("http", 80, "TCP")))
        .externalIPs(new ArrayList<>(List.of("192.168.200.60", "fd00::60"))).build();
    assertEquals(List.of("192.168.200.60"), only(ServicePorts.of(svc, IpFamily.IPv4, true)).externalIPs());
    ServicePort off = only(ServicePorts.of(svc, IpFamily.IPv4, false));
    assertEquals(List.of(), off.externalIPs());
    assertFalse(off.externallyAccessible());
  }

  @Test
  void sourceRangesAreTrimmedNormalisedAndFiltered() {
    Service svc = service("demo", "web", "10.96.0.10", port("http", 80, "TCP"));
    svc = edit(svc).type("LoadBalancer").loadBalancerSourceRanges(
        new ArrayList<>(List.of(" 10.0.0.5/24 ", "192.168.0.0/16", "fd00::/8", "garbage", "10.1.0.0/40"))).build();
    assertEquals(List.of("10.0.0.0/24", "192.168.0.0/16"), only(ServicePorts.of(svc, IpFamily.IPv4)).loadBalancerSourceRanges());
    svc = edit(svc).clusterIP("fd00:10:96::a").clusterIPs(new ArrayList<>(List.of("fd00:10:96::a")))
        .ipFamilies(new ArrayList<>(List.of("IPv6"))).build();
    assertEquals(List.of("fd00::/8"), only(ServicePorts.of(svc, IpFamily.IPv6)).loadBalancerSourceRanges());
  }

  @Test
  void externalTrafficPolicyLocalOnlyForExternallyAccessibleServices() {
    Service clusterIP = service("demo", "web", "10.96.0.10", port("http", 80, "TCP"));
    clusterIP = edit(clusterIP).externalTrafficPolicy("Local").build();
    assertFalse(only(ServicePorts.of(clusterIP, IpFamily.IPv4)).externalPolicyLocal());

    // ClusterIP with an external IP (even of the other family) is externally accessible at the API level
    clusterIP = edit(clusterIP).externalIPs(new ArrayList<>(List.of("fd00::10"))).build();
    ServicePort withExt = only(ServicePorts.of(clusterIP, IpFamily.IPv4));
    assertTrue(withExt.externalPolicyLocal());
    assertFalse(withExt.externallyAccessible()); // but not for this family
    assertFalse(withExt.usesLocalEndpoints());

    Service nodePort = service("demo", "web", "10.96.0.10", nodePort("http", 80, "TCP", 30080));
    nodePort = edit(nodePort).type("NodePort").externalTrafficPolicy("Local").healthCheckNodePort(32000).build();
    ServicePort np = only(ServicePorts.of(nodePort, IpFamily.IPv4));
    assertTrue(np.externalPolicyLocal());
    assertEquals(0, np.healthCheckNodePort(), "only LoadBalancer services need a health check");
    assertTrue(np.usesClusterEndpoints());
    assertTrue(np.usesLocalEndpoints());

    Service lb = service("demo", "web", "10.96.0.10", nodePort("http", 80, "TCP", 30080));
    lb = edit(lb).type("LoadBalancer").externalTrafficPolicy("Local").healthCheckNodePort(32000).build();
    assertEquals(32000, only(ServicePorts.of(lb, IpFamily.IPv4)).healthCheckNodePort());
    lb = edit(lb).externalTrafficPolicy("Cluster").build();
    assertEquals(0, only(ServicePorts.of(lb, IpFamily.IPv4)).healthCheckNodePort());
    lb = edit(lb).externalTrafficPolicy("Local").healthCheckNodePort(null).build();
    assertEquals(0, only(ServicePorts.of(lb, IpFamily.IPv4)).healthCheckNodePort());
  }

  @Test
  void internalTrafficPolicyLocal() {
    Service svc = service("demo", "web", "10.96.0.10", port("http", 80, "TCP"));
    svc = edit(svc).internalTrafficPolicy("Local").build();
    ServicePort p = only(ServicePorts.of(svc, IpFamily.IPv4));
    assertTrue(p.internalPolicyLocal());
    assertFalse(p.usesClusterEndpoints());
    assertTrue(p.usesLocalEndpoints());
    svc = edit(svc).internalTrafficPolicy("Cluster").build();
    assertFalse(only(ServicePorts.of(svc, IpFamily.IPv4)).internalPolicyLocal());
  }

  @Test
  void clientIPAffinity() {
    Service svc = service("demo", "web", "10.96.0.10", port("http", 80, "TCP"));
    svc = edit(svc).sessionAffinity("ClientIP")
        .clientIPTimeoutSeconds(600).build();
    ServicePort p = only(ServicePorts.of(svc, IpFamily.IPv4));
    assertTrue(p.sessionAffinityClientIP());
    assertEquals(600, p.stickyMaxAgeSeconds());
    svc = edit(svc).sessionAffinity("None").build();
    assertEquals(0, only(ServicePorts.of(svc, IpFamily.IPv4)).stickyMaxAgeSeconds());
  }

  @Test
  void hintsAnnotationPrefersTopologyAwareHintsEvenWhenEmpty() {
    Service svc = service("demo", "web", "10.96.0.10", port("http", 80, "TCP"));
    HashMap<String, String> a = new HashMap<>();
    a.put("service.kubernetes.io/topology-mode", "Auto");
    assertEquals("Auto", only(ServicePorts.of(edit(svc).annotations(a).build(), IpFamily.IPv4)).hintsAnnotation());
    a.put("service.kubernetes.io/topology-aware-hints", "");
    assertEquals("", only(ServicePorts.of(edit(svc).annotations(a).build(), IpFamily.IPv4)).hintsAnnotation());
    a.put("service.kubernetes.io/topology-aware-hints", "disabled");
    assertEquals("disabled", only(ServicePorts.of(edit(svc).annotations(a).build(), IpFamily.IPv4)).hintsAnnotation());
  }
}
