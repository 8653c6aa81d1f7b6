package dev.kubeproxy.cluster;

import dev.kubeproxy.AgentOptions;
import io.vertx.core.VerticleBase;

/** Informers (or the --manifests source) that send cluster.* messages. (Skeleton: owned by helper D (cluster).) */
public class ClusterWatchVerticle extends VerticleBase {
  public ClusterWatchVerticle(AgentOptions options) {}
}
