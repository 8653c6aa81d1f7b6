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
 * <p>Owns: one family's IPVS state, run on the proxier verticle's worker context like every backend.
 * May call: model (the state and the plan), backend.netfilter (the iptables tool and sysctls it
 * shares with iptables mode), config (the ipvs section), metrics, host and host.netlink (commands,
 * the netlink socket), net, logging; not the iptables or nftables backend.
 */
package dev.kubeproxy.backend.ipvs;
