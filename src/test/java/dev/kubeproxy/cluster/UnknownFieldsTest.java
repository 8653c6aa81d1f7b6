package dev.kubeproxy.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.google.gson.Gson;
import com.google.gson.JsonElement;
import com.google.gson.JsonParser;
import io.kubernetes.client.openapi.JSON;
import io.kubernetes.client.openapi.models.V1EndpointSlice;
import io.kubernetes.client.openapi.models.V1Node;
import io.kubernetes.client.openapi.models.V1Service;
import org.junit.jupiter.api.Test;

/** Objects from an API server newer than client-java decode, their new fields ignored, as Go's decoder does. */
class UnknownFieldsTest {
  private final Gson gson = new JSON().getGson();

  @Test
  void aServiceWithFieldsNewerThanTheClientDecodes() {
    String text = "{\"apiVersion\":\"v1\",\"kind\":\"Service\",\"futureTop\":{},"
        + "\"metadata\":{\"name\":\"web\",\"namespace\":\"default\",\"futureMeta\":1},"
        + "\"spec\":{\"clusterIP\":\"10.96.0.10\",\"futureSpec\":\"x\","
        + "\"ports\":[{\"name\":\"http\",\"port\":80,\"futurePortField\":true},{\"port\":81}]}}";
    assertThrows(RuntimeException.class, () -> gson.fromJson(text, V1Service.class),
        "client-java itself refuses unknown fields; if it stops, this class can go");
    JsonElement json = JsonParser.parseString(text);
    UnknownFields.prune(json, V1Service.class);
    V1Service svc = gson.fromJson(json, V1Service.class);
    assertEquals("10.96.0.10", svc.getSpec().getClusterIP());
    assertEquals(81, svc.getSpec().getPorts().get(1).getPort());
    assertEquals("web", svc.getMetadata().getName());
  }

  @Test
  void endpointSlicesAndNodesToo() {
    JsonElement slice = JsonParser.parseString("{\"addressType\":\"IPv4\",\"metadata\":{\"name\":\"s\"},"
        + "\"endpoints\":[{\"addresses\":[\"10.0.0.1\"],\"futureEndpointField\":1,"
        + "\"conditions\":{\"ready\":true,\"futureCondition\":true},\"hints\":{\"forZones\":[{\"name\":\"a\",\"x\":1}]}}]}");
    UnknownFields.prune(slice, V1EndpointSlice.class);
    V1EndpointSlice s = gson.fromJson(slice, V1EndpointSlice.class);
    assertEquals("a", s.getEndpoints().get(0).getHints().getForZones().get(0).getName());

    JsonElement node = JsonParser.parseString("{\"metadata\":{\"name\":\"n\",\"labels\":{\"futureLabelKey\":\"kept\"}},"
        + "\"status\":{\"futureStatus\":{\"a\":1},\"addresses\":[{\"type\":\"InternalIP\",\"address\":\"192.0.2.1\",\"z\":0}]}}");
    UnknownFields.prune(node, V1Node.class);
    V1Node n = gson.fromJson(node, V1Node.class);
    assertEquals("192.0.2.1", n.getStatus().getAddresses().get(0).getAddress());
    assertEquals("kept", n.getMetadata().getLabels().get("futureLabelKey"), "map keys are data, not fields");
  }
}
