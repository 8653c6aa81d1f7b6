package dev.kubeproxy.testapi;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;

/**
 * A list answer written in pieces: the list's head, then its items' JSON in batches written with
 * back-pressure, so a list of hundreds of thousands of objects is never one buffer in memory. Also
 * the continue token of a paged list (limit/continue), as the API server hands it out: opaque to
 * the client.
 */
final class ListAnswer {
  private static final int BATCH = 500;

  private ListAnswer() {}

  /** Where a paged list goes on: the resourceVersion of its first page and the last key served. */
  record Continue(long resourceVersion, String afterKey) {
    String encode() {
      return Base64.getUrlEncoder().withoutPadding()
          .encodeToString((resourceVersion + "/" + afterKey).getBytes(StandardCharsets.UTF_8));
    }

    /** The token's content, or null when it is not one this server handed out. */
    static Continue decode(String token) {
      try {
        String text = new String(Base64.getUrlDecoder().decode(token), StandardCharsets.UTF_8);
        int slash = text.indexOf('/');
        return slash < 0 ? null : new Continue(Long.parseLong(text.substring(0, slash)), text.substring(slash + 1));
      } catch (IllegalArgumentException e) {
        return null;
      }
    }
  }

  /**
   * Writes {@code head} (kind, apiVersion, metadata) with {@code items}, each an object's JSON, as
   * its items and ends the response.
   */
  static void stream(HttpServerResponse resp, JsonObject head, List<Buffer> items) {
    String open = head.encode();
    resp.setStatusCode(200).setChunked(true).putHeader("Content-Type", "application/json");
    resp.write(open.substring(0, open.length() - 1) + ",\"items\":[");
    next(resp, items, 0);
  }

  /** Writes batches from {@code from} until the write queue is full, then goes on when it drains. */
  private static void next(HttpServerResponse resp, List<Buffer> items, int from) {
    for (int at = from; !resp.closed(); ) {
      if (at >= items.size()) {
        resp.end("]}");
        return;
      }
      int to = Math.min(items.size(), at + BATCH);
      resp.write(batch(items, at, to));
      at = to;
      if (resp.writeQueueFull()) {
        int resume = at;
        resp.drainHandler(v -> {
          resp.drainHandler(null); // once: later drains belong to later batches
          next(resp, items, resume);
        });
        return;
      }
    }
  }

  private static Buffer batch(List<Buffer> items, int from, int to) {
    Buffer out = Buffer.buffer(1024 * (to - from));
    for (int i = from; i < to; i++) {
      if (i > 0) {
        out.appendByte((byte) ',');
      }
      out.appendBuffer(items.get(i));
    }
    return out;
  }
}
