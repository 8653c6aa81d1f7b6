package dev.kubeproxy.server;

import dev.kubeproxy.logging.Log;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import java.time.Duration;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Keeps what HTTP clients can hold on the agent's own ports bounded, so that idle or slow
 * clients never use up the file descriptors the agent needs for its real work.
 * Upstream's Go servers set no timeouts and no limit; this is where the agent deliberately
 * differs.
 *
 * <ul>
 *   <li>A connection with no request in progress is closed after the idle timeout; that also
 *       bounds how long a client may take to send its request headers (Vert.x hands a request
 *       over only once its headers are complete), and how long a request body may trickle in
 *       after the answer.
 *   <li>At most {@code limit} connections are open at once (one guard can cover several servers,
 *       e.g. every health-check node port). A new connection beyond the limit closes the
 *       connection that has been idle longest, so a flood of idle connections cannot keep a
 *       real probe out; only when every connection has a request in progress is the newcomer
 *       closed.
 *   <li>{@link #serverOptions} turns HTTP/2 off (no h2c upgrade, no prior-knowledge preface, no
 *       ALPN): the ports speak HTTP/1.1 only, as upstream's do.
 * </ul>
 *
 * <p>A guard belongs to the verticle that creates its servers and is used on that verticle's
 * event loop; the methods are synchronized anyway, as a request may come through another loop.
 */
public final class ConnectionGuard {
  /** Connections the healthz port and the metrics port each keep at most. */
  public static final int SERVER_LIMIT = 128;
  /** Connections all health-check node ports together keep at most. */
  public static final int SERVICE_HEALTH_LIMIT = 256;
  /** How long a connection may stay open with no request in progress. */
  public static final Duration IDLE_TIMEOUT = Duration.ofSeconds(30);

  private final Vertx vertx;
  private final String name;
  private final int limit;
  private final long idleMillis;
  /** Open connections, the one idle longest first. */
  private final Map<HttpConnection, Tracked> open = new LinkedHashMap<>();
  private long evicted;
  private long refused;

  private static final class Tracked {
    /** The response of the latest request; null before the first. */
    HttpServerResponse current;
    long idleTimer = -1;

    boolean busy() {
      return current != null && !current.ended() && !current.closed();
    }
  }

  /**
   * @param name for log lines, e.g. "healthz"
   */
  public ConnectionGuard(Vertx vertx, String name, int limit, Duration idleTimeout) {
    if (limit < 1) {
      throw new IllegalArgumentException("limit must be at least 1");
    }
    this.vertx = vertx;
    this.name = name;
    this.limit = limit;
    this.idleMillis = Math.max(1, idleTimeout.toMillis());
  }

  /** HTTP/1.1 only: no h2c upgrade or prior knowledge, no ALPN. */
  public static HttpServerOptions serverOptions(HttpServerOptions base) {
    return new HttpServerOptions(base).setHttp2ClearTextEnabled(false).setUseAlpn(false);
  }

  /** Creates a server with these options that this guard watches and that hands requests to {@code handler}. */
  public HttpServer createServer(HttpServerOptions options, Handler<HttpServerRequest> handler) {
    HttpServer server = vertx.createHttpServer(serverOptions(options));
    server.connectionHandler(this::opened);
    server.requestHandler(req -> {
      started(req);
      handler.handle(req);
    });
    return server;
  }

  /** Connections open now (for tests and logs). */
  public synchronized int openConnections() {
    return open.size();
  }

  /** Idle connections closed to make room, and newcomers closed because every connection was busy. */
  public synchronized long evicted() {
    return evicted;
  }

  public synchronized long refused() {
    return refused;
  }

  private synchronized void opened(HttpConnection conn) {
    if (open.size() >= limit && !evictIdlest()) {
      refused++;
      logFull("every connection has a request in progress; closing the new one");
      conn.close();
      return;
    }
    Tracked t = new Tracked();
    open.put(conn, t);
    conn.closeHandler(v -> closed(conn));
    armIdleTimer(conn, t);
  }

  /** Closes the connection idle longest; false when every connection is busy. */
  private boolean evictIdlest() {
    for (Iterator<Map.Entry<HttpConnection, Tracked>> it = open.entrySet().iterator(); it.hasNext(); ) {
      Map.Entry<HttpConnection, Tracked> e = it.next();
      if (!e.getValue().busy()) {
        it.remove();
        cancelTimer(e.getValue());
        evicted++;
        logFull("closing the connection idle longest");
        e.getKey().close();
        return true;
      }
    }
    return false;
  }

  private void logFull(String action) {
    long events = evicted + refused;
    if (events == 1 || events % 1000 == 0) { // a flood must not flood the log too
      Log.info("HTTP connection limit reached", "server", name, "limit", limit, "action", action,
          "evicted", evicted, "refused", refused);
    }
  }

  private synchronized void started(HttpServerRequest req) {
    HttpConnection conn = req.connection();
    Tracked t = open.remove(conn);
    if (t == null) {
      return; // closed meanwhile (or refused): Vert.x drops its answer
    }
    t.current = req.response();
    open.put(conn, t); // now the most recently active: evicted last
    armIdleTimer(conn, t);
  }

  private synchronized void closed(HttpConnection conn) {
    Tracked t = open.remove(conn);
    if (t != null) {
      cancelTimer(t);
    }
  }

  private void armIdleTimer(HttpConnection conn, Tracked t) {
    cancelTimer(t);
    t.idleTimer = vertx.setTimer(idleMillis, id -> idleExpired(conn, t, id));
  }

  /**
   * The timer runs from the start of the latest request: a connection still answering is looked
   * at again one timeout later; one that has answered has been idle for (about) the timeout.
   */
  private synchronized void idleExpired(HttpConnection conn, Tracked t, long id) {
    if (t.idleTimer != id) {
      return;
    }
    t.idleTimer = -1;
    if (t.busy()) {
      armIdleTimer(conn, t);
      return;
    }
    open.remove(conn);
    conn.close();
  }

  private void cancelTimer(Tracked t) {
    if (t.idleTimer >= 0) {
      vertx.cancelTimer(t.idleTimer);
      t.idleTimer = -1;
    }
  }
}
