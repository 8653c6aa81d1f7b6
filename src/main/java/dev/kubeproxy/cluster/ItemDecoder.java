package dev.kubeproxy.cluster;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kubeproxy.cluster.objects.ObjectDecoder;
import dev.kubeproxy.cluster.objects.ObjectList;
import io.kubernetes.client.common.KubernetesObject;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;

/**
 * Decodes the objects of a list or watch one at a time. One item that does not fit (a Service
 * with {@code port: "eighty"}) is left out and reported by namespace and name, and every other
 * item counts: a whole-list decode would fail every list, retried forever, and nothing new would
 * ever be seen. The list body is streamed: one item's tree at a time, never the whole list's.
 */
final class ItemDecoder<T extends KubernetesObject> {
  static final ObjectMapper JSON = new ObjectMapper();

  /** Told about each item left out. */
  interface Reporter {
    void undecodable(String namespace, String name, String problem);
  }

  private final String kind;
  private final ObjectDecoder.Reader<T> reader;
  private final Reporter reporter;

  /** @param kind the kind's name for messages ("Service") */
  ItemDecoder(String kind, ObjectDecoder.Reader<T> reader, Reporter reporter) {
    this.kind = kind;
    this.reader = reader;
    this.reporter = reporter;
  }

  /** The list in this body (a JSON list answer), with every item that decodes. */
  ObjectList<T> list(InputStream body) throws IOException {
    List<T> items = new ArrayList<>();
    String resourceVersion = null;
    try (JsonParser p = JSON.getFactory().createParser(body)) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        throw new IOException("a list answer is not a JSON object");
      }
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String field = p.currentName();
        JsonToken value = p.nextToken();
        if (field.equals("items") && value == JsonToken.START_ARRAY) {
          while (p.nextToken() != JsonToken.END_ARRAY) {
            T item = decodeOrReport(JSON.readTree(p));
            if (item != null) {
              items.add(item);
            }
          }
        } else if (field.equals("metadata") && value == JsonToken.START_OBJECT) {
          JsonNode meta = JSON.readTree(p);
          resourceVersion = meta.path("resourceVersion").asText(null);
        } else {
          p.skipChildren();
        }
      }
    }
    return new ObjectList<>(resourceVersion, items);
  }

  /** The object, or null (reported) when it does not decode. */
  T decodeOrReport(JsonNode item) {
    try {
      return reader.read(item, "");
    } catch (RuntimeException e) {
      JsonNode meta = item == null ? null : item.path("metadata");
      reporter.undecodable(text(meta, "namespace"), text(meta, "name"), kind + " does not decode: " + e.getMessage());
      return null;
    }
  }

  /** The object; throws when it does not decode. */
  T decodeWithoutReport(JsonNode item) {
    return reader.read(item, "");
  }

  /**
   * An object carrying only this item's metadata: enough for a delete by key or for a bookmark's
   * resourceVersion, when the rest does not decode.
   */
  T metadataOnly(JsonNode item) {
    ObjectNode stub = JSON.createObjectNode();
    if (item != null && item.get("metadata") != null) {
      stub.set("metadata", item.get("metadata"));
    }
    return reader.read(stub, "");
  }

  private static String text(JsonNode o, String field) {
    JsonNode e = o == null ? null : o.get(field);
    return e != null && e.isValueNode() ? e.asText() : "";
  }
}
