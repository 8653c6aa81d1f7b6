package dev.kubeproxy.proxy;

import dev.kubeproxy.AgentOptions;
import dev.kubeproxy.cluster.NodeInfo;
import dev.kubeproxy.platform.CommandRunner;
import java.util.List;

/** Builds the backends of the configured mode, one per active family, and removes leftovers. Skeleton: helper C. */
public final class Proxiers {
  private Proxiers() {}

  /** One backend per family the node runs (dual-stack: both), in the configured mode. */
  public static List<ProxyBackend> create(AgentOptions options, NodeInfo node, CommandRunner runner) {
    return List.of();
  }

  /**
   * Removes the rules of every mode (iptables, ip6tables, nftables); true when all went well.
   * Used by --cleanup, and at start for the modes that are not in use (server.md §6 step 2).
   */
  public static boolean cleanupLeftovers(String activeMode, boolean all, CommandRunner runner) {
    return true;
  }
}
