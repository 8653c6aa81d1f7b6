package dev.kubeproxy.metrics;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.FileDescriptorMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.Vertx;
import io.vertx.core.VertxBuilder;
import io.vertx.core.VertxOptions;
import io.vertx.micrometer.MicrometerMetricsFactory;
import io.vertx.micrometer.MicrometerMetricsOptions;
import java.lang.management.ManagementFactory;

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
  private static final PrometheusMeterRegistry REGISTRY = createRegistry();

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
    // JVM meters are bound by this class already; Vert.x must not bind them a second time.
    return new VertxOptions().setMetricsOptions(new MicrometerMetricsOptions().setEnabled(true).setJvmMetricsEnabled(false));
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

  private static PrometheusMeterRegistry createRegistry() {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    // Two Micrometer meters break Prometheus naming rules (promtool: "abbreviated units",
    // "_count suffix"); the CPU time comes back under the process collector's usual name instead.
    // Micrometer's own filters, not a lambda of this class: a GC notification registering a meter
    // from another thread while this static initializer runs would wait for this class's
    // initialization while holding the registry's lock that the initializer waits for (seen:
    // the agent hung at start under -XX:MaxRAM=256m).
    registry.config().meterFilter(MeterFilter.denyNameStartsWith("process.cpu.time"));
    registry.config().meterFilter(MeterFilter.denyNameStartsWith("system.cpu.count"));
    if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
      FunctionCounter.builder("process.cpu.seconds", os, o -> o.getProcessCpuTime() / 1e9)
          .description("Total user and system CPU time spent in seconds.")
          .register(registry);
    }
    new ClassLoaderMetrics().bindTo(registry);
    new JvmMemoryMetrics().bindTo(registry);
    new JvmGcMetrics().bindTo(registry);
    new JvmThreadMetrics().bindTo(registry);
    new ProcessorMetrics().bindTo(registry);
    new UptimeMetrics().bindTo(registry);
    new FileDescriptorMetrics().bindTo(registry);
    new ProcessMemoryMetrics().bindTo(registry);
    return registry;
  }
}
