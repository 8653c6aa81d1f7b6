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
import java.lang.management.ManagementFactory;

/**
 * Builds the Micrometer registry of the JVM and process meters. A class of its own, not a static
 * method of {@link Metrics}: the registry is made while {@link Metrics} initializes, and a GC
 * during that time makes the JVM's notification thread record a GC meter through the filter below.
 * Had the filter been a lambda of {@link Metrics}, that thread would wait for {@link Metrics}'
 * initialization while holding the registry's lock, which the initializing thread needs next: the
 * agent hung at start, before any server listened.
 */
final class RuntimeMeters {
  private RuntimeMeters() {}

  static PrometheusMeterRegistry registry() {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    // Two Micrometer meters break Prometheus naming rules (promtool: "abbreviated units",
    // "_count suffix"); the CPU time comes back under the process collector's usual name instead.
    registry.config().meterFilter(MeterFilter.deny(id -> id.getName().equals("process.cpu.time")
        || id.getName().equals("system.cpu.count")));
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
