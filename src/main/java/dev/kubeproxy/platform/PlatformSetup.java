package dev.kubeproxy.platform;

import dev.kubeproxy.AgentOptions;

/** OOM score and conntrack sysctls at start (server_linux.go). Blocking: run on a worker. Skeleton: helper B. */
public final class PlatformSetup {
  private PlatformSetup() {}

  public static void apply(AgentOptions options) throws Exception {}
}
