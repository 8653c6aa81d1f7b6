/**
 * ipvs mode, as upstream's pkg/proxy/ipvs: {@link dev.kubeproxy.backend.ipvs.IpvsRulesetGenerator}
 * computes the whole state of a family from the model (virtual and real servers, kube-ipvs0
 * addresses, ipset entries, the iptables-restore input) and {@link dev.kubeproxy.backend.ipvs.IpvsProxier}
 * brings the kernel to it through one class per part: the virtual and real servers over generic
 * netlink ({@link dev.kubeproxy.backend.ipvs.ServerSync}, draining removed real servers through
 * {@link dev.kubeproxy.backend.ipvs.GracefulTermination}), the dummy interface's addresses
 * ({@link dev.kubeproxy.backend.ipvs.AddressBinding}), and the ipsets and iptables chains
 * ({@link dev.kubeproxy.backend.ipvs.IpvsNetfilterRules}). {@link
 * dev.kubeproxy.backend.ipvs.IpvsRulesReader} reads one port's programmed state back for
 * /debug/services; {@link dev.kubeproxy.backend.ipvs.IpvsCleanup} removes the mode's leftovers.
 *
 * <p>Owns: one family's IPVS state, run on the proxier verticle's worker context like every backend.
 * May call: model (the state and the plan), backend.netfilter (the iptables tool and sysctls it
 * shares with iptables mode), config (the ipvs section), metrics, host and host.netlink (commands,
 * the netlink socket), net, logging; not the iptables or nftables backend.
 */
package dev.kubeproxy.backend.ipvs;
