package dev.kubeproxy.health;

import dev.kubeproxy.messages.ClusterEvents;

import dev.kubeproxy.messages.HealthUpdate;
import dev.kubeproxy.messages.ServiceHealthState;
import dev.kubeproxy.net.HostPort;
import dev.kubeproxy.server.ConnectionGuard;
import dev.kubeproxy.server.ServerLoop;

import dev.kubeproxy.config.AgentOptions;
import dev.kubeproxy.config.NodePortAddressKeywords;
import dev.kubeproxy.messages.EventBusAddresses;
import dev.kubeproxy.messages.EventRequest;
import dev.kubeproxy.messages.NodeInfo;
import dev.kubeproxy.gotext.GoQuote;
import dev.kubeproxy.logging.Log;
import dev.kubeproxy.net.Cidr;
import dev.kubeproxy.host.LocalAddresses;
import dev.kubeproxy.model.NamespacedName;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import java.net.InetAddress;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The per-Service health-check servers (pkg/proxy/healthcheck/service_health.go ServiceHealthServer): one HTTP server per
 * healthCheckNodePort on each nodePortAddresses IP (all addresses when nodePortAddresses is
 * empty), reconciled from {@link ServiceHealthState} messages on
 * {@link EventBusAddresses#SERVICE_HEALTH}. Any path and method is answered with the service's
 * local endpoint count and the proxier's health (from the same {@link HealthUpdate} messages the
 * healthz server reads; always healthy when healthz is disabled).
 *
 * <p>A port that cannot be opened is logged, reported as a FailedToStartServiceHealthcheck event
 * on the Service, and retried on the next message, as upstream does.
 */
public class ServiceHealthServerVerticle extends VerticleBase {

  private final AgentOptions options;
  private final NodeInfo nodeInfo;
  private final Clock clock;
  private final Map<NamespacedName, Service> services = new ConcurrentHashMap<>(); // read by openPorts() from any thread
  private ProxierHealth health; // null when the healthz server is disabled
  private ConnectionGuard guard; // one connection budget for every health-check port
  private List<String> listenHosts = List.of();
  private Future<Void> queue = Future.succeededFuture();
  private final Map<Object, ServiceHealthState> byFamily = new HashMap<>(); // the latest state per proxier

  /** One registered service: its port, its listeners and its local ready endpoint count. */
  private static final class Service {
    final int port;
    final List<HttpServer> servers;
    int localEndpoints;

    Service(int port, List<HttpServer> servers) {
      this.port = port;
      this.servers = servers;
    }
  }

  public ServiceHealthServerVerticle(AgentOptions options, dev.kubeproxy.messages.NodeInfo nodeInfo) {
    this(options, nodeInfo, Clock.systemUTC());
  }

  public ServiceHealthServerVerticle(AgentOptions options, NodeInfo nodeInfo, Clock clock) {
    this.options = options;
    this.nodeInfo = nodeInfo;
    this.clock = clock;
  }

  @Override
  public Future<?> start() {
    guard = new ConnectionGuard(vertx, "service health check", ConnectionGuard.SERVICE_HEALTH_LIMIT,
        ConnectionGuard.IDLE_TIMEOUT);
    String healthz = options.config().healthzBindAddress;
    if (healthz != null && !healthz.isEmpty()) {
      health = new ProxierHealth(HealthzServerVerticle.healthTimeout(options), clock);
      vertx.eventBus().<HealthUpdate>localConsumer(EventBusAddresses.HEALTH, m -> health.apply(m.body()));
    }
    return vertx.executeBlocking(this::resolveListenHosts).map(hosts -> {
      listenHosts = hosts;
      vertx.eventBus().<ServiceHealthState>localConsumer(EventBusAddresses.SERVICE_HEALTH,
          m -> queue = queue.transform(ignored -> reconcile(m.body())));
      return null;
    });
  }

  @Override
  public Future<?> stop() {
    return queue.transform(ignored -> {
      List<Future<Void>> closing = new ArrayList<>();
      services.values().forEach(s -> s.servers.forEach(h -> closing.add(h.close())));
      services.clear();
      return Future.join(closing).mapEmpty();
    });
  }

  /** What bounds the connections of every health-check port. */
  public ConnectionGuard guard() {
    return guard;
  }

  /** The IPs the health-check ports listen on. */
  public List<String> listenHosts() {
    return listenHosts;
  }

  /** service → port of the health-check servers currently open (a snapshot, for tests and logs). */
  public Map<NamespacedName, Integer> openPorts() {
    Map<NamespacedName, Integer> out = new TreeMap<>();
    services.forEach((k, v) -> out.put(k, v.port));
    return out;
  }

  /** Blocking: enumerates interfaces when nodePortAddresses restricts the listen IPs. */
  private List<String> resolveListenHosts() {
    List<String> cidrs = nodePortCidrs();
    String wildcard = LocalAddresses.hasIpv6() ? "::" : "0.0.0.0"; // "::" accepts IPv4 too, like Go's ":port"
    if (cidrs.isEmpty()) {
      return List.of(wildcard);
    }
    try {
      List<Cidr> parsed = cidrs.stream().map(Cidr::parse).toList();
      List<String> hosts = new ArrayList<>();
      for (InetAddress a : LocalAddresses.matching(parsed)) {
        hosts.add(a.getHostAddress());
      }
      return hosts;
    } catch (Exception e) {
      Log.error("Failed to get node ip address matching node port addresses, health check port will listen to all node addresses",
          "err", e.getMessage());
      return List.of(wildcard);
    }
  }

  /** nodePortAddresses with its keywords expanded, "primary" to the node IPs that are not loopback (cmd/kube-proxy/app/server.go newProxyServer). */
  private List<String> nodePortCidrs() {
    List<String> configured = options.config().nodePortAddresses;
    if (configured == null || configured.isEmpty()) {
      return List.of();
    }
    String ipv4 = null;
    String ipv6 = null;
    for (String ip : nodeInfo == null ? List.<String>of() : nodeInfo.nodeIPs()) {
      try {
        InetAddress a = InetAddress.getByName(ip); // IP literals only: no name lookup
        if (a.isLoopbackAddress()) {
          continue;
        }
        if (ip.contains(":")) {
          ipv6 = ipv6 == null ? ip : ipv6;
        } else {
          ipv4 = ipv4 == null ? ip : ipv4;
        }
      } catch (Exception e) {
        // not an IP: nothing to listen on for it
      }
    }
    return NodePortAddressKeywords.expand(configured, ipv4, ipv6);
  }

  /**
   * Folds one proxier's state into the per-family views: with dual-stack the wanted ports are the
   * union of both families' and a service's count is the larger one (one listener serves both
   * families, and a dual-stack pod is one endpoint, not two).
   */
  private Future<Void> reconcile(ServiceHealthState state) {
    if (state.family() == null) {
      byFamily.clear();
    }
    byFamily.put(state.family() == null ? "all" : state.family(), state);
    Map<NamespacedName, Integer> wanted = new HashMap<>();
    Map<NamespacedName, Integer> counts = new HashMap<>();
    for (ServiceHealthState s : byFamily.values()) {
      if (s.healthCheckNodePorts() != null) {
        wanted.putAll(s.healthCheckNodePorts());
      }
      if (s.localReadyEndpoints() != null) {
        s.localReadyEndpoints().forEach((k, v) -> counts.merge(k, v, Math::max));
      }
    }
    List<Future<Void>> closing = new ArrayList<>();
    for (var it = services.entrySet().iterator(); it.hasNext(); ) {
      var e = it.next();
      Integer port = wanted.get(e.getKey());
      if (port == null || port != e.getValue().port) {
        Log.v(2).info("Closing healthcheck", "service", e.getKey().toString(), "port", e.getValue().port);
        e.getValue().servers.forEach(s -> closing.add(s.close()));
        it.remove();
      }
    }
    return Future.join(closing).transform(ignored -> {
      List<Future<Void>> opening = new ArrayList<>();
      for (Map.Entry<NamespacedName, Integer> e : new TreeMap<>(wanted).entrySet()) {
        if (services.containsKey(e.getKey())) {
          Log.v(3).info("Existing healthcheck", "service", e.getKey().toString(), "port", e.getValue());
        } else {
          Log.v(2).info("Opening healthcheck", "service", e.getKey().toString(), "port", e.getValue());
          opening.add(open(e.getKey(), e.getValue()));
        }
      }
      return Future.join(opening);
    }).transform(ignored -> {
      services.forEach((name, service) -> service.localEndpoints = counts.getOrDefault(name, 0));
      if (Log.enabled(3)) { // the sorted copy only when it is logged
        Log.v(3).info("Reporting endpoints for healthcheck", "endpoints", new TreeMap<>(counts).toString());
      }
      return Future.succeededFuture();
    });
  }

  /** Opens the port on every listen IP; on any failure closes what opened and leaves the service out. */
  private Future<Void> open(NamespacedName name, int port) {
    List<Future<HttpServer>> listens = new ArrayList<>();
    for (String host : listenHosts) {
      HttpServer server = guard.createServer(new HttpServerOptions().setHost(host).setPort(port), req -> handle(name, req));
      listens.add(server.listen());
    }
    return Future.join(listens).transform(ar -> {
      List<HttpServer> opened = new ArrayList<>();
      Throwable failure = null;
      for (Future<HttpServer> f : listens) {
        if (f.succeeded()) {
          opened.add(f.result());
        } else if (failure == null) {
          failure = f.cause();
        }
      }
      if (failure == null) {
        services.put(name, new Service(port, opened));
        return Future.succeededFuture();
      }
      opened.forEach(HttpServer::close);
      String node = nodeInfo == null ? "" : nodeInfo.name();
      String error = ServerLoop.listenError(new HostPort(listenHosts.isEmpty() ? "" : listenHosts.get(0), port), failure);
      ClusterEvents.record(vertx, EventRequest.failedToStartServiceHealthcheck(node, name.namespace(), name.name(), port, error));
      Log.error("Failed to start healthcheck", "err", error, "node", node, "service", name.toString(), "port", port);
      return Future.succeededFuture();
    });
  }

  private void handle(NamespacedName name, HttpServerRequest req) {
    Service service = services.get(name);
    if (service == null) {
      Log.error("Received request for closed healthcheck", "service", name.toString());
      req.response().end();
      return;
    }
    int count = service.localEndpoints;
    boolean proxyHealthy = health == null || health.verdict().healthy();
    String body = "{\n"
        + "\t\"service\": {\n"
        + "\t\t\"namespace\": " + GoQuote.quote(name.namespace()) + ",\n"
        + "\t\t\"name\": " + GoQuote.quote(name.name()) + "\n"
        + "\t},\n"
        + "\t\"localEndpoints\": " + count + ",\n"
        + "\t\"serviceProxyHealthy\": " + proxyHealthy + "\n"
        + "}";
    req.response()
        .setStatusCode(count != 0 && proxyHealthy ? 200 : 503)
        .putHeader("Content-Type", "application/json")
        .putHeader("X-Content-Type-Options", "nosniff")
        .putHeader("X-Load-Balancing-Endpoint-Weight", Integer.toString(count))
        .end(body);
  }
}
