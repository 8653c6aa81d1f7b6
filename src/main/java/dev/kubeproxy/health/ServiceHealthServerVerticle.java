package dev.kubeproxy.health;

import dev.kubeproxy.AgentOptions;
import dev.kubeproxy.EventBusAddresses;
import dev.kubeproxy.cluster.NodeInfo;
import dev.kubeproxy.platform.Cidr;
import dev.kubeproxy.platform.LocalAddresses;
import dev.kubeproxy.proxy.NamespacedName;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.net.InetAddress;
import java.time.Clock;
import java.util.ArrayList;
import java.util.concurrent.ConcurrentHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The per-Service health-check servers (observability.md §3): one HTTP server per
 * healthCheckNodePort on each nodePortAddresses IP (all addresses when nodePortAddresses is
 * empty), reconciled from {@link ServiceHealthState} messages on
 * {@link EventBusAddresses#SERVICE_HEALTH}. Any path and method is answered with the service's
 * local endpoint count and the proxier's health (from the same {@link HealthUpdate} messages the
 * healthz server reads; always healthy when healthz is disabled).
 *
 * <p>A port that cannot be opened is logged and retried on the next message, as upstream does.
 * (Upstream also records a FailedToStartServiceHealthcheck event; this agent has no event
 * recorder wired here yet.)
 */
public class ServiceHealthServerVerticle extends VerticleBase {
  private static final Logger LOG = System.getLogger(ServiceHealthServerVerticle.class.getName());

  private final AgentOptions options;
  private final NodeInfo nodeInfo;
  private final Clock clock;
  private final Map<NamespacedName, Service> services = new ConcurrentHashMap<>(); // read by openPorts() from any thread
  private ProxierHealth health; // null when the healthz server is disabled
  private List<String> listenHosts = List.of();
  private Future<Void> queue = Future.succeededFuture();

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

  public ServiceHealthServerVerticle(AgentOptions options, dev.kubeproxy.cluster.NodeInfo nodeInfo) {
    this(options, nodeInfo, Clock.systemUTC());
  }

  public ServiceHealthServerVerticle(AgentOptions options, NodeInfo nodeInfo, Clock clock) {
    this.options = options;
    this.nodeInfo = nodeInfo;
    this.clock = clock;
  }

  @Override
  public Future<?> start() {
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
      LOG.log(Level.ERROR, "Failed to get node ip address matching node port addresses, health check port will listen to all node addresses err=\""
          + e.getMessage() + "\"");
      return List.of(wildcard);
    }
  }

  /** nodePortAddresses with "primary" expanded to the node IPs that are not loopback (server.md §9 step 7). */
  private List<String> nodePortCidrs() {
    List<String> configured = options.config().nodePortAddresses;
    if (configured == null || configured.isEmpty()) {
      return List.of();
    }
    if (configured.size() == 1 && "primary".equals(configured.get(0))) {
      List<String> out = new ArrayList<>();
      for (String ip : nodeInfo == null ? List.<String>of() : nodeInfo.nodeIPs()) {
        try {
          InetAddress a = InetAddress.getByName(ip);
          if (!a.isLoopbackAddress()) {
            out.add(ip + (ip.contains(":") ? "/128" : "/32"));
          }
        } catch (Exception e) {
          // not an IP: nothing to listen on for it
        }
      }
      return out;
    }
    return configured;
  }

  private Future<Void> reconcile(ServiceHealthState state) {
    Map<NamespacedName, Integer> wanted = state.healthCheckNodePorts() == null ? Map.of() : state.healthCheckNodePorts();
    List<Future<Void>> closing = new ArrayList<>();
    for (var it = services.entrySet().iterator(); it.hasNext(); ) {
      var e = it.next();
      Integer port = wanted.get(e.getKey());
      if (port == null || port != e.getValue().port) {
        LOG.log(Level.DEBUG, "Closing healthcheck service=\"" + e.getKey() + "\" port=" + e.getValue().port);
        e.getValue().servers.forEach(s -> closing.add(s.close()));
        it.remove();
      }
    }
    return Future.join(closing).transform(ignored -> {
      List<Future<Void>> opening = new ArrayList<>();
      for (Map.Entry<NamespacedName, Integer> e : new TreeMap<>(wanted).entrySet()) {
        if (services.containsKey(e.getKey())) {
          LOG.log(Level.DEBUG, "Existing healthcheck service=\"" + e.getKey() + "\" port=" + e.getValue());
        } else {
          LOG.log(Level.DEBUG, "Opening healthcheck service=\"" + e.getKey() + "\" port=" + e.getValue());
          opening.add(open(e.getKey(), e.getValue()));
        }
      }
      return Future.join(opening);
    }).transform(ignored -> {
      Map<NamespacedName, Integer> counts = state.localReadyEndpoints() == null ? Map.of() : state.localReadyEndpoints();
      services.forEach((name, service) -> service.localEndpoints = counts.getOrDefault(name, 0));
      LOG.log(Level.DEBUG, "Reporting endpoints for healthcheck endpoints=" + new TreeMap<>(counts));
      return Future.succeededFuture();
    });
  }

  /** Opens the port on every listen IP; on any failure closes what opened and leaves the service out. */
  private Future<Void> open(NamespacedName name, int port) {
    List<Future<HttpServer>> listens = new ArrayList<>();
    for (String host : listenHosts) {
      HttpServer server = vertx.createHttpServer(new HttpServerOptions().setHost(host).setPort(port))
          .requestHandler(req -> handle(name, req));
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
      LOG.log(Level.ERROR, "Failed to start healthcheck err=\"" + ServerLoop.listenError(new HostPort(listenHosts.isEmpty() ? "" : listenHosts.get(0), port), failure)
          + "\" node=\"" + node + "\" service=\"" + name + "\" port=" + port);
      return Future.succeededFuture();
    });
  }

  private void handle(NamespacedName name, HttpServerRequest req) {
    Service service = services.get(name);
    if (service == null) {
      LOG.log(Level.ERROR, "Received request for closed healthcheck service=\"" + name + "\"");
      req.response().end();
      return;
    }
    int count = service.localEndpoints;
    boolean proxyHealthy = health == null || health.verdict().healthy();
    String body = "{\n"
        + "\t\"service\": {\n"
        + "\t\t\"namespace\": " + HealthzServerVerticle.quote(name.namespace()) + ",\n"
        + "\t\t\"name\": " + HealthzServerVerticle.quote(name.name()) + "\n"
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
