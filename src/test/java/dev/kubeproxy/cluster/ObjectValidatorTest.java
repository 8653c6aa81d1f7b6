package dev.kubeproxy.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kubeproxy.model.objects.ClusterObjects;
import dev.kubeproxy.model.objects.EndpointSlice;
import dev.kubeproxy.model.objects.Service;
import dev.kubeproxy.model.objects.ServiceBuilder;
import dev.kubeproxy.testutil.tier.Unit;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/** The API server's rules for the Service and EndpointSlice fields kube-proxy reads. */
@Unit
class ObjectValidatorTest {
  private static final Service.Port HTTP = ServiceBuilder.port("http", 80, "TCP");

  private static ServiceBuilder good() {
    return new ServiceBuilder("demo", "web").type("ClusterIP").clusterIP("10.96.0.10")
        .clusterIPs(List.of("10.96.0.10")).ports(List.of(HTTP));
  }

  /** The fields rejected after one change to a good Service. */
  private static List<String> serviceErrors(Consumer<ServiceBuilder> change) {
    ServiceBuilder s = good();
    change.accept(s);
    return ObjectValidator.service(s.build()).stream().map(FieldError::field).toList();
  }

  /** A good Service with its one port changed. */
  private static List<String> portErrors(Service.Port port) {
    return serviceErrors(s -> s.ports(List.of(port)));
  }

  private static EndpointSlice slice(String addressType, EndpointSlice.Port port, String name) {
    return ClusterObjects.slice("demo", name, "web", addressType, List.of(port),
        List.of(ClusterObjects.endpoint("10.244.0.2", "node-1", null, null, null)));
  }

  private static List<String> fields(EndpointSlice s) {
    return ObjectValidator.endpointSlice(s).stream().map(FieldError::field).toList();
  }

  @Test
  void goodObjectsPassWithDefaultedFieldsLeftOut() {
    assertEquals(List.of(), ObjectValidator.service(good().build()));
    assertEquals(List.of(), serviceErrors(s -> s.type(null).ports(List.of(ServiceBuilder.port("http", 80, null)))));
    assertEquals(List.of(), serviceErrors(s -> s.name("a".repeat(63)).namespace("n".repeat(63))));
    assertEquals(List.of(), serviceErrors(s -> s.clusterIP("None").clusterIPs(List.of("None")).ports(List.of())));
    assertEquals(List.of(), ObjectValidator.endpointSlice(slice("IPv4", ClusterObjects.slicePort("http", 8080, "TCP"), "web-abc")));
  }

  @Test
  void serviceFieldsAsTheApiServerChecksThem() {
    assertEquals(List.of("metadata.name"), serviceErrors(s -> s.name("Web")));
    assertEquals(List.of("metadata.name"), serviceErrors(s -> s.name("1web")));
    assertEquals(List.of("metadata.name"), serviceErrors(s -> s.name("w".repeat(64))));
    assertEquals(List.of("metadata.name"), serviceErrors(s -> s.name("web\"\n-A X")));
    assertEquals(List.of("metadata.namespace"), serviceErrors(s -> s.namespace("Demo")));
    assertEquals(List.of("metadata.labels"), serviceErrors(s -> s.labels(java.util.Map.of("a b", "c"))));
    assertEquals(List.of("spec.type"), serviceErrors(s -> s.type("Magic")));
    assertEquals(List.of("spec.clusterIP", "spec.clusterIPs[0]"),
        serviceErrors(s -> s.clusterIP("10.96.0.300").clusterIPs(List.of("10.96.0.300"))));
    assertEquals(List.of("spec.clusterIPs[0]"), serviceErrors(s -> s.clusterIPs(List.of("10.96.0.11"))));
    assertEquals(List.of("spec.ipFamilies[0]"), serviceErrors(s -> s.ipFamilies(List.of("IPv5"))));
    assertEquals(List.of("spec.ipFamilyPolicy"), serviceErrors(s -> s.ipFamilyPolicy("Sometimes")));
    assertEquals(List.of("spec.sessionAffinity"), serviceErrors(s -> s.sessionAffinity("Sticky")));
    for (int bad : new int[] {0, -5, 86401, Integer.MAX_VALUE}) {
      assertEquals(List.of("spec.sessionAffinityConfig.clientIP.timeoutSeconds"), serviceErrors(s -> s
          .sessionAffinity("ClientIP").clientIPTimeoutSeconds(bad)));
    }
    assertEquals(List.of(), serviceErrors(s -> s.sessionAffinity("ClientIP")
        .clientIPTimeoutSeconds(86400)));
    assertEquals(List.of("spec.externalTrafficPolicy"), serviceErrors(s -> s.externalTrafficPolicy("Nearby")));
    assertEquals(List.of("spec.internalTrafficPolicy"), serviceErrors(s -> s.internalTrafficPolicy("Nearby")));
    assertEquals(List.of("spec.externalIPs[0]"), serviceErrors(s -> s.externalIPs(List.of("example.com"))));
    assertEquals(List.of("spec.loadBalancerSourceRanges[0]"), serviceErrors(s -> s.loadBalancerSourceRanges(List.of("10.0.0.0/33"))));
    assertEquals(List.of("spec.healthCheckNodePort"), serviceErrors(s -> s.healthCheckNodePort(70000)));
  }

  @Test
  void servicePorts() {
    assertEquals(List.of("spec.ports"), serviceErrors(s -> s.ports(List.of())));
    assertEquals(List.of("spec.ports[0].port"), portErrors(ServiceBuilder.port("http", 70000, "TCP")));
    assertEquals(List.of("spec.ports[0].port"), portErrors(ServiceBuilder.port("http", 0, "TCP")));
    assertEquals(List.of("spec.ports[0].protocol"), portErrors(ServiceBuilder.port("http", 80, "ICMP")));
    assertEquals(List.of("spec.ports[0].name"), portErrors(ServiceBuilder.port("Http", 80, "TCP")));
    assertEquals(List.of("spec.ports[0].nodePort"), portErrors(ServiceBuilder.nodePort("http", 80, "TCP", 65536)));
    assertEquals(List.of("spec.ports[0].targetPort"),
        portErrors(new Service.Port("http", "TCP", 80, null, null, "way-too-long-port-name")));
    assertEquals(List.of(), portErrors(new Service.Port("http", "TCP", 80, null, null, "http-alt")));
    assertEquals(List.of("spec.ports[1].name"), serviceErrors(s -> s.ports(List.of(
        ServiceBuilder.port("http", 80, null), ServiceBuilder.port("http", 81, null)))));
    assertEquals(List.of("spec.ports[1].name"), serviceErrors(s -> s.ports(List.of(
        ServiceBuilder.port("http", 80, null), ServiceBuilder.port(null, 81, null)))));
  }

  @Test
  void endpointSlices() {
    EndpointSlice.Port http = ClusterObjects.slicePort("http", 8080, "TCP");
    assertEquals(List.of("endpoints[0].addresses[0]"), fields(slice("IPv6", http, "web-abc")));
    assertEquals(List.of("ports[0].protocol", "ports[0].port"),
        fields(slice("IPv4", ClusterObjects.slicePort("http", 70000, "ICMP"), "web-abc")));
    assertEquals(List.of("metadata.name"), fields(slice("IPv4", http, "x".repeat(254))));
    assertEquals(List.of(), fields(slice("IPv4", http, "x".repeat(253))));
  }

  @Test
  void quotedValuesCannotForgeLogLines() {
    assertEquals("\"a\\\"\\u000ab\"", FieldError.quote("a\"\nb"));
    assertTrue(FieldError.quote("x".repeat(300)).endsWith("...(300 characters)\""));
  }
}
