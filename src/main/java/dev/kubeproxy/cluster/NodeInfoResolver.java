package dev.kubeproxy.cluster;

import dev.kubeproxy.AgentOptions;
import io.vertx.core.Future;
import io.vertx.core.Vertx;

/** Finds this node's name, IPs and podCIDRs before the proxier is built (server.md §9). Skeleton: helper D. */
public final class NodeInfoResolver {
  private NodeInfoResolver() {}

  public static Future<NodeInfo> resolve(Vertx vertx, AgentOptions options) {
    return Future.failedFuture("not written yet");
  }
}
