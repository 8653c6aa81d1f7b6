package dev.kubeproxy.server;

import dev.kubeproxy.messages.ClusterEvents;
import dev.kubeproxy.net.HostPort;

import dev.kubeproxy.messages.EventBusAddresses;
import dev.kubeproxy.messages.EventRequest;
import dev.kubeproxy.logging.Log;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import java.util.Locale;
import java.util.function.Function;
import java.util.function.UnaryOperator;

/**
 * Keeps one HTTP server listening the way upstream's serveHealthz/serveMetrics loops do
 * (cmd/kube-proxy/app/server.go serveHealthz, serveMetrics): if listening fails, either report it on {@link EventBusAddresses#FATAL}
 * (bindAddressHardFail: the agent exits 1) or log it and try again 5 seconds later, forever.
 * Its connections are bounded by a {@link ConnectionGuard} (HTTP/1.1 only, idle timeout, limit).
 */
public final class ServerLoop {
  static final long RETRY_MILLIS = 5_000;

  private final Vertx vertx;
  private final HostPort address;
  private final HttpServerOptions serverOptions;
  private final Handler<HttpServerRequest> handler;
  private final boolean hardFail;
  private final String logName;
  private final UnaryOperator<String> wrapError;
  private final UnaryOperator<String> fatalText;
  private final Function<String, EventRequest> hardFailEvent;
  private final ConnectionGuard guard;
  private volatile HttpServer server; // read by actualPort() from any thread
  private long retryTimer = -1;
  private boolean closed;

  /**
   * @param logName   for the log lines, e.g. "Healthz" ("Healthz server failed")
   * @param wrapError turns the Go-style listen error into the server's error text
   * @param fatalText turns the server's error text into the fatal reason in hard-fail mode
   * @param hardFailEvent the Warning event upstream records on the Node before exiting in hard-fail mode
   */
  public ServerLoop(Vertx vertx, HostPort address, HttpServerOptions serverOptions, Handler<HttpServerRequest> handler,
      boolean hardFail, String logName, UnaryOperator<String> wrapError, UnaryOperator<String> fatalText,
      Function<String, EventRequest> hardFailEvent) {
    this.vertx = vertx;
    this.address = address;
    this.serverOptions = new HttpServerOptions(serverOptions).setHost(address.host()).setPort(address.port());
    this.handler = handler;
    this.hardFail = hardFail;
    this.logName = logName;
    this.wrapError = wrapError;
    this.fatalText = fatalText;
    this.hardFailEvent = hardFailEvent;
    this.guard = new ConnectionGuard(vertx, logName.toLowerCase(Locale.ROOT), ConnectionGuard.SERVER_LIMIT,
        ConnectionGuard.IDLE_TIMEOUT);
  }

  /** What bounds this server's connections. */
  public ConnectionGuard guard() {
    return guard;
  }

  /** Makes the first attempt; completes when it has either succeeded or been handled. */
  public Future<Void> start() {
    return attempt();
  }

  /** The bound port, or -1 while not listening. */
  public int actualPort() {
    HttpServer s = server;
    return s == null ? -1 : s.actualPort();
  }

  public boolean listening() {
    return server != null;
  }

  public Future<Void> close() {
    closed = true;
    if (retryTimer >= 0) {
      vertx.cancelTimer(retryTimer);
    }
    HttpServer s = server;
    server = null;
    return s == null ? Future.succeededFuture() : s.close();
  }

  private Future<Void> attempt() {
    retryTimer = -1;
    if (closed) {
      return Future.succeededFuture();
    }
    return listen().<Void>map(s -> {
      server = s;
      Log.v(3).info("Starting " + logName.toLowerCase(Locale.ROOT) + " HTTP server", "address", address.text(s.actualPort()));
      return null;
    }).recover(err -> {
      String error = wrapError.apply(listenError(address, err));
      Log.error(logName + " server failed", "err", error);
      if (hardFail) {
        String reason = fatalText.apply(error);
        ClusterEvents.record(vertx, hardFailEvent.apply(reason));
        vertx.eventBus().send(EventBusAddresses.FATAL, reason);
      } else if (!closed) {
        retryTimer = vertx.setTimer(RETRY_MILLIS, id -> attempt());
      }
      return Future.succeededFuture();
    });
  }

  /**
   * Listens. A wildcard address listens on every IPv4 and IPv6 address, as Go's listener does for
   * "0.0.0.0:port": through one "::" socket, or on IPv4 alone when the host has no IPv6.
   */
  private Future<HttpServer> listen() {
    String host = address.host();
    boolean wildcard = host.equals("0.0.0.0") || host.equals("::");
    if (!wildcard) {
      return guard.createServer(serverOptions, handler).listen();
    }
    HttpServerOptions dualStack = new HttpServerOptions(serverOptions).setHost("::");
    return guard.createServer(dualStack, handler).listen().recover(err -> {
      String text = listenError(address, err);
      if (text.contains("address already in use") || text.contains("permission denied")) {
        return Future.failedFuture(err); // the port is the problem, not the family
      }
      return guard.createServer(new HttpServerOptions(serverOptions).setHost("0.0.0.0"), handler).listen();
    });
  }

  /** Go's wording for a failed listen: "listen tcp 0.0.0.0:10256: bind: address already in use". */
  public static String listenError(HostPort address, Throwable err) {
    Throwable root = err;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    String message = root.getMessage() == null ? root.toString() : root.getMessage();
    message = message.replaceFirst("^bind\\(\\.\\.\\) failed: ", "");
    if (!message.isEmpty()) {
      message = Character.toLowerCase(message.charAt(0)) + message.substring(1);
    }
    boolean bind = root instanceof java.net.BindException || message.contains("address already in use")
        || message.contains("cannot assign requested address") || message.contains("permission denied");
    return "listen tcp " + address + ": " + (bind ? "bind: " : "") + message;
  }
}
