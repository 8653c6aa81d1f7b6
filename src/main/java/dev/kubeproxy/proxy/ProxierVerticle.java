package dev.kubeproxy.proxy;

import dev.kubeproxy.AgentOptions;
import io.vertx.core.VerticleBase;

/** Owns the change trackers per family, the bounded-frequency sync runner and the backends. (Skeleton: owned by helper C (model).) */
public class ProxierVerticle extends VerticleBase {
  public ProxierVerticle(AgentOptions options, dev.kubeproxy.cluster.NodeInfo nodeInfo) {}
}
