package dev.kubeproxy.model.objects;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.kubeproxy.testutil.tier.Unit;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Reading the lean objects from the API's JSON and from YAML, as upstream's Go decoder reads them. */
@Unit
class ObjectDecoderTest {
  private static final JsonFactory JSON = new JsonFactory();
  private static final JsonFactory YAML = new YAMLFactory();

  /** The object in text, which must decode without a problem; the parser must end on its END_OBJECT. */
  private static <T> T read(ObjectDecoder.Reader<T> reader, JsonFactory format, String text, String namespace)
      throws IOException {
    ObjectDecoder.Decoded<T> decoded = decode(reader, format, text, namespace);
    assertNull(decoded.problem());
    return decoded.object();
  }

  private static <T> T json(ObjectDecoder.Reader<T> reader, String text) throws IOException {
    return read(reader, JSON, text, "");
  }

  private static <T> ObjectDecoder.Decoded<T> decode(ObjectDecoder.Reader<T> reader, JsonFactory format, String text,
      String namespace) throws IOException {
    try (JsonParser p = format.createParser(text)) {
      p.nextToken();
      ObjectDecoder.Decoded<T> decoded = reader.read(p, namespace);
      assertEquals(JsonToken.END_OBJECT, p.currentToken(), "the parser ends on the object's end");
      assertNull(p.nextToken(), "nothing after the object was read");
      return decoded;
    }
  }

  private static String problem(ObjectDecoder.Reader<?> reader, String json) throws IOException {
    return decode(reader, JSON, json, "").problem();
  }

  @Test
  void clusterIpsFirstEntryIsTheClusterIpStringItself() throws Exception {
    Service same = json(ObjectDecoder.SERVICE, """
        {"metadata":{"name":"a"},"spec":{"clusterIP":"10.96.0.10","clusterIPs":["10.96.0.10","fd00::10"]}}""");
    assertSame(same.clusterIP(), same.clusterIPs().get(0));
    assertEquals(List.of("10.96.0.10", "fd00::10"), same.clusterIPs());
    Service other = json(ObjectDecoder.SERVICE, """
        {"metadata":{"name":"b"},"spec":{"clusterIP":"10.96.0.10","clusterIPs":["10.96.0.11"]}}""");
    assertEquals(List.of("10.96.0.11"), other.clusterIPs());
  }

  @Test
  void serviceKeepsWhatKubeProxyReadsAndIgnoresTheRest() throws Exception {
    Service s = json(ObjectDecoder.SERVICE, """
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
        """);
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
  void aKnownFieldOfTheWrongTypeIsAProblemNamingIt() throws Exception {
    assertEquals("spec.ports[1].port: expected a 32-bit integer, got \"eighty\"", problem(ObjectDecoder.SERVICE,
        "{\"metadata\":{\"name\":\"x\"},\"spec\":{\"ports\":[{\"port\":80},{\"port\":\"eighty\"}]}}"));
    assertEquals("metadata.labels.a: expected a string, got 5", problem(ObjectDecoder.ENDPOINT_SLICE,
        "{\"metadata\":{\"name\":\"x\",\"labels\":{\"a\":5}}}"));
    assertEquals("endpoints[0].conditions.ready: expected a boolean, got \"yes\"", problem(ObjectDecoder.ENDPOINT_SLICE,
        "{\"endpoints\":[{\"addresses\":[\"10.0.0.1\"],\"conditions\":{\"ready\":\"yes\"}}]}"));
    assertEquals("spec.ports[0].port: expected a 32-bit integer, got 4294967376", problem(ObjectDecoder.SERVICE,
        "{\"spec\":{\"ports\":[{\"port\":4294967376}]}}"));
    assertEquals("spec: expected an object, got an array", problem(ObjectDecoder.SERVICE,
        "{\"spec\":[{\"ports\":[]}]}"));
    assertEquals("spec.clusterIPs[1]: expected a string, got an object",
        problem(ObjectDecoder.SERVICE, "{\"spec\":{\"clusterIPs\":[\"10.96.0.1\",{\"a\":1}]}}"));
    assertEquals("status.addresses: expected an array, got \"10.0.0.1\"", problem(ObjectDecoder.NODE,
        "{\"status\":{\"addresses\":\"10.0.0.1\"}}"));
    assertEquals("spec.ports[0].targetPort: expected a 32-bit integer, got 80.5", problem(ObjectDecoder.SERVICE,
        "{\"spec\":{\"ports\":[{\"targetPort\":80.5}]}}"));
    assertEquals("metadata.annotations.b: expected a string, got true", problem(ObjectDecoder.SERVICE,
        "{\"metadata\":{\"annotations\":{\"a\":\"x\",\"b\":true}}}"), "an annotation not kept is still checked");
    String longValue = "\"" + "x".repeat(60) + "\"";
    assertEquals("spec.ports[0].port: expected a 32-bit integer, got \"" + "x".repeat(39) + "...",
        problem(ObjectDecoder.SERVICE, "{\"spec\":{\"ports\":[{\"port\":" + longValue + "}]}}"));
  }

  /**
   * As Go's decoder, the rest of an object is read past a field of the wrong type, and the first
   * such field in the document is the one named: the report can name an object whose metadata
   * comes after its bad field, and a deleted object still counts by its key.
   */
  @Test
  void anObjectIsReadPastItsFirstBadField() throws Exception {
    ObjectDecoder.Decoded<Service> d = decode(ObjectDecoder.SERVICE, JSON, """
        {"spec":{"ports":[{"port":"eighty","protocol":"TCP"},{"port":[1,[2]]}],"clusterIP":"10.96.0.1","type":{"a":{}}},
         "metadata":{"namespace":"shop","name":"web","resourceVersion":"9"}}
        """, "");
    assertEquals("spec.ports[0].port: expected a 32-bit integer, got \"eighty\"", d.problem());
    assertEquals("shop/web", d.object().metadata().key());
    assertEquals("9", d.object().metadata().resourceVersion());
    assertEquals("10.96.0.1", d.object().clusterIP(), "the fields after the bad ones are read");
    assertEquals("TCP", d.object().ports().get(0).protocol());
    assertNull(d.object().ports().get(0).port());
    assertNull(d.object().type());
  }

  @Test
  void endpointSliceConditionsHintsAndNullEntriesAsGoReadsThem() throws Exception {
    EndpointSlice s = read(ObjectDecoder.ENDPOINT_SLICE, YAML, """
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
        """, "default");
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
  void readingStartsAfterFieldsTheCallerHasRead() throws Exception {
    try (JsonParser p = YAML.createParser("apiVersion: v1\nkind: Node\nmetadata: {name: node-a}\nspec: {podCIDR: 10.244.0.0/24}\n")) {
      p.nextToken();
      while (!"metadata".equals(p.currentName())) { // a manifest reader has read apiVersion and kind
        p.nextToken();
      }
      ObjectDecoder.Decoded<Node> d = ObjectDecoder.NODE.read(p, "");
      assertNull(d.problem());
      assertEquals("node-a", d.object().metadata().name());
      assertEquals("10.244.0.0/24", d.object().podCIDR());
      assertEquals(JsonToken.END_OBJECT, p.currentToken());
    }
    try (JsonParser p = JSON.createParser("{\"apiVersion\":\"v1\",\"kind\":\"Node\"}")) {
      p.nextToken();
      while (p.nextToken() != JsonToken.END_OBJECT) { // past apiVersion and kind
        assertTrue(p.currentToken().isScalarValue() || p.currentToken() == JsonToken.FIELD_NAME);
      }
      assertEquals("", ObjectDecoder.NODE.read(p, "").object().metadata().name(), "nothing after apiVersion and kind");
      assertEquals(JsonToken.END_OBJECT, p.currentToken());
    }
  }

  @Test
  void goZeroValuesForMissingNamesAndTheLastOfARepeatedField() throws Exception {
    EndpointSlice s = json(ObjectDecoder.ENDPOINT_SLICE, """
        {"metadata":{"name":"a","name":"b"},"endpoints":[{"addresses":["10.0.0.1",null],
          "hints":{"forZones":[{"name":"z1"},{},null]}}],"ports":[{"port":80}],"ports":[{"port":81}]}
        """);
    assertEquals("b", s.metadata().name());
    assertEquals(List.of("10.0.0.1", ""), s.endpoints().get(0).addresses());
    assertEquals(List.of("z1", "", ""), s.endpoints().get(0).zoneHints());
    assertEquals(List.of(new EndpointSlice.Port(null, null, 81)), s.ports());
    Node n = json(ObjectDecoder.NODE, "{\"metadata\":{\"name\":\"n\"},\"spec\":{\"taints\":[{\"effect\":\"NoSchedule\"}]}}");
    assertEquals(List.of(""), n.taintKeys());
    Service empty = json(ObjectDecoder.SERVICE, "{}");
    assertEquals("", empty.metadata().name());
    assertEquals(List.of(), empty.ports());
    assertNull(json(ObjectDecoder.SERVICE, "{\"spec\":null}").type());
  }

  @Test
  void repeatedValuesAreShared() throws Exception {
    String slice = "{\"metadata\":{\"namespace\":\"ns-1\",\"name\":\"%s\",\"labels\":{\"kubernetes.io/service-name\":\"web\"}},"
        + "\"endpoints\":[{\"addresses\":[\"10.0.0.1\"],\"nodeName\":\"node-a\",\"zone\":\"z\"}],"
        + "\"ports\":[{\"name\":\"http\",\"protocol\":\"TCP\",\"port\":8080}]}";
    EndpointSlice a = json(ObjectDecoder.ENDPOINT_SLICE, String.format(slice, "a"));
    EndpointSlice b = json(ObjectDecoder.ENDPOINT_SLICE, String.format(slice, "b"));
    assertSame(a.metadata().namespace(), b.metadata().namespace());
    assertSame(a.endpoints().get(0).nodeName(), b.endpoints().get(0).nodeName());
    assertSame(a.endpoints().get(0).zone(), b.endpoints().get(0).zone());
    assertSame(a.ports().get(0).name(), b.ports().get(0).name());
    assertSame(a.metadata().labels().get("kubernetes.io/service-name"), b.metadata().labels().get("kubernetes.io/service-name"));
    String service = "{\"metadata\":{\"name\":\"%s\"},\"spec\":{\"clusterIP\":\"%s\",\"ipFamilies\":[\"IPv4\"]}}";
    Service x = json(ObjectDecoder.SERVICE, String.format(service, "x", "10.96.0.10"));
    Service y = json(ObjectDecoder.SERVICE, String.format(service, "y", "10.96.0.11"));
    assertSame(x.ipFamilies(), y.ipFamilies());
    assertEquals(List.of("IPv4"), x.ipFamilies());
    assertSame(a.ports().get(0).port(), b.ports().get(0).port(), "a port number beyond Integer's own cache");
    Service web = json(ObjectDecoder.SERVICE, String.format(service, "web", "10.96.0.12"));
    assertSame(web.metadata().name(), a.metadata().labels().get("kubernetes.io/service-name"),
        "a Service's name and its slices' label");
  }

  @Test
  void nodeAndServiceCidr() throws Exception {
    Node n = read(ObjectDecoder.NODE, JSON, """
        {"metadata":{"name":"node-a","labels":{"topology.kubernetes.io/zone":"z1"},"deletionTimestamp":"2024-01-01T00:00:00Z"},
         "spec":{"podCIDR":"10.244.1.0/24","podCIDRs":["10.244.1.0/24","fd00:1::/64"],
                 "taints":[{"key":"ToBeDeletedByClusterAutoscaler","value":"1","effect":"NoSchedule"}]},
         "status":{"addresses":[{"type":"InternalIP","address":"192.168.200.10"}],"images":[{"names":["x"]}]}}
        """, "default");
    assertEquals("node-a", n.metadata().key(), "cluster-scoped: no default namespace");
    assertEquals("2024-01-01T00:00:00Z", n.metadata().deletionTimestamp());
    assertEquals(List.of("10.244.1.0/24", "fd00:1::/64"), n.podCIDRs());
    assertEquals(List.of("ToBeDeletedByClusterAutoscaler"), n.taintKeys());
    assertEquals(List.of(new Node.Address("InternalIP", "192.168.200.10")), n.addresses());
    ServiceCidr c = json(ObjectDecoder.SERVICE_CIDR, "{\"metadata\":{\"name\":\"kubernetes\"},\"spec\":{\"cidrs\":[\"10.96.0.0/16\"]}}");
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
