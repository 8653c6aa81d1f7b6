package dev.kubeproxy.cluster;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kubeproxy.model.objects.ObjectDecoder;
import dev.kubeproxy.model.objects.ObjectList;
import dev.kubeproxy.model.objects.ObjectMeta;
import dev.kubeproxy.model.objects.ClusterObject;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Decodes the objects of a list or watch one at a time. One item that does not fit (a Service
 * with {@code port: "eighty"}) is left out and reported by namespace and name, and every other
 * item counts: a whole-list decode would fail every list, retried forever, and nothing new would
 * ever be seen. The list body is decoded as it streams in: no tree, of the list or of an item.
 */
final class ItemDecoder<T extends ClusterObject> {
  /** The package's one mapper: list bodies' parsers, and the few trees (watch events, a manifest with a late kind). */
  static final ObjectMapper JSON = new ObjectMapper();

  /** Told about each item left out. */
  interface Reporter {
    void undecodable(String namespace, String name, String problem);
  }

  private final String kind;
  private final ObjectDecoder.Reader<T> reader;
  private final Reporter reporter;
  private final java.util.function.Predicate<ClusterObject> keeps;

  /** @param kind the kind's name for messages ("Service") */
  ItemDecoder(String kind, ObjectDecoder.Reader<T> reader, Reporter reporter) {
    this(kind, reader, reporter, o -> true);
  }

  /** @param keeps which decoded objects are passed on (the others are not the agent's) */
  ItemDecoder(String kind, ObjectDecoder.Reader<T> reader, Reporter reporter,
      java.util.function.Predicate<ClusterObject> keeps) {
    this.kind = kind;
    this.reader = reader;
    this.reporter = reporter;
    this.keeps = keeps;
  }

  /** Whether this object is passed on. */
  boolean keeps(T object) {
    return keeps.test(object);
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
            T item = decodeOrReport(reader.read(p, ""));
            if (item != null && keeps(item)) {
              items.add(item);
            }
          }
        } else if (field.equals("metadata") && value == JsonToken.START_OBJECT) {
          while (p.nextToken() == JsonToken.FIELD_NAME) {
            String metaField = p.currentName();
            p.nextToken();
            if (metaField.equals("resourceVersion")) {
              resourceVersion = p.getValueAsString(null);
            }
            p.skipChildren();
          }
        } else {
          p.skipChildren();
        }
      }
    }
    return new ObjectList<>(resourceVersion, items);
  }

  /** The object in this tree (a watch event's), as far as it decodes. */
  ObjectDecoder.Decoded<T> decode(JsonNode item) {
    try (JsonParser p = item.traverse()) {
      p.nextToken();
      return reader.read(p, "");
    } catch (IOException e) {
      throw new UncheckedIOException(e); // a tree in memory has nothing to fail on
    }
  }

  /** The object, or null (reported) when a field does not decode. */
  T decodeOrReport(ObjectDecoder.Decoded<T> decoded) {
    if (decoded.problem() == null) {
      return decoded.object();
    }
    ObjectMeta meta = decoded.object().metadata();
    reporter.undecodable(meta.namespace(), meta.name(), kind + " does not decode: " + decoded.problem());
    return null;
  }
}
