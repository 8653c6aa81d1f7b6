package dev.kubeproxy.metrics;

import dev.kubeproxy.server.MetricsServerVerticle;

import dev.kubeproxy.config.ProxyMode;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.kubeproxy.host.CommandRunner;
import dev.kubeproxy.host.ProcessCommandRunner;
import dev.kubeproxy.testutil.Await;
import dev.kubeproxy.testutil.TestConfigs;
import dev.kubeproxy.testutil.tier.Unit;
import io.vertx.core.Vertx;
import io.vertx.ext.web.client.WebClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Runs `promtool check metrics` on the real /metrics output of an agent-built Vert.x (kube-proxy
 * families with every label vector populated, JVM/process meters and Vert.x's own meters).
 */
@Unit
class PromtoolCheckTest {
  /**
   * The only complaints allowed: upstream kube-proxy itself exposes these gauges with a "_total"
   * suffix, and dashboards depend on the names, so they are kept exactly.
   */
  static final Set<String> UPSTREAM_NAMES_PROMTOOL_DISLIKES = Set.of(
      "kubeproxy_sync_proxy_rules_iptables_total non-counter metrics should not have \"_total\" suffix",
      "kubeproxy_sync_proxy_rules_no_local_endpoints_total non-counter metrics should not have \"_total\" suffix");

  @ParameterizedTest
  @EnumSource(value = ProxyMode.class, names = {"IPTABLES", "NFTABLES"})
  void onlyUpstreamNamesAreFlagged(ProxyMode mode) throws Exception {
    assumeTrue(Files.isExecutable(Path.of("/usr/bin/promtool")) || onPath("promtool"),
        "promtool is not installed (Debian package prometheus); skipping the exposition lint");
    ProxyMetrics metrics = new ProxyMetrics().registerFor(mode);
    for (String family : List.of("IPv4", "IPv6")) {
      metrics.observeSyncDuration(family, Duration.ofMillis(12));
      metrics.observeFullSyncDuration(family, Duration.ofMillis(12));
      metrics.observePartialSyncDuration(family, Duration.ofMillis(2));
      metrics.observeNetworkProgrammingLatency(family, Duration.ofSeconds(3));
      metrics.setLastSyncTimestamp(family, java.time.Instant.now());
      metrics.setLastQueuedTimestamp(family, java.time.Instant.now());
      metrics.setNoLocalEndpoints(family, "internal", 1);
      metrics.setNoLocalEndpoints(family, "external", 0);
      metrics.setIptablesRulesTotal(family, "nat", 10);
      metrics.setIptablesRulesTotal(family, "filter", 4);
      metrics.setIptablesRulesLast(family, "nat", 10);
      metrics.setIptablesRulesLast(family, "filter", 4);
      metrics.incIptablesRestoreFailures(family);
      metrics.incNftablesSyncFailures(family);
      metrics.observeConntrackReconcile(family, Duration.ofMillis(3), 2);
    }
    metrics.incHealthz(200);
    metrics.incHealthz(503);
    metrics.incLivez(200);
    metrics.setFeatureEnabled("NFTablesProxyMode", "BETA", true);

    Vertx vertx = Metrics.vertxBuilder().build();
    try {
      MetricsServerVerticle server = new MetricsServerVerticle(TestConfigs.options(c -> {
        c.mode = mode.text();
        c.metricsBindAddress = "127.0.0.1:0";
      }), metrics, v -> { });
      Await.result(vertx.deployVerticle(server));
      WebClient client = WebClient.create(vertx);
      Await.result(client.get(server.actualPort(), "127.0.0.1", "/healthz").send());
      vertx.eventBus().consumer("promtool-check", m -> m.reply("ok"));
      Await.result(vertx.eventBus().request("promtool-check", "ping"));
      String text = Await.result(client.get(server.actualPort(), "127.0.0.1", "/metrics").send()).bodyAsString();
      assertTrue(text.contains("vertx_http_server_requests_total"), "Vert.x meters are in the same registry");
      assertFalse(text.contains("vertx_eventbus_"), "the internal event bus is not metered (a gauge registered per message)");

      CommandRunner.Result result = new ProcessCommandRunner().run(List.of("promtool", "check", "metrics"), text);
      Set<String> complaints = Arrays.stream((result.stdout() + "\n" + result.stderr()).split("\n"))
          .map(String::trim).filter(s -> !s.isEmpty()).collect(Collectors.toCollection(TreeSet::new));
      Set<String> expected = new TreeSet<>();
      for (String c : UPSTREAM_NAMES_PROMTOOL_DISLIKES) {
        if (text.contains("# TYPE " + c.substring(0, c.indexOf(' ')) + " ")) {
          expected.add(c);
        }
      }
      assertEquals(expected, complaints, "promtool exit " + result.exitCode());
      if ("iptables".equals(mode)) {
        assertEquals(2, expected.size(), "both upstream gauges are exposed in iptables mode");
      }
    } finally {
      Await.result(vertx.close());
    }
  }

  private static boolean onPath(String tool) {
    for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
      if (Files.isExecutable(Path.of(dir, tool))) {
        return true;
      }
    }
    return false;
  }
}
