package dev.kubeproxy.cluster.objects;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Reading the lean objects from the API's JSON and from YAML, as upstream's Go decoder reads them. */
class ObjectDecoderTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  private static JsonNode json(String text) throws Exception {
    return JSON.readTree(text);
  }

  @Test
  void serviceKeepsWhatKubeProxyReadsAndIgnoresTheRest() throws Exception {
    Service s = ObjectDecoder.service(json("""
        {"apiVersion":"v1","kind":"Service","metadata":{"namespace":"shop","name":"web","resourceVersion":"7",
          "uid":"u-1","managedFields":[{"manager":"kubectl"}],"labels":{"app":"web"},
          "annotations":{"kubectl.kubernetes.io/last-applied-configuration":"{...}",
                         "service.kubernetes.io/topology-mode":"Auto"}},
         "spec":{"type":"LoadBalancer","clusterIP":"10.96.0.10","clusterIPs":["10.96.0.10"],"ipFamilies":["IPv4"],
          "ports":[{"name":"http","port":80,"protocol":"TCP","targetPort":8080,"nodePort":30080,"appProtocol":"h2"},
                   {"name":"alt","port":81,"targetPort":"web"}],
          "sessionAffinity":"ClientIP","sessionAffinityConfig":{"clientIP":{"timeoutSeconds":600}},
          "externalTrafficPolicy":"Local","healthCheckNodePort":32000,"aFieldFromTheFuture":{"x":1}},
         "status":{"loadBalancer":{"ingress":[{"ip":"192.168.200.50","ipMode":"Proxy","ports":[]}]},
                   "conditions":[]}}
        """), "");
    assertEquals("shop/web", s.metadata().key());
    assertEquals("7", s.metadata().resourceVersion());
    assertEquals(Map.of("app", "web"), s.metadata().labels());
    assertEquals(Map.of("service.kubernetes.io/topology-mode", "Auto"), s.metadata().annotations());
    assertEquals(List.of("kubectl.kubernetes.io/last-applied-configuration", "service.kubernetes.io/topology-mode"),
        s.metadata().annotationKeys());
    assertEquals("LoadBalancer", s.type());
    assertEquals(List.of(new Service.Port("http", "TCP", 80, 30080, 8080, null),
        new Service.Port("alt", null, 81, null, null, "web")), s.ports());
    assertEquals(600, s.clientIPTimeoutSeconds());
    assertEquals(32000, s.healthCheckNodePort());
    assertEquals(List.of(new Service.Ingress("192.168.200.50", null, "Proxy")), s.ingress());
    assertEquals(List.of(), s.externalIPs());
    assertNull(s.internalTrafficPolicy());
  }

  @Test
  void aKnownFieldOfTheWrongTypeIsAnErrorNamingIt() {
    ObjectDecoder.DecodeException e = assertThrows(ObjectDecoder.DecodeException.class, () -> ObjectDecoder.service(
        json("{\"metadata\":{\"name\":\"x\"},\"spec\":{\"ports\":[{\"port\":80},{\"port\":\"eighty\"}]}}"), ""));
    assertEquals("spec.ports[1].port: expected a 32-bit integer, got \"eighty\"", e.getMessage());
    e = assertThrows(ObjectDecoder.DecodeException.class, () -> ObjectDecoder.endpointSlice(
        json("{\"metadata\":{\"name\":\"x\",\"labels\":{\"a\":5}}}"), ""));
    assertEquals("metadata.labels.a: expected a string, got 5", e.getMessage());
    e = assertThrows(ObjectDecoder.DecodeException.class, () -> ObjectDecoder.endpointSlice(
        json("{\"endpoints\":[{\"addresses\":[\"10.0.0.1\"],\"conditions\":{\"ready\":\"yes\"}}]}"), ""));
    assertEquals("endpoints[0].conditions.ready: expected a boolean, got \"yes\"", e.getMessage());
    e = assertThrows(ObjectDecoder.DecodeException.class, () -> ObjectDecoder.service(
        json("{\"spec\":{\"ports\":[{\"port\":4294967376}]}}"), ""));
    assertEquals("spec.ports[0].port: expected a 32-bit integer, got 4294967376", e.getMessage());
  }

  @Test
  void endpointSliceConditionsHintsAndNullEntriesAsGoReadsThem() throws Exception {
    EndpointSlice s = ObjectDecoder.endpointSlice(YAML.readTree("""
        apiVersion: discovery.k8s.io/v1
        kind: EndpointSlice
        metadata: {name: web-abc, labels: {kubernetes.io/service-name: web}}
        addressType: IPv4
        endpoints:
        - addresses: [10.244.0.5]
          nodeName: node-a
          zone: zone-a
          hints: {forZones: [{name: zone-a}], forNodes: [{name: node-a}]}
          targetRef: {kind: Pod, name: web-1}
        - addresses: [10.244.0.6]
          conditions: {ready: false, serving: true, terminating: true}
        - null
        ports:
        - {port: 8080}
        - {name: "", port: 8081, protocol: UDP}
        """), "default");
    assertEquals("default/web-abc", s.metadata().key(), "no namespace: the reader's default");
    EndpointSlice.Endpoint a = s.endpoints().get(0);
    assertEquals(List.of("10.244.0.5"), a.addresses());
    assertNull(a.ready());
    assertEquals("zone-a", a.zone());
    assertEquals(List.of("zone-a"), a.zoneHints());
    assertEquals(List.of("node-a"), a.nodeHints());
    EndpointSlice.Endpoint b = s.endpoints().get(1);
    assertEquals(List.of(false, true, true), List.of(b.ready(), b.serving(), b.terminating()));
    assertEquals(List.of(), s.endpoints().get(2).addresses(), "a null entry is an empty endpoint");
    assertNull(s.ports().get(0).name(), "an absent port name differs from \"\"");
    assertEquals(new EndpointSlice.Port("", "UDP", 8081), s.ports().get(1));
  }

  @Test
  void repeatedValuesAreShared() throws Exception {
    String slice = "{\"metadata\":{\"namespace\":\"ns-1\",\"name\":\"%s\",\"labels\":{\"kubernetes.io/service-name\":\"web\"}},"
        + "\"endpoints\":[{\"addresses\":[\"10.0.0.1\"],\"nodeName\":\"node-a\",\"zone\":\"z\"}],"
        + "\"ports\":[{\"name\":\"http\",\"protocol\":\"TCP\",\"port\":80}]}";
    EndpointSlice a = ObjectDecoder.endpointSlice(json(String.format(slice, "a")), "");
    EndpointSlice b = ObjectDecoder.endpointSlice(json(String.format(slice, "b")), "");
    assertSame(a.metadata().namespace(), b.metadata().namespace());
    assertSame(a.endpoints().get(0).nodeName(), b.endpoints().get(0).nodeName());
    assertSame(a.endpoints().get(0).zone(), b.endpoints().get(0).zone());
    assertSame(a.ports().get(0).name(), b.ports().get(0).name());
    assertSame(a.metadata().labels().get("kubernetes.io/service-name"), b.metadata().labels().get("kubernetes.io/service-name"));
  }

  @Test
  void nodeAndServiceCidr() throws Exception {
    Node n = ObjectDecoder.node(json("""
        {"metadata":{"name":"node-a","labels":{"topology.kubernetes.io/zone":"z1"},"deletionTimestamp":"2024-01-01T00:00:00Z"},
         "spec":{"podCIDR":"10.244.1.0/24","podCIDRs":["10.244.1.0/24","fd00:1::/64"],
                 "taints":[{"key":"ToBeDeletedByClusterAutoscaler","value":"1","effect":"NoSchedule"}]},
         "status":{"addresses":[{"type":"InternalIP","address":"192.168.200.10"}],"images":[{"names":["x"]}]}}
        """), "default");
    assertEquals("node-a", n.metadata().key(), "cluster-scoped: no default namespace");
    assertEquals("2024-01-01T00:00:00Z", n.metadata().deletionTimestamp());
    assertEquals(List.of("10.244.1.0/24", "fd00:1::/64"), n.podCIDRs());
    assertEquals(List.of("ToBeDeletedByClusterAutoscaler"), n.taintKeys());
    assertEquals(List.of(new Node.Address("InternalIP", "192.168.200.10")), n.addresses());
    ServiceCidr c = ObjectDecoder.serviceCidr(json("{\"metadata\":{\"name\":\"kubernetes\"},\"spec\":{\"cidrs\":[\"10.96.0.0/16\"]}}"), "");
    assertEquals(List.of("10.96.0.0/16"), c.cidrs());
  }

  @Test
  void informersSeeOnlyTheKeyAndVersion() {
    Service s = new ServiceBuilder("demo", "web").resourceVersion("5").build();
    assertEquals("demo", s.getMetadata().getNamespace());
    assertEquals("web", s.getMetadata().getName());
    assertEquals("5", s.getMetadata().getResourceVersion());
    s.getMetadata().setName("changed");
    assertEquals("web", s.metadata().name(), "the client-java view is a copy");
  }
}
