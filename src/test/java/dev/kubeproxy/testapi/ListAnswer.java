package dev.kubeproxy.testapi;

import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;

/**
 * A list answer written as it is encoded: the list's head, then its items in batches encoded on a
 * worker and written with back-pressure, so a list of hundreds of thousands of objects is neither
 * one buffer in memory nor an event loop blocked while it is encoded. Also the continue token of
 * a paged list (limit/continue), as the API server hands it out: opaque to the client.
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
   * Writes {@code head} (kind, apiVersion, metadata) with {@code items} as its items and ends the
   * response. The items must not change while they are written (stored objects are replaced,
   * never mutated in place).
   */
  static void stream(Vertx vertx, HttpServerResponse resp, JsonObject head, List<JsonObject> items) {
    String open = head.encode();
    resp.setStatusCode(200).setChunked(true).putHeader("Content-Type", "application/json");
    resp.write(open.substring(0, open.length() - 1) + ",\"items\":[");
    next(vertx, resp, items, 0);
  }

  private static void next(Vertx vertx, HttpServerResponse resp, List<JsonObject> items, int from) {
    if (resp.closed()) {
      return;
    }
    if (from >= items.size()) {
      resp.end("]}");
      return;
    }
    int to = Math.min(items.size(), from + BATCH);
    vertx.executeBlocking(() -> encode(items, from, to), false).onComplete(ar -> {
      if (ar.failed() || resp.closed()) {
        resp.reset(); // the client sees a broken answer, never a truncated list that parses
        return;
      }
      resp.write(ar.result());
      if (resp.writeQueueFull()) {
        resp.drainHandler(v -> {
          resp.drainHandler(null); // once: later drains belong to later batches
          next(vertx, resp, items, to);
        });
      } else {
        next(vertx, resp, items, to);
      }
    });
  }

  private static Buffer encode(List<JsonObject> items, int from, int to) {
    Buffer out = Buffer.buffer(1024 * (to - from));
    for (int i = from; i < to; i++) {
      if (i > 0) {
        out.appendByte((byte) ',');
      }
      out.appendBuffer(items.get(i).toBuffer());
    }
    return out;
  }
}
