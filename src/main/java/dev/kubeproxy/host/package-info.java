/**
 * What the agent needs from the host, without Kubernetes knowledge: OS commands with time limits
 * ({@link dev.kubeproxy.host.CommandRunner}), sysctls, the OOM score, heap compaction and the
 * host's addresses. The set-up at start that uses them is {@code dev.kubeproxy.runtime.PlatformSetup}
 * (cmd/kube-proxy/app/server_linux.go). Netlink sockets are in the netlink subpackage.
 *
 * <p>Owns nothing long-lived. May call: net and logging only; no Kubernetes concept. Called by the
 * backends and the runtime, never the other way round.
 */
package dev.kubeproxy.host;
