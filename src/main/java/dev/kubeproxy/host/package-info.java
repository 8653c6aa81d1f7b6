/**
 * What the agent needs from the host, without Kubernetes knowledge: OS commands with time limits
 * ({@link dev.kubeproxy.host.CommandRunner}), sysctls, the OOM score, the host's addresses and
 * CIDR arithmetic, and the privileged setup at start ({@link dev.kubeproxy.runtime.PlatformSetup},
 * cmd/kube-proxy/app/server_linux.go). Netlink sockets are in the netlink subpackage.
 *
 * <p>Owns nothing long-lived. May call: logging, the proxy model's IpFamily, the agent's options and
 * the conntrack sysctls it applies at start; it is called by every other package, never the other
 * way round.
 */
package dev.kubeproxy.host;
