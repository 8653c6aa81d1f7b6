package dev.kubeproxy.config;

import dev.kubeproxy.config.KubeProxyConfiguration;

/**
 * Everything a running agent needs: the completed, validated configuration plus the options
 * that are not part of the configuration file (upstream's Options placeholders).
 *
 * @param config       the effective configuration (defaults, file or flags, platform defaults applied)
 * @param master       --master: the API server address overriding the kubeconfig, or null
 * @param hostname     the node name: hostnameOverride (trimmed, lower-cased) or the OS hostname
 * @param manifestsDir --manifests: read cluster objects from this directory instead of the API, or null
 * @param dryRun       --dry-run: print the rules instead of applying them
 * @param cleanup      --cleanup: remove every rule kube-proxy creates, then exit
 * @param initOnly     --init-only: do the privileged setup, then exit
 * @param flags        every command-line flag by name with its value as set or its default (what
 *                     /flagz shows), sorted; empty when not known
 */
public record AgentOptions(
    KubeProxyConfiguration config,
    String master,
    String hostname,
    String manifestsDir,
    boolean dryRun,
    boolean cleanup,
    boolean initOnly,
    java.util.SortedMap<String, String> flags) {

  public AgentOptions {
    flags = java.util.Collections.unmodifiableSortedMap(new java.util.TreeMap<>(flags == null ? java.util.Map.of() : flags));
  }

  /** Without the flag values (tests, and callers that have none). */
  public AgentOptions(KubeProxyConfiguration config, String master, String hostname, String manifestsDir,
      boolean dryRun, boolean cleanup, boolean initOnly) {
    this(config, master, hostname, manifestsDir, dryRun, cleanup, initOnly, null);
  }
}
