package dev.kubeproxy.runtime;

import dev.kubeproxy.host.HostPaths;
import dev.kubeproxy.host.OomScore;

import dev.kubeproxy.config.AgentOptions;
import dev.kubeproxy.logging.Log;
import dev.kubeproxy.backend.conntrack.ConntrackSysctls;

/**
 * The privileged host setup at start (server_linux.go): the conntrack sysctls (setupConntrack,
 * fatal on failure), which the proxier waits for, and this process's OOM score adjustment
 * (cmd/kube-proxy/app/server.go ProxyServer.Run, oom_score_adj; only logged on failure), which
 * nothing waits for: where it is refused (no CAP_SYS_RESOURCE, e.g. a user namespace) its two
 * attempts 100 ms apart would otherwise hold back the first sync. Blocking: run on a worker.
 */
public final class PlatformSetup {
  /**
   * @param sysfsReadOnly the conntrack hashsize could not be raised because /sys is read-only;
   *                      upstream records a Warning event on the Node (reason "readOnlySysFS",
   *                      action "StartKubeProxy", note {@link ConntrackSysctls#READ_ONLY_SYSFS_NOTE})
   */
  public record Result(boolean sysfsReadOnly) {}

  private PlatformSetup() {}

  public static Result apply(AgentOptions options) throws Exception {
    return run(options, HostPaths.host());
  }

  /** Applies the conntrack sysctls against these paths; throws on a fatal failure. */
  public static Result run(AgentOptions options, HostPaths paths) throws Exception {
    ConntrackSysctls.Outcome outcome = new ConntrackSysctls(paths).apply(options.config().conntrack);
    boolean readOnly = outcome == ConntrackSysctls.Outcome.READ_ONLY_SYSFS;
    if (readOnly) {
      Log.warn("Cannot raise the conntrack hashsize", "reason", "readOnlySysFS", "note", ConntrackSysctls.READ_ONLY_SYSFS_NOTE);
    }
    return new Result(readOnly);
  }

  public static void adjustOomScore(AgentOptions options) {
    adjustOomScore(options, HostPaths.host());
  }

  /** Sets the configured oomScoreAdj (none: left alone); a failure is only logged. */
  public static void adjustOomScore(AgentOptions options, HostPaths paths) {
    Integer oomScoreAdj = options.config().oomScoreAdj;
    if (oomScoreAdj != null) {
      try {
        OomScore.apply(paths.oomScoreAdj(), oomScoreAdj);
      } catch (Exception e) {
        Log.v(2).info("Failed to apply OOMScore", "err", e.getMessage());
      }
    }
  }
}
