package dev.kubeproxy.metrics;

import dev.kubeproxy.metrics.KubeMetric.Stability;

/**
 * The health-check SLI metrics served on /metrics/slis (component-base slis): the result of the
 * last run of each check and a running count of results. The metrics port's /healthz updates them.
 */
public final class SliMetrics {
  private final KubeRegistry registry = new KubeRegistry();
  private final KubeGauge healthcheck = registry.register(new KubeGauge("kubernetes_healthcheck",
      "This metric records the result of a single healthcheck.", Stability.STABLE, "name", "type"));
  private final KubeCounter healthchecksTotal = registry.register(new KubeCounter("kubernetes_healthchecks_total",
      "This metric records the results of all healthcheck.", Stability.STABLE, "name", "type", "status"));

  /** Records one run of the named check of this type ("healthz"). */
  public void observe(String name, String type, boolean success) {
    healthcheck.set(success ? 1 : 0, name, type);
    healthchecksTotal.inc(name, type, success ? "success" : "error");
  }

  public KubeRegistry registry() {
    return registry;
  }
}
