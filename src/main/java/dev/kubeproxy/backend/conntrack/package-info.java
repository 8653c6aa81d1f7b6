/**
 * The conntrack side of the proxy (upstream's pkg/proxy/conntrack): the sysctls set at start
 * ({@link dev.kubeproxy.backend.conntrack.ConntrackSysctls}, cmd/kube-proxy/app/server_linux.go
 * setupConntrack) and the cleanup of stale UDP/SCTP entries after each successful sync
 * ({@link dev.kubeproxy.backend.conntrack.ConntrackReconciler}, pkg/proxy/conntrack/cleanup.go
 * CleanStaleEntries) over netlink ({@link dev.kubeproxy.backend.conntrack.NetlinkConntrackTable}).
 *
 * <p>Called by the family loop on the proxier verticle's worker, after the backend's sync. May call:
 * model (the state and plan), config, metrics, host and host.netlink (sysctls, the netlink socket),
 * net, logging; no other backend.
 */
package dev.kubeproxy.backend.conntrack;
