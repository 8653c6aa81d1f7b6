package dev.kubeproxy.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kubeproxy.testutil.Await;
import dev.kubeproxy.testutil.tier.Unit;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.junit5.VertxExtension;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Connection limits, idle timeouts and HTTP/1.1-only on a loopback server (bounded: at most 300 sockets). */
@ExtendWith(VertxExtension.class)
@Unit
public class ConnectionGuardTest {
  private final List<Socket> sockets = new ArrayList<>();

  @AfterEach
  void closeSockets() {
    for (Socket s : sockets) {
      try {
        s.close();
      } catch (IOException ignored) {
        // already closed
      }
    }
  }

  private int serve(Vertx vertx, ConnectionGuard guard, List<Promise<Void>> slow) {
    HttpServer server = guard.createServer(new HttpServerOptions().setHost("127.0.0.1").setPort(0), req -> {
      if (req.path().equals("/slow")) {
        Promise<Void> release = Promise.promise();
        slow.add(release);
        release.future().onComplete(v -> req.response().end("slow"));
      } else {
        req.response().end("ok");
      }
    });
    return Await.result(server.listen()).actualPort();
  }

  private Socket connect(int port) throws IOException {
    Socket s = new Socket(InetAddress.getLoopbackAddress(), port);
    s.setSoTimeout(5000);
    sockets.add(s);
    return s;
  }

  /** Sends a request and returns the status line, or null when the server closed the connection. */
  public static String request(Socket s, String raw) throws IOException {
    s.getOutputStream().write(raw.getBytes(StandardCharsets.US_ASCII));
    s.getOutputStream().flush();
    return readLine(s.getInputStream());
  }

  static String readLine(InputStream in) throws IOException {
    StringBuilder line = new StringBuilder();
    int c;
    while ((c = in.read()) >= 0 && c != '\n') {
      line.append((char) c);
    }
    return c < 0 && line.length() == 0 ? null : line.toString().trim();
  }

  private static boolean closedByServer(Socket s) throws IOException {
    try {
      while (s.getInputStream().read() >= 0) {
        // skip what was answered before
      }
      return true;
    } catch (SocketTimeoutException e) {
      return false;
    } catch (IOException e) {
      return true; // reset
    }
  }

  @Test
  void aFloodOfIdleConnectionsNeverKeepsARequestOut(Vertx vertx) throws Exception {
    ConnectionGuard guard = new ConnectionGuard(vertx, "test", 20, Duration.ofSeconds(30));
    int port = serve(vertx, guard, new ArrayList<>());
    for (int i = 0; i < 200; i++) {
      connect(port); // idle: connects, never sends
    }
    Await.until("the server saw the flood", 10_000, () -> guard.evicted() >= 170);
    assertTrue(guard.openConnections() <= 20, "open: " + guard.openConnections());
    for (int i = 0; i < 5; i++) {
      assertEquals("HTTP/1.1 200 OK", request(connect(port), "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"));
    }
    assertTrue(guard.openConnections() <= 20, "open: " + guard.openConnections());
    assertEquals(0, guard.refused());
  }

  @Test
  void whenEveryConnectionIsBusyTheNewcomerIsClosed(Vertx vertx) throws Exception {
    ConnectionGuard guard = new ConnectionGuard(vertx, "test", 2, Duration.ofSeconds(30));
    List<Promise<Void>> slow = java.util.Collections.synchronizedList(new ArrayList<>());
    int port = serve(vertx, guard, slow);
    Socket a = connect(port);
    Socket b = connect(port);
    for (Socket s : List.of(a, b)) {
      s.getOutputStream().write("GET /slow HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
    }
    Await.until("both requests in progress", 5000, () -> slow.size() == 2);
    Socket c = connect(port);
    assertTrue(closedByServer(c), "the third connection should be closed");
    assertEquals(1, guard.refused());
    vertx.runOnContext(v -> slow.forEach(Promise::complete));
    assertEquals("HTTP/1.1 200 OK", readLine(a.getInputStream()));
    assertEquals("HTTP/1.1 200 OK", readLine(b.getInputStream()));
  }

  @Test
  void idleAndSlowConnectionsAreClosedAfterTheTimeout(Vertx vertx) throws Exception {
    ConnectionGuard guard = new ConnectionGuard(vertx, "test", 20, Duration.ofMillis(400));
    int port = serve(vertx, guard, new ArrayList<>());
    Socket idle = connect(port);
    Socket kept = connect(port);
    assertEquals("HTTP/1.1 200 OK", request(kept, "GET / HTTP/1.1\r\nHost: x\r\n\r\n"));
    Socket slowHeaders = connect(port);
    slowHeaders.getOutputStream().write("GET / HTTP/1.1\r\nHost: x\r\n".getBytes(StandardCharsets.US_ASCII));
    long start = System.nanoTime();
    for (int i = 0; i < 12; i++) { // one header byte every 100 ms: never completes the request
      try {
        slowHeaders.getOutputStream().write('X');
        slowHeaders.getOutputStream().flush();
      } catch (IOException closed) {
        break;
      }
      Thread.sleep(100);
    }
    assertTrue(closedByServer(idle), "an idle connection stays open");
    assertTrue(closedByServer(slowHeaders), "a connection trickling headers stays open");
    assertTrue(closedByServer(kept), "a kept-alive connection stays open after its answer");
    assertTrue(Duration.ofNanos(System.nanoTime() - start).toMillis() < 5000);
    Await.until("nothing is tracked any more", 5000, () -> guard.openConnections() == 0);
  }

  @Test
  void http2IsNotSpoken(Vertx vertx) throws Exception {
    ConnectionGuard guard = new ConnectionGuard(vertx, "test", 20, Duration.ofSeconds(30));
    int port = serve(vertx, guard, new ArrayList<>());
    assertH2cRefused(connect(port), connect(port));
  }

  /** An h2c upgrade is answered in HTTP/1.1 without switching; the HTTP/2 preface gets no HTTP/2 answer. */
  public static void assertH2cRefused(Socket upgrade, Socket priorKnowledge) throws IOException {
    String status = request(upgrade, "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: Upgrade, HTTP2-Settings\r\n"
        + "Upgrade: h2c\r\nHTTP2-Settings: AAMAAABkAARAAAAAAAIAAAAA\r\n\r\n");
    assertTrue(status != null && status.startsWith("HTTP/1.1 ") && !status.startsWith("HTTP/1.1 101"), status);
    priorKnowledge.getOutputStream().write("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
    priorKnowledge.getOutputStream().write(new byte[] {0, 0, 0, 4, 0, 0, 0, 0, 0}); // an empty SETTINGS frame
    priorKnowledge.getOutputStream().flush();
    byte[] first = new byte[9];
    int n;
    try {
      n = priorKnowledge.getInputStream().readNBytes(first, 0, first.length);
    } catch (IOException reset) {
      n = 0;
    }
    boolean http2Settings = n == 9 && first[3] == 4; // frame type 4 = SETTINGS
    String text = new String(first, 0, n, StandardCharsets.US_ASCII);
    // an HTTP/1 parser answers the preface as a bad HTTP/1 request (in text), or closes
    assertTrue(!http2Settings && (n == 0 || text.startsWith("HTTP/")), "answered in HTTP/2: " + text);
  }
}
