package dev.kubeproxy.cluster;

import com.google.gson.JsonElement;
import io.kubernetes.client.common.KubernetesObject;
import io.kubernetes.client.util.Watch;
import io.kubernetes.client.util.Watchable;
import java.io.IOException;
import java.util.Iterator;
import java.util.NoSuchElementException;

/**
 * A watch whose events are decoded one by one through {@link ItemDecoder}: an added or modified
 * object that does not decode is reported and skipped instead of ending the watch (and every
 * watch after it) with an exception; a deleted one or a bookmark still counts by its metadata.
 */
final class ItemWiseWatch<T extends KubernetesObject> implements Watchable<T> {
  private final Watch<JsonElement> raw;
  private final ItemDecoder<T> decoder;
  private Watch.Response<T> pending;

  ItemWiseWatch(Watch<JsonElement> raw, ItemDecoder<T> decoder) {
    this.raw = raw;
    this.decoder = decoder;
  }

  @Override
  public boolean hasNext() {
    while (pending == null && raw.hasNext()) {
      pending = decode(raw.next());
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

  private Watch.Response<T> decode(Watch.Response<JsonElement> event) {
    if (event.object == null) {
      return new Watch.Response<>(event.type, event.status);
    }
    boolean byMetadata = "DELETED".equals(event.type) || "BOOKMARK".equals(event.type);
    if (byMetadata) {
      try {
        return new Watch.Response<>(event.type, decoder.decodeWithoutReport(event.object));
      } catch (RuntimeException e) {
        return new Watch.Response<>(event.type, decoder.metadataOnly(event.object));
      }
    }
    T object = decoder.decodeOrReport(event.object);
    return object == null ? null : new Watch.Response<>(event.type, object);
  }

  @Override
  public Iterator<Watch.Response<T>> iterator() {
    return this;
  }

  @Override
  public void close() throws IOException {
    raw.close();
  }
}
