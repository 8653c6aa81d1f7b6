package dev.kubeproxy.metrics;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.Vertx;
import io.vertx.core.VertxBuilder;
import io.vertx.core.VertxOptions;
import io.vertx.micrometer.Label;
import io.vertx.micrometer.MicrometerMetricsFactory;
import io.vertx.micrometer.MetricsDomain;
import io.vertx.micrometer.MicrometerMetricsOptions;

/**
 * The process's one metrics registry and how /metrics is assembled.
 *
 * <p>/metrics = the upstream-named kube-proxy families ({@link ProxyMetrics#registry()}, exact
 * names and types) followed by the runtime families of one Micrometer
 * {@link PrometheusMeterRegistry}: the JVM and process meters (Java's counterpart of upstream's
 * go_* and process_* collectors) and Vert.x's own meters when Vert.x is built with
 * {@link #vertxBuilder()}.
 */
public final class Metrics {
  private static final PrometheusMeterRegistry REGISTRY = RuntimeMeters.registry();

  private Metrics() {}

  /** The process-wide Micrometer registry (JVM, process and Vert.x meters). */
  public static PrometheusMeterRegistry registry() {
    return REGISTRY;
  }

  /**
   * Vert.x options with Micrometer metrics enabled; use together with {@link #metricsFactory()}
   * (or simply {@link #vertxBuilder()}) so that Vert.x's meters land in {@link #registry()}.
   */
  public static VertxOptions vertxOptions() {
    // JVM meters are bound by this class already; Vert.x must not bind them a second time. The
    // event bus is the agent's internal plumbing, and vertx-micrometer-metrics registers its
    // "pending" gauge again for every message received, which Micrometer ≥ 1.13.9 answers with a
    // double-registration check and log call for each, a real cost while the objects are read at
    // start. The local address labels each HTTP server's meters: the agent runs several servers,
    // whose unlabelled gauges would collide (Micrometer keeps the first and logs a warning).
    return new VertxOptions().setMetricsOptions(new MicrometerMetricsOptions().setEnabled(true)
        .setJvmMetricsEnabled(false).addDisabledMetricsCategory(MetricsDomain.EVENT_BUS).addLabels(Label.LOCAL));
  }

  /** The Vert.x metrics SPI bound to {@link #registry()}. */
  public static MicrometerMetricsFactory metricsFactory() {
    return new MicrometerMetricsFactory(REGISTRY);
  }

  /**
   * How the agent builds its Vert.x instance: {@code Metrics.vertxBuilder().build()}, or
   * {@code Vertx.builder().with(myOptions.setMetricsOptions(Metrics.vertxOptions().getMetricsOptions()))
   * .withMetrics(Metrics.metricsFactory())} to merge with other options.
   */
  public static VertxBuilder vertxBuilder() {
    return Vertx.builder().with(vertxOptions()).withMetrics(metricsFactory());
  }

  /** The complete /metrics body in Prometheus text format 0.0.4. */
  public static String scrape(ProxyMetrics proxyMetrics) {
    StringBuilder out = new StringBuilder(16 * 1024);
    proxyMetrics.registry().writeTo(out);
    out.append(REGISTRY.scrape());
    return out.toString();
  }

  /** The Content-Type of {@link #scrape}. */
  public static final String TEXT_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

}
