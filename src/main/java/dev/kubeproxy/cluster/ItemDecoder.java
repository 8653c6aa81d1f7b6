package dev.kubeproxy.cluster;

import com.google.gson.Gson;
import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import com.google.gson.stream.JsonReader;
import com.google.gson.stream.JsonToken;
import io.kubernetes.client.common.KubernetesListObject;
import io.kubernetes.client.common.KubernetesObject;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import java.io.IOException;
import java.io.Reader;
import java.util.ArrayList;
import java.util.List;

/**
 * Decodes the objects of a list or watch one at a time. client-java decodes a whole list with one
 * Gson call, so a single item that does not fit its model (a Service with {@code port: "eighty"}:
 * NumberFormatException) failed every list, retried forever, and nothing new was ever seen. Here
 * such an item is left out and reported by namespace and name, and every other item counts. The
 * list body is streamed: one item's tree at a time, never the whole list's.
 */
final class ItemDecoder<T extends KubernetesObject> {
  /** Told about each item left out. */
  interface Reporter {
    void undecodable(String namespace, String name, String problem);
  }

  private final Gson gson;
  private final Class<T> type;
  private final Reporter reporter;

  ItemDecoder(Gson gson, Class<T> type, Reporter reporter) {
    this.gson = gson;
    this.type = type;
    this.reporter = reporter;
  }

  /** The list in this body, with every item that decodes. */
  <L extends KubernetesListObject> L list(Reader body, Class<L> listType) throws IOException {
    JsonReader reader = new JsonReader(body);
    JsonObject rest = new JsonObject();
    List<T> items = new ArrayList<>();
    reader.beginObject();
    while (reader.hasNext()) {
      String field = reader.nextName();
      if (field.equals("items") && reader.peek() == JsonToken.BEGIN_ARRAY) {
        reader.beginArray();
        while (reader.hasNext()) {
          T item = decodeOrReport(JsonParser.parseReader(reader));
          if (item != null) {
            items.add(item);
          }
        }
        reader.endArray();
        rest.add("items", new JsonArray());
      } else {
        rest.add(field, JsonParser.parseReader(reader));
      }
    }
    reader.endObject();
    UnknownFields.prune(rest, listType);
    L list = gson.fromJson(rest, listType);
    try {
      listType.getMethod("setItems", List.class).invoke(list, items);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException(listType.getSimpleName() + " has no setItems(List)", e);
    }
    return list;
  }

  /** The object, or null (reported) when it does not decode. */
  T decodeOrReport(JsonElement item) {
    try {
      UnknownFields.prune(item, type);
      return gson.fromJson(item, type);
    } catch (RuntimeException e) {
      JsonObject meta = metadataOf(item);
      reporter.undecodable(text(meta, "namespace"), text(meta, "name"), type.getSimpleName()
          + " does not decode: " + (e.getCause() != null ? e.getCause().getMessage() : e.getMessage()));
      return null;
    }
  }

  /** The object; throws when it does not decode. */
  T decodeWithoutReport(JsonElement item) {
    UnknownFields.prune(item, type);
    return gson.fromJson(item, type);
  }

  /**
   * An object carrying only this item's metadata: enough for a delete by key or for a bookmark's
   * resourceVersion, when the rest does not decode (a bookmark has none of the required fields).
   */
  T metadataOnly(JsonElement item) {
    try {
      T stub = type.getDeclaredConstructor().newInstance();
      type.getMethod("setMetadata", V1ObjectMeta.class).invoke(stub, gson.fromJson(metadataOf(item), V1ObjectMeta.class));
      return stub;
    } catch (ReflectiveOperationException | RuntimeException e) {
      throw new IllegalStateException("cannot build a " + type.getSimpleName() + " from its metadata: " + e, e);
    }
  }

  private static JsonObject metadataOf(JsonElement item) {
    if (item != null && item.isJsonObject() && item.getAsJsonObject().get("metadata") instanceof JsonObject m) {
      return m;
    }
    return new JsonObject();
  }

  private static String text(JsonObject o, String field) {
    JsonElement e = o.get(field);
    return e != null && e.isJsonPrimitive() ? e.getAsString() : "";
  }
}
