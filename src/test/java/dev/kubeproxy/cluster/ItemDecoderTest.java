package dev.kubeproxy.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.kubeproxy.model.objects.ObjectDecoder;
import dev.kubeproxy.model.objects.ObjectList;
import dev.kubeproxy.model.objects.Service;
import dev.kubeproxy.testutil.tier.Unit;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A list answer decoded item by item as it streams in; one bad item is reported and the rest count. */
@Unit
class ItemDecoderTest {
  private final List<String> reported = new ArrayList<>();
  private final ItemDecoder<Service> decoder = new ItemDecoder<>("Service", ObjectDecoder.SERVICE,
      (namespace, name, problem) -> reported.add(namespace + "/" + name + ": " + problem));

  private static String service(String name, String spec) {
    return "{\"metadata\":{\"namespace\":\"ns\",\"name\":\"" + name + "\"},\"spec\":" + spec + "}";
  }

  @Test
  void aListKeepsEveryItemThatDecodes() throws Exception {
    String body = "{\"kind\":\"ServiceList\",\"apiVersion\":\"v1\",\"items\":["
        + service("a", "{\"ports\":[{\"port\":80}]}") + ","
        // the bad field deep inside, before the metadata: the rest of the item is passed over
        + "{\"spec\":{\"ports\":[{\"port\":{\"nested\":[1,{\"x\":2}]}}]},\"metadata\":{\"namespace\":\"ns\",\"name\":\"b\"}},"
        + service("c", "{\"ports\":[{\"port\":82}]}")
        + "],\"metadata\":{\"resourceVersion\":\"42\",\"continue\":\"\"}}";
    ObjectList<Service> list = decoder.list(new ByteArrayInputStream(body.getBytes(StandardCharsets.UTF_8)));
    assertEquals("42", list.getMetadata().getResourceVersion());
    assertEquals(List.of("a", "c"), list.getItems().stream().map(s -> s.metadata().name()).toList());
    assertEquals(82, list.getItems().get(1).ports().get(0).port());
    assertEquals(List.of("ns/b: Service does not decode: spec.ports[0].port: expected a 32-bit integer, got an object"),
        reported);
  }

  @Test
  void aWatchedObjectThatDoesNotDecodeStillHasItsKey() throws Exception {
    var tree = ItemDecoder.JSON.readTree(service("d", "{\"ports\":\"eighty\"}"));
    ObjectDecoder.Decoded<Service> decoded = decoder.decode(tree);
    assertEquals("ns/d", decoded.object().metadata().key());
    assertNull(decoder.decodeOrReport(decoded));
    assertEquals(List.of("ns/d: Service does not decode: spec.ports: expected an array, got \"eighty\""), reported);
  }
}
