package dev.kubeproxy.server;

import dev.kubeproxy.metrics.Metrics;
import dev.kubeproxy.metrics.ProxyMetrics;
import dev.kubeproxy.metrics.SliMetrics;

import dev.kubeproxy.runtime.AgentContext;

import dev.kubeproxy.config.AgentOptions;
import dev.kubeproxy.messages.EventRequest;
import dev.kubeproxy.config.ConfigzJson;
import dev.kubeproxy.config.FeatureGates;
import dev.kubeproxy.explain.DebugServicesHandler;
import dev.kubeproxy.gotext.GoQuote;
import dev.kubeproxy.logging.Log;
import dev.kubeproxy.net.HostPort;
import dev.kubeproxy.server.ServerLoop;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.ext.web.Route;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.util.List;
import java.util.TreeSet;
import java.util.function.IntConsumer;
import java.util.regex.Pattern;

/**
 * The metrics server on metricsBindAddress (cmd/kube-proxy/app/server.go serveMetrics): /metrics, /metrics/slis, /healthz
 * (+ /healthz/ping), /proxyMode, /configz, /debug/services, /flagz and /statusz under their feature gates, and with
 * enableProfiling the /debug/pprof equivalents and /debug/flags/v. Paths match exactly as Go's mux does; anything else is a Go-style 404.
 */
public class MetricsServerVerticle extends VerticleBase {
  private static final String TEXT = "text/plain; charset=utf-8";

  private final AgentOptions options;
  private final ProxyMetrics metrics;
  private final FeatureGates gates;
  private final IntConsumer verbositySetter;
  private final SliMetrics slis = new SliMetrics();
  private ServerLoop loop;

  public MetricsServerVerticle(AgentOptions options, AgentContext context) {
    this(options, context.metrics(), context.gates(), Log::setVerbosity);
  }

  /** With the feature gates of the options' configuration. */
  public MetricsServerVerticle(AgentOptions options, ProxyMetrics metrics, IntConsumer verbositySetter) {
    this(options, metrics, FeatureGates.of(options.config().featureGates), verbositySetter);
  }

  /**
   * @param verbositySetter what PUT /debug/flags/v calls with the new level (the logging backend's
   *                        run-time verbosity switch)
   */
  public MetricsServerVerticle(
      AgentOptions options, ProxyMetrics metrics, FeatureGates gates, IntConsumer verbositySetter) {
    this.options = options;
    this.metrics = metrics;
    this.gates = gates;
    this.verbositySetter = verbositySetter;
  }

  @Override
  public Future<?> start() {
    return HostPort.ofField("Metrics", "metricsBindAddress", options.config().metricsBindAddress)
        .compose(address -> address.map(this::serve).orElseGet(Future::succeededFuture));
  }

  private Future<Void> serve(HostPort address) {
    // What /metrics shows is registered once at start, as upstream's ProxyServer.Run does: the
    // metric sets of the running mode, and kubernetes_feature_enabled for every known gate.
    metrics.registerFor(options.config().proxyMode());
    for (FeatureGates.Gate gate : FeatureGates.KNOWN) {
      metrics.setFeatureEnabled(gate.name(), gate.stage().metricLabel(), gates.isEnabled(gate.name()));
    }
    // gzip when the scraper accepts it, as Go's promhttp handler does
    HttpServerOptions serverOptions = new HttpServerOptions().setCompressionSupported(true);
    loop = new ServerLoop(vertx, address, serverOptions, router(), options.config().bindAddressHardFail,
        "Metrics", err -> err, err -> "starting metrics server failed: " + err, EventRequest::failedToStartMetricServer);
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

  Router router() {
    Router router = Router.router(vertx);
    exact(router, "/metrics").handler(ctx -> ctx.response()
        .putHeader("Content-Type", Metrics.TEXT_CONTENT_TYPE).end(Metrics.scrape(metrics)));
    exact(router, "/metrics/slis").handler(this::slis);
    exact(router, "/healthz").handler(this::healthz);
    exact(router, "/healthz/ping").handler(ctx -> plain(ctx, 200, "ok"));
    exact(router, "/proxyMode").handler(ctx -> plain(ctx, 200, options.config().proxyMode().text()));
    exact(router, "/configz").handler(this::configz);
    // what the proxier programs per Service: no more than /configz shows, so not behind enableProfiling
    exact(router, "/debug/services").handler(new DebugServicesHandler(vertx));
    // the z-pages, under upstream's gates (beta and on by default); /statusz lists what the mux
    // lists (upstream's ListedPaths: the profiling and /debug/flags handlers are unlisted)
    List<String> listed = new java.util.ArrayList<>(List.of("/metrics", "/metrics/slis", "/healthz", "/healthz/ping",
        "/proxyMode", "/configz", "/debug/services"));
    if (gates.isEnabled("ComponentFlagz")) {
      listed.add("/flagz");
    }
    ZPages zpages = new ZPages(options.flags(), listed);
    if (gates.isEnabled("ComponentFlagz")) {
      exact(router, "/flagz").handler(zpages::flagz);
    }
    if (gates.isEnabled("ComponentStatusz")) {
      exact(router, "/statusz").handler(zpages::statusz);
    }
    if (options.config().enableProfiling) {
      new Profiling(vertx).install(router);
      exact(router, "/debug/flags").handler(this::flagsIndex);
      exact(router, "/debug/flags/v").handler(this::putVerbosity);
      router.routeWithRegex("^/debug/flags/.*").handler(this::flagsIndex);
    }
    router.route().last().handler(ctx -> ctx.response().setStatusCode(404).putHeader("Content-Type", TEXT)
        .putHeader("X-Content-Type-Options", "nosniff").end("404 page not found\n"));
    return router;
  }

  /** A route for exactly this path (vertx-web alone would also take a trailing slash). */
  static Route exact(Router router, String path) {
    return router.routeWithRegex("^" + Pattern.quote(path) + "$");
  }

  private void slis(RoutingContext ctx) {
    if (ctx.request().method() == HttpMethod.DELETE) {
      slis.registry().reset();
      ctx.response().putHeader("Content-Type", TEXT).end("metrics reset\n");
      return;
    }
    ctx.response().putHeader("Content-Type", Metrics.TEXT_CONTENT_TYPE).end(slis.registry().scrape());
  }

  /** The generic component health check with its single "ping" check (apiserver healthz). */
  private void healthz(RoutingContext ctx) {
    TreeSet<String> excluded = new TreeSet<>();
    List<String> exclude = ctx.queryParam("exclude");
    excluded.addAll(exclude);
    StringBuilder checks = new StringBuilder();
    if (excluded.remove("ping")) {
      checks.append("[+]ping excluded: ok\n");
    } else {
      slis.observe("ping", "healthz", true);
      checks.append("[+]ping ok\n");
    }
    if (!excluded.isEmpty()) {
      StringBuilder names = new StringBuilder();
      for (String name : excluded) {
        names.append(names.length() == 0 ? "" : ",").append('"').append(name.replace("\"", "\\\"")).append('"');
      }
      checks.append("warn: some health checks cannot be excluded: no matches for ").append(names).append('\n');
    }
    if (ctx.queryParams().contains("verbose")) {
      plain(ctx, 200, checks + "healthz check passed\n");
    } else {
      plain(ctx, 200, "ok");
    }
  }

  private void configz(RoutingContext ctx) {
    try {
      String body = ConfigzJson.encode(options.config());
      ctx.response().putHeader("Content-Type", "application/json").putHeader("X-Content-Type-Options", "nosniff").end(body);
    } catch (Exception e) {
      ctx.response().setStatusCode(500).putHeader("Content-Type", TEXT).putHeader("X-Content-Type-Options", "nosniff")
          .end("error marshaling json: " + e.getMessage() + "\n");
    }
  }

  private void flagsIndex(RoutingContext ctx) {
    ctx.response().putHeader("Content-Type", "text/html; charset=utf-8").end("<html>\n<head>\n<title>/debug/flags/</title>\n</head>\n"
        + "<body>\n<p>Flags that can be changed at run time with PUT:</p>\n<table>\n"
        + "<tr><td><a href=\"/debug/flags/v\">v</a></td><td>log verbosity (PUT a number)</td></tr>\n"
        + "</table>\n</body>\n</html>\n");
  }

  private void putVerbosity(RoutingContext ctx) {
    if (ctx.request().method() != HttpMethod.PUT) {
      flagText(ctx, 406, "unsupported http method");
      return;
    }
    ctx.request().body().onComplete(ar -> {
      if (ar.failed()) {
        flagText(ctx, 400, "error reading request body: " + ar.cause().getMessage());
        return;
      }
      String value = ar.result().toString();
      int level;
      try {
        long parsed = Long.parseLong(value);
        if (parsed < 0 || parsed > 0xffffffffL || !value.matches("[0-9]+")) {
          throw new NumberFormatException();
        }
        level = (int) Math.min(parsed, Integer.MAX_VALUE);
      } catch (NumberFormatException e) {
        flagText(ctx, 400, "failed set klog.logging.verbosity " + value + ": strconv.ParseUint: parsing "
            + GoQuote.quote(value) + ": invalid syntax; want an unsigned integer");
        return;
      }
      try {
        verbositySetter.accept(level);
      } catch (RuntimeException e) {
        flagText(ctx, 500, "failed set klog.logging.verbosity " + value + ": " + e.getMessage());
        return;
      }
      Log.info("Log verbosity changed through /debug/flags/v", "v", level);
      flagText(ctx, 200, "successfully set klog.logging.verbosity to " + value);
    });
  }

  /** component-base's writePlainText: text/plain, nosniff, the text and a newline. */
  private static void flagText(RoutingContext ctx, int code, String text) {
    ctx.response().setStatusCode(code).putHeader("Content-Type", "text/plain").putHeader("X-Content-Type-Options", "nosniff")
        .end(text + "\n");
  }

  private static void plain(RoutingContext ctx, int code, String body) {
    ctx.response().setStatusCode(code).putHeader("Content-Type", TEXT).putHeader("X-Content-Type-Options", "nosniff").end(body);
  }

}
