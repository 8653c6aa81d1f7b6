package dev.kubeproxy.backend.nftables;

import dev.kubeproxy.logging.Log;
import dev.kubeproxy.model.Endpoint;
import dev.kubeproxy.model.ProxyState;
import dev.kubeproxy.model.ServicePort;
import dev.kubeproxy.model.ServicePortName;
import dev.kubeproxy.model.ServicePortPlan;
import dev.kubeproxy.net.IpFamily;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Localhost NodePorts in nftables mode (pkg/proxy/localnodeportproxy/proxy.go, feature gate
 * KubeProxyNFTablesLocalhostNodePorts): nftables cannot DNAT a loopback destination (there is no
 * route_localnet for it and none at all for IPv6), so a TCP listener on 127.0.0.1 or ::1 per NodePort
 * forwards each connection to one of the service's endpoints. UDP and SCTP NodePorts get no listener.
 */
final class LocalNodePortProxy {

  /** How long a connection to an endpoint may take (upstream's dialTimeout). */
  private static final int DIAL_TIMEOUT_MS = (int) Duration.ofSeconds(5).toMillis();

  /** One NodePort to serve: the endpoints ("ip", port) and the ClientIP affinity window (zero without). */
  record Spec(ServicePortName name, int nodePort, List<InetSocketAddress> endpoints, Duration affinity) {}

  private final InetAddress listenIp;
  private final Clock clock;
  private final Map<Integer, Listener> active = new HashMap<>();

  LocalNodePortProxy(IpFamily family, Clock clock) {
    this.listenIp = literal(family == IpFamily.IPv6 ? "::1" : "127.0.0.1");
    this.clock = clock;
  }

  /**
   * The NodePorts of a state as the listeners should serve them: TCP ports with a NodePort and
   * endpoints, the node's own endpoints only under externalTrafficPolicy Local (upstream's
   * syncProxyRules hands the proxy the same endpoints as the external chain).
   */
  static List<Spec> specs(ProxyState state) {
    List<Spec> out = new ArrayList<>();
    for (ServicePort svc : state.services().values()) {
      if (svc.nodePort() == 0 || !"TCP".equals(svc.protocol())) {
        continue;
      }
      ServicePortPlan plan = state.plan(svc.name());
      List<Endpoint> eps = svc.externalPolicyLocal() ? plan.localEndpoints() : plan.clusterEndpoints();
      List<InetSocketAddress> addrs = eps.stream().map(e -> new InetSocketAddress(literal(e.ip()), e.port())).toList();
      Duration affinity = svc.sessionAffinityClientIP() ? Duration.ofSeconds(svc.stickyMaxAgeSeconds()) : Duration.ZERO;
      out.add(new Spec(svc.name(), svc.nodePort(), addrs, affinity));
    }
    return out;
  }

  /**
   * Whether nodePortAddresses names a loopback CIDR explicitly: a zero CIDR ("all") contains loopback
   * but does not ask for it (pkg/proxy/util/nodeport_addresses.go ContainsExplicitLoopback).
   */
  static boolean explicitLoopback(List<String> nodePortAddresses) {
    for (String cidr : nodePortAddresses) {
      int slash = cidr.indexOf('/');
      if (!Cidrs.isMatchAll(cidr) && Cidrs.isLoopback(slash < 0 ? cidr : cidr.substring(0, slash))) {
        return true;
      }
    }
    return false;
  }

  /** Opens, updates and closes listeners so that exactly the specs with endpoints are served. */
  synchronized void sync(List<Spec> desired) {
    Map<Integer, Spec> byPort = new HashMap<>();
    for (Spec s : desired) {
      if (!s.endpoints().isEmpty()) {
        byPort.put(s.nodePort(), s);
      }
    }
    active.entrySet().removeIf(e -> {
      if (byPort.containsKey(e.getKey())) {
        return false;
      }
      Log.v(2).info("Removing localhost nodeport proxy", "protocol", "TCP", "port", e.getKey());
      e.getValue().close();
      return true;
    });
    for (Spec s : byPort.values()) {
      Listener existing = active.get(s.nodePort());
      if (existing != null) {
        existing.update(s);
        continue;
      }
      try {
        ServerSocket server = new ServerSocket();
        server.setReuseAddress(true);
        server.bind(new InetSocketAddress(listenIp, s.nodePort()));
        Listener l = new Listener(server, s);
        active.put(s.nodePort(), l);
        l.start();
        Log.v(2).info("Created localhost nodeport proxy", "protocol", "TCP", "port", s.nodePort(),
            "endpoints", s.endpoints().size());
      } catch (IOException e) {
        // another process may own the port: this NodePort is not served on localhost, the others are
        Log.error("Failed to create localhost nodeport proxy", "err", e.getMessage(), "protocol", "TCP",
            "port", s.nodePort());
      }
    }
  }

  /** The NodePorts listened on now. */
  synchronized Set<Integer> listening() {
    return Set.copyOf(active.keySet());
  }

  /** Closes every listener and the connections in flight through them. */
  synchronized void shutdown() {
    active.values().forEach(Listener::close);
    active.clear();
  }

  private static InetAddress literal(String ip) {
    try {
      return InetAddress.getByName(ip); // an IP literal: no name lookup
    } catch (UnknownHostException e) {
      throw new IllegalArgumentException("not an IP literal: " + ip, e);
    }
  }

  /** One NodePort's listener and its connections. */
  private final class Listener {
    private final ServerSocket server;
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();
    private List<InetSocketAddress> endpoints;
    private Duration affinity;
    private InetSocketAddress pinned;
    private Instant pinnedLastUsed;

    Listener(ServerSocket server, Spec spec) {
      this.server = server;
      update(spec);
    }

    synchronized void update(Spec spec) {
      endpoints = List.copyOf(spec.endpoints());
      if (!spec.affinity().equals(affinity)) {
        pinned = null; // a changed affinity setting drops the pin
        affinity = spec.affinity();
      }
    }

    /** Random endpoint; under ClientIP affinity the pinned one while it is in the set and used in time. */
    synchronized InetSocketAddress pick() {
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

    void start() {
      daemon("localhost-nodeport-" + server.getLocalPort(), this::acceptLoop).start();
    }

    private void acceptLoop() {
      while (!server.isClosed()) {
        try {
          Socket client = server.accept();
          daemon("localhost-nodeport-conn", () -> handle(client)).start();
        } catch (IOException e) {
          if (!server.isClosed()) {
            Log.error("Accept error on localhost nodeport proxy", "err", e.getMessage(), "port", server.getLocalPort());
          }
        }
      }
    }

    private void handle(Socket client) {
      open.add(client);
      InetSocketAddress ep = pick();
      try (client; Socket backend = new Socket()) {
        if (ep == null) {
          return;
        }
        open.add(backend);
        try {
          backend.connect(ep, DIAL_TIMEOUT_MS);
        } catch (IOException e) {
          Log.error("Failed to connect to backend", "err", e.getMessage(), "port", server.getLocalPort(),
              "endpoint", ep);
          return;
        }
        Thread up = daemon("localhost-nodeport-up", () -> pump(client, backend));
        up.start();
        pump(backend, client);
        up.join();
      } catch (IOException | InterruptedException e) {
        Log.v(4).info("localhost nodeport connection ended", "err", e.getMessage());
      } finally {
        open.removeIf(Socket::isClosed);
      }
    }

    void close() {
      try {
        server.close();
      } catch (IOException e) {
        Log.v(4).info("closing localhost nodeport listener", "err", e.getMessage());
      }
      for (Socket s : open) {
        try {
          s.close();
        } catch (IOException e) {
          Log.v(4).info("closing localhost nodeport connection", "err", e.getMessage());
        }
      }
    }
  }

  /** Copies one direction until its end, then half-closes the other side so the peer sees the end too. */
  private static void pump(Socket from, Socket to) {
    byte[] buf = new byte[16 * 1024];
    try {
      InputStream in = from.getInputStream();
      OutputStream out = to.getOutputStream();
      for (int n; (n = in.read(buf)) >= 0; ) {
        out.write(buf, 0, n);
      }
      to.shutdownOutput();
    } catch (SocketException e) {
      // the other direction or a shutdown closed the sockets
    } catch (IOException e) {
      Log.v(4).info("localhost nodeport copy ended", "err", e.getMessage());
    }
  }

  private static Thread daemon(String name, Runnable body) {
    Thread t = new Thread(body, name);
    t.setDaemon(true);
    return t;
  }
}
