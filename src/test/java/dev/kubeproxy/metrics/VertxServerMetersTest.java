package dev.kubeproxy.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.kubeproxy.testutil.Await;
import dev.kubeproxy.testutil.FreePorts;
import dev.kubeproxy.testutil.tier.Unit;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.ext.web.client.WebClient;
import java.io.IOException;

import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** Vert.x's own HTTP server meters in the process registry, as the agent runs several servers. */
@Unit
class VertxServerMetersTest {

  @Test
  void eachServerHasItsOwnMetersByLocalAddress() throws IOException {
    Vertx vertx = Metrics.vertxBuilder().build();
    try {
      // fixed ports, as the agent's servers have: the label is the address a server was asked to listen on
      HttpServer healthz = Await.result(vertx.createHttpServer().requestHandler(r -> r.response().end("ok"))
          .listen(FreePorts.loopback(), "127.0.0.1"));
      HttpServer metrics = Await.result(vertx.createHttpServer().requestHandler(r -> r.response().end("m"))
          .listen(FreePorts.loopback(), "127.0.0.1"));
      WebClient client = WebClient.create(vertx);
      Await.result(client.get(healthz.actualPort(), "127.0.0.1", "/").send());
      Await.result(client.get(metrics.actualPort(), "127.0.0.1", "/").send());

      // without a local label both servers share one gauge: the second is dropped with a warning in the log
      Set<String> locals = Metrics.registry().find("vertx.http.server.active.connections").gauges().stream()
          .map(g -> String.valueOf(g.getId().getTag("local"))).collect(Collectors.toSet());
      Set<String> expected = Set.of("127.0.0.1:" + healthz.actualPort(), "127.0.0.1:" + metrics.actualPort());
      assertEquals(expected, locals.stream().filter(expected::contains).collect(Collectors.toSet()), "gauges: " + locals);
    } finally {
      Await.result(vertx.close());
    }
  }

}
