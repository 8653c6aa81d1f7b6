package dev.kubeproxy.health;

import dev.kubeproxy.gotext.GoTime;
import dev.kubeproxy.messages.HealthUpdate;
import dev.kubeproxy.net.HostPort;
import dev.kubeproxy.server.ServerLoop;

import dev.kubeproxy.config.AgentOptions;
import dev.kubeproxy.messages.EventBusAddresses;
import dev.kubeproxy.messages.EventRequest;
import dev.kubeproxy.gotext.GoQuote;
import dev.kubeproxy.metrics.ProxyMetrics;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;

/**
 * The proxier health server: /healthz and /livez on healthzBindAddress (pkg/proxy/healthcheck/proxier_health.go),
 * driven by {@link HealthUpdate} messages on {@link EventBusAddresses#HEALTH} and the node's
 * eligibility on {@link EventBusAddresses#NODE_ELIGIBLE}. An empty healthzBindAddress disables it.
 *
 * <p>The proxier must <em>publish</em> its health messages: this verticle and the service
 * health-check servers both keep the state.
 */
public class HealthzServerVerticle extends VerticleBase {
  static final String NOT_FOUND = "404 page not found\n";

  private final AgentOptions options;
  private final Clock clock;
  private final ProxyMetrics metrics;
  private ProxierHealth health;
  private ServerLoop loop;
  private boolean nodeKnown = true;

  /**
   * For a start before the Node is known: the node counts as not eligible until a
   * {@link EventBusAddresses#NODE_ELIGIBLE} message says otherwise (upstream v1.33: no Node, not
   * eligible), so /healthz is 503 and /livez answers from the start.
   */
  public static HealthzServerVerticle beforeTheNodeIsKnown(AgentOptions options, Clock clock, ProxyMetrics metrics) {
    HealthzServerVerticle v = new HealthzServerVerticle(options, clock, metrics);
    v.nodeKnown = false;
    return v;
  }

  public HealthzServerVerticle(AgentOptions options, Clock clock, ProxyMetrics metrics) {
    this.options = options;
    this.clock = clock;
    this.metrics = metrics;
  }

  /** The health timeout: 2 × the mode's syncPeriod (60 s by default). */
  public static Duration healthTimeout(AgentOptions options) {
    return options.config().syncSettings().healthTimeout();
  }

  @Override
  public Future<?> start() {
    return HostPort.ofField("Healthz", "healthzBindAddress", options.config().healthzBindAddress)
        .compose(address -> address.map(this::serve).orElseGet(Future::succeededFuture));
  }

  private Future<Void> serve(HostPort address) {
    health = new ProxierHealth(healthTimeout(options), clock);
    health.setNodeEligible(nodeKnown);
    vertx.eventBus().<HealthUpdate>localConsumer(EventBusAddresses.HEALTH, m -> health.apply(m.body()));
    vertx.eventBus().<Boolean>localConsumer(EventBusAddresses.NODE_ELIGIBLE, m -> health.setNodeEligible(Boolean.TRUE.equals(m.body())));
    loop = new ServerLoop(vertx, address, new HttpServerOptions(), this::handle, options.config().bindAddressHardFail,
        "Healthz", err -> "failed to start proxier healthz on " + address + ": " + err,
        err -> "healthz server failed: " + err, EventRequest::failedToStartProxierHealthcheck);
    return loop.start();
  }

  @Override
  public Future<?> stop() {
    return loop == null ? Future.succeededFuture() : loop.close();
  }

  /** The listening port (for tests that bind port 0), or -1. */
  public int actualPort() {
    return loop == null ? -1 : loop.actualPort();
  }

  /** The state this server answers from. */
  public ProxierHealth health() {
    return health;
  }

  private void handle(HttpServerRequest req) {
    switch (req.path()) {
      case "/healthz" -> healthz(req);
      case "/livez" -> livez(req);
      default -> notFound(req.response());
    }
  }

  /**
   * /healthz: 200 when no family is late and the node is eligible. The body is upstream's
   * ProxyHealth since v1.33 (healthzHandler in pkg/proxy/healthcheck/proxy_health.go); its
   * "healthy" is the proxiers' health alone, the node's part is in "nodeEligible".
   */
  private void healthz(HttpServerRequest req) {
    ProxierHealth.Health h = health.health();
    boolean nodeEligible = health.nodeEligible();
    int code = h.healthy() && nodeEligible ? 200 : 503;
    metrics.incHealthz(code);
    json(req.response(), code, body(h, code == 200 ? clock.instant() : h.lastUpdated(), nodeEligible));
  }

  /** /livez: as /healthz without the node's eligibility (livezHandler upstream). */
  private void livez(HttpServerRequest req) {
    ProxierHealth.Health h = health.health();
    int code = h.healthy() ? 200 : 503;
    metrics.incLivez(code);
    json(req.response(), code, body(h, code == 200 ? clock.instant() : h.lastUpdated(), null));
  }

  /**
   * Go's json.Marshal of ProxyHealth: fields in declaration order, nodeEligible only when set,
   * status (map keys sorted) only when some family has synced. A healthy answer reports "now" as
   * lastUpdated, for compatibility with releases where it was the last sync-loop run.
   */
  static String body(ProxierHealth.Health h, Instant lastUpdated, Boolean nodeEligible) {
    StringBuilder b = new StringBuilder(160).append("{\"lastUpdated\":").append(GoQuote.quote(GoTime.format(lastUpdated)))
        .append(",\"currentTime\":").append(GoQuote.quote(GoTime.format(h.now())));
    if (nodeEligible != null) {
      b.append(",\"nodeEligible\":").append(nodeEligible);
    }
    b.append(",\"healthy\":").append(h.healthy());
    if (!h.status().isEmpty()) {
      b.append(",\"status\":{");
      String sep = "";
      for (var e : new java.util.TreeMap<>(h.statusByName()).entrySet()) {
        b.append(sep).append(GoQuote.quote(e.getKey())).append(":{\"lastUpdated\":").append(GoQuote.quote(GoTime.format(e.getValue().lastUpdated())))
            .append(",\"healthy\":").append(e.getValue().healthy()).append('}');
        sep = ",";
      }
      b.append('}');
    }
    return b.append('}').toString();
  }

  static void json(HttpServerResponse resp, int code, String body) {
    resp.setStatusCode(code)
        .putHeader("Content-Type", "application/json")
        .putHeader("X-Content-Type-Options", "nosniff")
        .end(body);
  }

  /** Go's http.NotFound. */
  static void notFound(HttpServerResponse resp) {
    resp.setStatusCode(404)
        .putHeader("Content-Type", "text/plain; charset=utf-8")
        .putHeader("X-Content-Type-Options", "nosniff")
        .end(NOT_FOUND);
  }

}
