package dev.kubeproxy.health;

import dev.kubeproxy.AgentOptions;
import io.vertx.core.VerticleBase;

/** The proxier healthz server: /healthz and /livez on healthzBindAddress. (Skeleton: owned by helper B (http).) */
public class HealthzServerVerticle extends VerticleBase {
  public HealthzServerVerticle(AgentOptions options) {}
}
