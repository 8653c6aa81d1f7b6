package dev.kubeproxy.explain;

import dev.kubeproxy.messages.EventBusAddresses;
import dev.kubeproxy.messages.DebugServicesQuery;
import dev.kubeproxy.messages.ProxierSnapshot;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.eventbus.ReplyFailure;
import io.vertx.ext.web.RoutingContext;

/**
 * GET /debug/services[?service=NS/NAME[:PORT]][&from=IP&to=IP:PORT][&format=text]: asks the proxier
 * for its snapshot over the event bus and explains it. 200 with the report; 404 when a Service was
 * named and matched nothing (the report lists close names); 400 for a malformed parameter; 503
 * while the proxier is not running.
 */
public final class DebugServicesHandler implements Handler<RoutingContext> {
  static final long TIMEOUT_MS = 10_000;
  private final Vertx vertx;

  public DebugServicesHandler(Vertx vertx) {
    this.vertx = vertx;
  }

  @Override
  public void handle(RoutingContext ctx) {
    boolean text = "text".equals(ctx.request().getParam("format"));
    ServiceQuery query;
    try {
      query = ServiceQuery.parse(ctx.request().getParam("service"), ctx.request().getParam("from"),
          ctx.request().getParam("to"));
    } catch (IllegalArgumentException e) {
      plain(ctx, 400, e.getMessage() + "\n");
      return;
    }
    vertx.eventBus().<ProxierSnapshot>request(EventBusAddresses.DEBUG_SERVICES, new DebugServicesQuery(query.service(), query.tracesPath()),
            new DeliveryOptions().setSendTimeout(TIMEOUT_MS))
        .compose(msg -> vertx.executeBlocking(() -> ReportBuilder.build(msg.body(), query), false))
        .onSuccess(report -> {
          int status = report.empty() && query.service() != null ? 404 : 200;
          if (text) {
            plain(ctx, status, TextReport.of(report));
          } else {
            ctx.response().setStatusCode(status).putHeader("Content-Type", "application/json")
                .putHeader("X-Content-Type-Options", "nosniff").end(JsonReport.of(report).encodePrettily() + "\n");
          }
        })
        .onFailure(err -> {
          if (err instanceof ReplyException re && re.failureType() != ReplyFailure.RECIPIENT_FAILURE) {
            plain(ctx, 503, "the proxier is not running yet (" + re.failureType() + "); try again in a few seconds\n");
          } else {
            plain(ctx, 500, "could not explain the services: " + err.getMessage() + "\n");
          }
        });
  }

  private static void plain(RoutingContext ctx, int status, String body) {
    ctx.response().setStatusCode(status).putHeader("Content-Type", "text/plain; charset=utf-8")
        .putHeader("X-Content-Type-Options", "nosniff").end(body);
  }
}
