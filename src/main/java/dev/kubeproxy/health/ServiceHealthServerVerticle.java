package dev.kubeproxy.health;

import dev.kubeproxy.AgentOptions;
import io.vertx.core.VerticleBase;

/** One HTTP server per healthCheckNodePort, reconciled from health.services messages. (Skeleton: owned by helper B (http).) */
public class ServiceHealthServerVerticle extends VerticleBase {
  public ServiceHealthServerVerticle(AgentOptions options, dev.kubeproxy.cluster.NodeInfo nodeInfo) {}
}
