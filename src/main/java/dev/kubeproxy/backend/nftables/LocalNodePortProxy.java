package dev.kubeproxy.backend.nftables;

import dev.kubeproxy.logging.Log;
import dev.kubeproxy.metrics.ProxyMetrics;
import dev.kubeproxy.model.Endpoint;
import dev.kubeproxy.model.ProxyState;
import dev.kubeproxy.model.ServicePort;
import dev.kubeproxy.model.ServicePortName;
import dev.kubeproxy.model.ServicePortPlan;
import dev.kubeproxy.net.IpFamily;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Localhost NodePorts in nftables mode (pkg/proxy/localnodeportproxy/proxy.go LocalNodePortProxy,
 * feature gate KubeProxyNFTablesLocalhostNodePorts): nftables cannot send a loopback destination to
 * another host (there is no route_localnet for it, and none at all in IPv6), so each TCP NodePort
 * with endpoints gets a {@link LocalNodePortListener} on 127.0.0.1 or ::1 that forwards connections
 * in user space.
 *
 * <p>The nftables backend calls {@link #sync(ProxyState)} after each successful sync, on its sync worker, with
 * the ports as that sync applied them: a listener opens when its NodePort has endpoints and closes
 * (with its connections) when the endpoints or the service go, so the port then refuses connections.
 * {@link #shutdown} closes them all.
 */
final class LocalNodePortProxy {

  /**
   * One NodePort to serve (upstream's NodePortSpec).
   *
   * @param endpoints the endpoints connections are spread over; none: no listener
   * @param affinity  the ClientIP affinity window, zero without affinity
   */
  record Spec(ServicePortName name, String protocol, int nodePort, List<InetSocketAddress> endpoints,
      Duration affinity) {
    Spec {
      endpoints = List.copyOf(endpoints);
    }

    /** The listener's key, "TCP/30080". */
    String key() {
      return protocol + "/" + nodePort;
    }
  }

  private final IpFamily family;
  private final InetAddress listenIp;
  private final Clock clock;
  private final ProxyMetrics metrics;
  private final String netns;
  private final Map<String, LocalNodePortListener> active = new LinkedHashMap<>();
  private boolean enabled;

  LocalNodePortProxy(IpFamily family, Clock clock, ProxyMetrics metrics) {
    this(family, clock, metrics, null);
  }

  /** @param netns the network namespace to listen and connect in (null: the process's own) */
  LocalNodePortProxy(IpFamily family, Clock clock, ProxyMetrics metrics, String netns) {
    this.netns = netns;
    this.family = family;
    this.listenIp = literal(family == IpFamily.IPv6 ? "::1" : "127.0.0.1");
    this.clock = clock;
    this.metrics = metrics;
  }

  /** Serves localhost NodePorts from the next sync on (true), or none (false). */
  void enable(boolean serve) {
    if (serve && !enabled) {
      Log.info("Serving localhost NodePorts through a userspace proxy", "ipFamily", family);
    }
    enabled = serve;
  }

  /** After a successful sync: the listeners become those of the state's TCP NodePorts with endpoints. */
  void sync(ProxyState state) {
    if (enabled) {
      sync(specs(state));
    }
  }

  /**
   * The TCP NodePorts of a state with the endpoints the listeners forward to: those of the
   * cluster policy, or this node's own under externalTrafficPolicy Local, as upstream's syncProxyRules
   * hands them over (no fallback to other nodes' endpoints when there is no local one).
   */
  static List<Spec> specs(ProxyState state) {
    List<Spec> out = new ArrayList<>();
    for (ServicePort svc : state.services().values()) {
      if (svc.nodePort() == 0 || !"TCP".equals(svc.protocol())) {
        continue;
      }
      ServicePortPlan plan = state.plan(svc.name());
      List<Endpoint> eps = svc.externalPolicyLocal() ? plan.localEndpoints() : plan.clusterEndpoints();
      List<InetSocketAddress> addresses = new ArrayList<>(eps.size());
      for (Endpoint e : eps) {
        addresses.add(new InetSocketAddress(literal(e.ip()), e.port()));
      }
      Duration affinity = svc.sessionAffinityClientIP() ? Duration.ofSeconds(svc.stickyMaxAgeSeconds()) : Duration.ZERO;
      out.add(new Spec(svc.name(), svc.protocol(), svc.nodePort(), addresses, affinity));
    }
    return out;
  }

  /**
   * Makes the listeners those of the specs with endpoints: closes the others, updates the kept ones'
   * endpoints and opens the missing ones. A port that cannot be bound (another process holds it) is
   * logged and counted, and tried again at the next sync; the other ports are served.
   */
  void sync(List<Spec> desired) {
    Map<String, Spec> byKey = new LinkedHashMap<>();
    for (Spec s : desired) {
      if (!s.endpoints().isEmpty()) {
        byKey.put(s.key(), s);
      }
    }
    for (Iterator<Map.Entry<String, LocalNodePortListener>> it = active.entrySet().iterator(); it.hasNext(); ) {
      Map.Entry<String, LocalNodePortListener> e = it.next();
      if (!byKey.containsKey(e.getKey())) {
        Log.v(2).info("Removing localhost nodeport proxy", "listener", e.getKey());
        e.getValue().close();
        it.remove();
      }
    }
    for (Spec s : byKey.values()) {
      LocalNodePortListener existing = active.get(s.key());
      if (existing != null) {
        existing.update(s);
        continue;
      }
      if (!"TCP".equals(s.protocol())) {
        Log.error("Unexpected non-TCP localhost nodeport proxy", "service", s.name(), "protocol", s.protocol(),
            "port", s.nodePort());
        continue;
      }
      try {
        active.put(s.key(), LocalNodePortListener.open(new InetSocketAddress(listenIp, s.nodePort()), s, clock, netns));
        Log.v(4).info("Created localhost nodeport proxy", "protocol", s.protocol(), "port", s.nodePort(),
            "endpoints", s.endpoints().size());
      } catch (IOException e) {
        Log.error("Failed to create localhost nodeport proxy", "err", "failed to listen on "
            + new InetSocketAddress(listenIp, s.nodePort()) + ": " + e.getMessage(), "protocol", s.protocol(),
            "port", s.nodePort());
        metrics.incLocalhostNodePortListenerFailures(family.name());
      }
    }
    metrics.setLocalhostNodePortListeners(family.name(), active.size());
  }

  /** Closes every listener and the connections in flight through them. */
  void shutdown() {
    active.values().forEach(LocalNodePortListener::close);
    active.clear();
    metrics.setLocalhostNodePortListeners(family.name(), 0);
  }

  /** The listeners open now, as "TCP/30080" keys. */
  Set<String> listening() {
    return new TreeSet<>(active.keySet());
  }

  /** The address the listeners bind: 127.0.0.1 or ::1. */
  InetAddress listenIp() {
    return listenIp;
  }

  private static InetAddress literal(String ip) {
    try {
      return InetAddress.getByName(ip); // an IP literal: no name lookup
    } catch (UnknownHostException e) {
      throw new IllegalArgumentException("not an IP literal: " + ip, e);
    }
  }
}
