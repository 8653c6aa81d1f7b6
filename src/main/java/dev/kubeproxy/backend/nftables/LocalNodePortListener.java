package dev.kubeproxy.backend.nftables;

import dev.kubeproxy.host.netlink.InNetns;
import dev.kubeproxy.logging.Log;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

/**
 * One localhost NodePort served in user space (pkg/proxy/localnodeportproxy/proxy.go
 * nodePortListener): a TCP listener on 127.0.0.1 or ::1 whose connections are each forwarded to one
 * of the service's endpoints. Closing it closes the listener and every connection in flight through
 * it, so that no goroutine-like copier outlives it.
 */
final class LocalNodePortListener {
  /** How long connecting to an endpoint may take (upstream's dialTimeout). */
  static final Duration DIAL_TIMEOUT = Duration.ofSeconds(5);
  /** How long closing waits for the accepting thread to leave accept(). */
  private static final Duration ACCEPTOR_EXIT = Duration.ofSeconds(5);

  private final String protocol;
  private final int port;
  private final ServerSocket server;
  private final Clock clock;
  private final Thread acceptor;
  /** The network namespace the listener and its connections to the endpoints live in (null: the process's). */
  private final String netns;
  /** The sockets of the connections in flight (client and endpoint sides); guarded by this. */
  private final Set<Socket> open = new HashSet<>();
  private boolean closed;
  private List<InetSocketAddress> endpoints;
  /** Zero without ClientIP affinity: then every connection picks an endpoint anew. */
  private Duration affinity;
  private InetSocketAddress pinned;
  private Instant pinnedLastUsed;

  /** Binds the listener (SO_REUSEADDR, as Go's net.Listen) and starts accepting. */
  static LocalNodePortListener open(InetSocketAddress listenAddress, LocalNodePortProxy.Spec spec, Clock clock,
      String netns) throws IOException {
    ServerSocket server = InNetns.call(netns, () -> {
      ServerSocket s = new ServerSocket();
      try {
        s.setReuseAddress(true); // creates the socket, in the namespace
      } catch (IOException e) {
        s.close();
        throw e;
      }
      return s;
    });
    try {
      server.bind(listenAddress, 128);
    } catch (IOException e) {
      server.close();
      throw e;
    }
    LocalNodePortListener l = new LocalNodePortListener(spec, server, clock, netns);
    l.acceptor.start();
    return l;
  }

  private LocalNodePortListener(LocalNodePortProxy.Spec spec, ServerSocket server, Clock clock, String netns) {
    this.netns = netns;
    this.protocol = spec.protocol();
    this.port = spec.nodePort();
    this.server = server;
    this.clock = clock;
    this.acceptor = daemon("localhost-nodeport-" + port, this::acceptLoop);
    update(spec);
  }

  /** New endpoints and affinity for the connections to come; a changed affinity drops the pin. */
  synchronized void update(LocalNodePortProxy.Spec spec) {
    endpoints = List.copyOf(spec.endpoints());
    if (!spec.affinity().equals(affinity)) {
      pinned = null;
      affinity = spec.affinity();
    }
  }

  /**
   * A random endpoint; under ClientIP affinity the pinned one while it is still an endpoint and was
   * used within the window (a sliding window: every connection renews it). Every localhost client has
   * the same source address, so the pin is the listener's, not a client's.
   */
  synchronized InetSocketAddress pickEndpoint() {
    if (endpoints.isEmpty()) {
      return null;
    }
    Instant now = clock.instant();
    boolean sticky = !affinity.isZero();
    if (sticky && pinned != null && endpoints.contains(pinned)
        && Duration.between(pinnedLastUsed, now).compareTo(affinity) <= 0) {
      pinnedLastUsed = now;
      return pinned;
    }
    InetSocketAddress ep = endpoints.get(ThreadLocalRandom.current().nextInt(endpoints.size()));
    if (sticky) {
      pinned = ep;
      pinnedLastUsed = now;
    }
    return ep;
  }

  /** Closes the listener and the connections in flight; the port refuses connections from now on. */
  void close() {
    List<Socket> sockets;
    synchronized (this) {
      closed = true;
      sockets = List.copyOf(open);
      open.clear();
    }
    closeQuietly(server);
    sockets.forEach(LocalNodePortListener::closeQuietly);
    // The kernel keeps the listening socket while a thread is still inside accept(): only once the
    // acceptor has left it does the port refuse connections.
    try {
      acceptor.join(ACCEPTOR_EXIT.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  synchronized boolean isClosed() {
    return closed;
  }

  private void acceptLoop() {
    while (!server.isClosed()) {
      try {
        Socket client = server.accept();
        daemon("localhost-nodeport-" + port + "-conn", () -> handle(client)).start();
      } catch (IOException e) {
        if (!server.isClosed()) {
          Log.v(4).info("Accept error on localhost nodeport proxy", "err", e.getMessage(), "protocol", protocol,
              "port", port);
        }
      }
    }
  }

  /** Registers a socket of a connection in flight; false (and the socket reset) once the listener is closed. */
  private boolean track(Socket s) {
    synchronized (this) {
      if (!closed) {
        open.add(s);
        return true;
      }
    }
    try {
      s.setSoLinger(true, 0); // a connection that slipped in while closing is reset, as a refusal would
    } catch (IOException e) {
      // closed below either way
    }
    closeQuietly(s);
    return false;
  }

  private synchronized void untrack(Socket s) {
    open.remove(s);
  }

  private void handle(Socket client) {
    if (!track(client)) {
      return;
    }
    Socket backend;
    try {
      backend = InNetns.call(netns, () -> {
        Socket s = new Socket();
        s.setTcpNoDelay(true); // creates the socket, in the namespace
        return s;
      });
    } catch (IOException e) {
      Log.v(4).info("Failed to connect to backend", "err", e.getMessage(), "protocol", protocol, "port", port);
      untrack(client);
      closeQuietly(client);
      return;
    }
    try {
      InetSocketAddress ep = pickEndpoint();
      if (ep == null || !track(backend)) {
        return;
      }
      try {
        backend.connect(ep, (int) DIAL_TIMEOUT.toMillis());
      } catch (IOException e) {
        Log.v(4).info("Failed to connect to backend", "err", e.getMessage(), "protocol", protocol, "port", port,
            "endpoint", ep);
        return;
      }
      Thread up = daemon("localhost-nodeport-" + port + "-up", () -> pipe(client, backend, "client->backend"));
      up.start();
      pipe(backend, client, "backend->client");
      up.join();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      untrack(client);
      untrack(backend);
      closeQuietly(client);
      closeQuietly(backend);
    }
  }

  /** Copies one direction to its end, then half-closes the other side so its peer sees the end too. */
  private void pipe(Socket from, Socket to, String direction) {
    byte[] buf = new byte[16 * 1024];
    try {
      InputStream in = from.getInputStream();
      OutputStream out = to.getOutputStream();
      for (int n; (n = in.read(buf)) >= 0; ) {
        out.write(buf, 0, n);
      }
      to.shutdownOutput();
    } catch (IOException e) {
      if (!isClosed()) {
        Log.v(4).info("Error proxying localhost nodeport connection", "err", e.getMessage(), "protocol", protocol,
            "port", port, "direction", direction);
      }
    }
  }

  private static void closeQuietly(java.io.Closeable c) {
    try {
      c.close();
    } catch (IOException e) {
      // closing for good: nothing left to do with it
    }
  }

  private static Thread daemon(String name, Runnable body) {
    Thread t = new Thread(body, name);
    t.setDaemon(true);
    return t;
  }
}
