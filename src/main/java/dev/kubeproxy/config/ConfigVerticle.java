package dev.kubeproxy.config;

import dev.kubeproxy.AgentOptions;
import io.vertx.core.VerticleBase;

/** Loads nothing itself: watches the --config file and sends agent.fatal on write/rename/..data swap. (Skeleton: owned by helper A (shell).) */
public class ConfigVerticle extends VerticleBase {
  public ConfigVerticle(AgentOptions options) {}
}
