package dev.kubeproxy.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kubernetes.client.custom.IntOrString;
import io.kubernetes.client.openapi.models.V1ClientIPConfig;
import io.kubernetes.client.openapi.models.V1EndpointSlice;
import io.kubernetes.client.openapi.models.V1Service;
import io.kubernetes.client.openapi.models.V1ServicePort;
import io.kubernetes.client.openapi.models.V1SessionAffinityConfig;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/** The API server's rules for the Service and EndpointSlice fields kube-proxy reads. */
class ObjectValidatorTest {
  private static V1Service good() {
    return Fixtures.service("demo", "web", "10.96.0.10", null);
  }

  /** The fields rejected after one change to a good Service. */
  private static List<String> serviceErrors(Consumer<V1Service> change) {
    V1Service s = good();
    change.accept(s);
    return ObjectValidator.service(s).stream().map(ObjectValidator.FieldError::field).toList();
  }

  @Test
  void goodObjectsPassWithDefaultedFieldsLeftOut() {
    assertEquals(List.of(), ObjectValidator.service(good()));
    assertEquals(List.of(), serviceErrors(s -> s.getSpec().type(null).getPorts().get(0).protocol(null)));
    assertEquals(List.of(), serviceErrors(s -> s.getMetadata().name("a".repeat(63)).namespace("n".repeat(63))));
    assertEquals(List.of(), serviceErrors(s -> s.getSpec().clusterIP("None").clusterIPs(List.of("None")).ports(List.of())));
    assertEquals(List.of(), ObjectValidator.endpointSlice(Fixtures.slice("demo", "web", "web-abc", 3, "node-1")));
  }

  @Test
  void serviceFieldsAsTheApiServerChecksThem() {
    assertEquals(List.of("metadata.name"), serviceErrors(s -> s.getMetadata().name("Web")));
    assertEquals(List.of("metadata.name"), serviceErrors(s -> s.getMetadata().name("1web")));
    assertEquals(List.of("metadata.name"), serviceErrors(s -> s.getMetadata().name("w".repeat(64))));
    assertEquals(List.of("metadata.name"), serviceErrors(s -> s.getMetadata().name("web\"\n-A X")));
    assertEquals(List.of("metadata.namespace"), serviceErrors(s -> s.getMetadata().namespace("Demo")));
    assertEquals(List.of("metadata.labels"), serviceErrors(s -> s.getMetadata().labels(java.util.Map.of("a b", "c"))));
    assertEquals(List.of("spec.type"), serviceErrors(s -> s.getSpec().type("Magic")));
    assertEquals(List.of("spec.clusterIP", "spec.clusterIPs[0]"),
        serviceErrors(s -> s.getSpec().clusterIP("10.96.0.300").clusterIPs(List.of("10.96.0.300"))));
    assertEquals(List.of("spec.clusterIPs[0]"), serviceErrors(s -> s.getSpec().clusterIPs(List.of("10.96.0.11"))));
    assertEquals(List.of("spec.ipFamilies[0]"), serviceErrors(s -> s.getSpec().ipFamilies(List.of("IPv5"))));
    assertEquals(List.of("spec.ipFamilyPolicy"), serviceErrors(s -> s.getSpec().ipFamilyPolicy("Sometimes")));
    assertEquals(List.of("spec.sessionAffinity"), serviceErrors(s -> s.getSpec().sessionAffinity("Sticky")));
    for (int bad : new int[] {0, -5, 86401, Integer.MAX_VALUE}) {
      assertEquals(List.of("spec.sessionAffinityConfig.clientIP.timeoutSeconds"), serviceErrors(s -> s.getSpec()
          .sessionAffinity("ClientIP").sessionAffinityConfig(new V1SessionAffinityConfig().clientIP(new V1ClientIPConfig().timeoutSeconds(bad)))));
    }
    assertEquals(List.of(), serviceErrors(s -> s.getSpec().sessionAffinity("ClientIP")
        .sessionAffinityConfig(new V1SessionAffinityConfig().clientIP(new V1ClientIPConfig().timeoutSeconds(86400)))));
    assertEquals(List.of("spec.externalTrafficPolicy"), serviceErrors(s -> s.getSpec().externalTrafficPolicy("Nearby")));
    assertEquals(List.of("spec.internalTrafficPolicy"), serviceErrors(s -> s.getSpec().internalTrafficPolicy("Nearby")));
    assertEquals(List.of("spec.externalIPs[0]"), serviceErrors(s -> s.getSpec().externalIPs(List.of("example.com"))));
    assertEquals(List.of("spec.loadBalancerSourceRanges[0]"), serviceErrors(s -> s.getSpec().loadBalancerSourceRanges(List.of("10.0.0.0/33"))));
    assertEquals(List.of("spec.healthCheckNodePort"), serviceErrors(s -> s.getSpec().healthCheckNodePort(70000)));
  }

  @Test
  void servicePorts() {
    assertEquals(List.of("spec.ports"), serviceErrors(s -> s.getSpec().ports(List.of())));
    assertEquals(List.of("spec.ports[0].port"), serviceErrors(s -> s.getSpec().getPorts().get(0).port(70000)));
    assertEquals(List.of("spec.ports[0].port"), serviceErrors(s -> s.getSpec().getPorts().get(0).port(0)));
    assertEquals(List.of("spec.ports[0].protocol"), serviceErrors(s -> s.getSpec().getPorts().get(0).protocol("ICMP")));
    assertEquals(List.of("spec.ports[0].name"), serviceErrors(s -> s.getSpec().getPorts().get(0).name("Http")));
    assertEquals(List.of("spec.ports[0].nodePort"), serviceErrors(s -> s.getSpec().getPorts().get(0).nodePort(65536)));
    assertEquals(List.of("spec.ports[0].targetPort"),
        serviceErrors(s -> s.getSpec().getPorts().get(0).targetPort(new IntOrString("way-too-long-port-name"))));
    assertEquals(List.of(), serviceErrors(s -> s.getSpec().getPorts().get(0).targetPort(new IntOrString("http-alt"))));
    assertEquals(List.of("spec.ports[1].name"), serviceErrors(s -> s.getSpec().ports(List.of(
        new V1ServicePort().name("http").port(80), new V1ServicePort().name("http").port(81)))));
    assertEquals(List.of("spec.ports[1].name"), serviceErrors(s -> s.getSpec().ports(List.of(
        new V1ServicePort().name("http").port(80), new V1ServicePort().port(81)))));
  }

  @Test
  void endpointSlices() {
    V1EndpointSlice s = Fixtures.slice("demo", "web", "web-abc", 1, "node-1");
    s.addressType("IPv6");
    assertEquals(List.of("endpoints[0].addresses[0]"), ObjectValidator.endpointSlice(s).stream().map(ObjectValidator.FieldError::field).toList());
    s = Fixtures.slice("demo", "web", "web-abc", 1, "node-1");
    s.getPorts().get(0).port(70000).protocol("ICMP");
    assertEquals(List.of("ports[0].protocol", "ports[0].port"), ObjectValidator.endpointSlice(s).stream().map(ObjectValidator.FieldError::field).toList());
    s = Fixtures.slice("demo", "web", "web-abc", 1, "node-1");
    s.getMetadata().name("x".repeat(254));
    assertEquals(List.of("metadata.name"), ObjectValidator.endpointSlice(s).stream().map(ObjectValidator.FieldError::field).toList());
    s.getMetadata().name("x".repeat(253));
    assertEquals(List.of(), ObjectValidator.endpointSlice(s));
  }

  @Test
  void quotedValuesCannotForgeLogLines() {
    assertEquals("\"a\\\"\\u000ab\"", ObjectValidator.quote("a\"\nb"));
    assertTrue(ObjectValidator.quote("x".repeat(300)).endsWith("...(300 characters)\""));
  }
}
