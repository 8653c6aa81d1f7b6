package dev.kubeproxy.metrics;

import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;

/**
 * The set of upstream-named metric families exposed on one endpoint, written sorted by name as
 * Go's registry does. Registering the same family twice is harmless; a different family under an
 * existing name is a programming error.
 */
public final class KubeRegistry {
  private final Map<String, KubeMetric<?>> families = new ConcurrentSkipListMap<>();

  public <M extends KubeMetric<?>> M register(M metric) {
    KubeMetric<?> previous = families.putIfAbsent(metric.name(), metric);
    if (previous != null && previous != metric) {
      throw new IllegalStateException("metric " + metric.name() + " is already registered");
    }
    return metric;
  }

  public boolean isRegistered(String name) {
    return families.containsKey(name);
  }

  /** Clears every family's series (the /metrics/slis DELETE reset). */
  public void reset() {
    families.values().forEach(KubeMetric::reset);
  }

  /** Prometheus text format 0.0.4. */
  public String scrape() {
    StringBuilder out = new StringBuilder();
    writeTo(out);
    return out.toString();
  }

  public void writeTo(StringBuilder out) {
    for (KubeMetric<?> family : families.values()) {
      family.writeTo(out);
    }
  }
}
