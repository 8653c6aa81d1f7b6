package dev.kubeproxy.metrics;

import dev.kubeproxy.AgentOptions;
import io.vertx.core.VerticleBase;

/** The metrics server: /metrics, /healthz, /proxyMode, /configz, /debug/flags/v. (Skeleton: owned by helper B (http).) */
public class MetricsServerVerticle extends VerticleBase {
  public MetricsServerVerticle(AgentOptions options) {}
}
