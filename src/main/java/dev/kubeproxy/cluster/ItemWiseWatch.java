package dev.kubeproxy.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import dev.kubeproxy.model.objects.ClusterObject;
import dev.kubeproxy.model.objects.ObjectDecoder;
import io.kubernetes.client.openapi.models.V1Status;
import io.kubernetes.client.util.Watch;
import io.kubernetes.client.util.Watchable;
import java.io.IOException;
import java.util.Iterator;
import java.util.NoSuchElementException;

/**
 * A watch answer read event by event (one JSON object per event, {"type": ..., "object": ...}),
 * each object decoded through {@link ItemDecoder}: an added or modified object that does not
 * decode is reported and skipped instead of ending the watch (and every watch after it) with an
 * exception; a deleted one or a bookmark still counts by its metadata. An ERROR event carries the
 * API's Status, as client-java's informers expect.
 */
final class ItemWiseWatch<T extends ClusterObject> implements Watchable<T> {
  private final okhttp3.Response response;
  private final MappingIterator<JsonNode> events;
  private final ItemDecoder<T> decoder;
  private Watch.Response<T> pending;

  ItemWiseWatch(okhttp3.Response response, ItemDecoder<T> decoder) throws IOException {
    this.response = response;
    this.events = ItemDecoder.JSON.readerFor(JsonNode.class).readValues(response.body().byteStream());
    this.decoder = decoder;
  }

  @Override
  public boolean hasNext() {
    while (pending == null && events.hasNext()) {
      pending = decode(events.next());
    }
    return pending != null;
  }

  @Override
  public Watch.Response<T> next() {
    if (!hasNext()) {
      throw new NoSuchElementException();
    }
    Watch.Response<T> out = pending;
    pending = null;
    return out;
  }

  private Watch.Response<T> decode(JsonNode event) {
    String type = event.path("type").asText("");
    JsonNode object = event.get("object");
    if ("ERROR".equals(type)) {
      V1Status status = new V1Status();
      if (object != null) {
        status.code(object.path("code").isInt() ? object.path("code").intValue() : null)
            .message(object.path("message").asText(null)).reason(object.path("reason").asText(null))
            .status(object.path("status").asText(null));
      }
      return new Watch.Response<>(type, status);
    }
    if (object == null || object.isNull()) {
      return null;
    }
    ObjectDecoder.Decoded<T> decoded = decoder.decode(object);
    if (!"BOOKMARK".equals(type) && !decoder.keeps(decoded.object())) {
      return null;
    }
    if ("DELETED".equals(type) || "BOOKMARK".equals(type)) {
      return new Watch.Response<>(type, decoded.object()); // what decodes: at least the key and version count
    }
    T item = decoder.decodeOrReport(decoded);
    return item == null ? null : new Watch.Response<>(type, item);
  }

  @Override
  public Iterator<Watch.Response<T>> iterator() {
    return this;
  }

  @Override
  public void close() throws IOException {
    response.close();
  }
}
