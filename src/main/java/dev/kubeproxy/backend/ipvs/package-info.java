/**
 * ipvs mode, as upstream's pkg/proxy/ipvs: {@link dev.kubeproxy.backend.ipvs.IpvsRulesetGenerator}
 * computes the whole state of a family from the model (virtual and real servers, kube-ipvs0
 * addresses, ipset entries, the iptables-restore input) and {@link dev.kubeproxy.backend.ipvs.IpvsProxier}
 * brings the kernel to it: IPVS over generic netlink ({@link dev.kubeproxy.backend.ipvs.NetlinkIpvs}),
 * the dummy interface, {@code ipset restore}, iptables-restore, and the graceful termination of
 * removed real servers ({@link dev.kubeproxy.backend.ipvs.GracefulTermination}). {@link
 * dev.kubeproxy.backend.ipvs.IpvsRulesReader} reads one port's programmed state back for
 * /debug/services; {@link dev.kubeproxy.backend.ipvs.IpvsCleanup} removes the mode's leftovers.
 *
 * <p>Owns: one family's IPVS state, run on the proxier's worker context like every backend. May
 * call: proxy (the model and the plan), proxy.iptables (the iptables tool and chain conventions it
 * shares with iptables mode), platform (netlink, commands), config (the ipvs section), logging, and
 * the agent's context (command runner, metrics, the iptables backend choice).
 */
package dev.kubeproxy.backend.ipvs;
