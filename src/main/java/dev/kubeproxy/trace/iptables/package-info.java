/**
 * Tracing a packet through iptables rules as written ({@link dev.kubeproxy.trace.iptables.IptablesTracer}): the
 * iptables-save or iptables-restore text ({@link dev.kubeproxy.trace.iptables.IptablesRules}), the ipsets it tests
 * ({@link dev.kubeproxy.trace.iptables.IpSetContents}), the node's addresses and interfaces
 * ({@link dev.kubeproxy.trace.iptables.LocalNode}) and, in ipvs mode, IPVS's virtual servers
 * ({@link dev.kubeproxy.trace.iptables.VirtualServers}).
 *
 * <p>A trace's steps name their chain as "table/CHAIN" ("nat/KUBE-SERVICES"); IPVS's choice of a real server is
 * a step of the pseudo-chain "ipvs".
 *
 * <p>Depends on {@code net} only: it reads the rules and shares no code with what writes them.
 */
package dev.kubeproxy.trace.iptables;
