/**
 * The nftables backend: the kube-proxy table of one family, written through "nft -f -".
 *
 * <p>nftables is modelled as small typed objects ({@link dev.kubeproxy.proxy.nftables.Table},
 * {@link dev.kubeproxy.proxy.nftables.Chain}, {@link dev.kubeproxy.proxy.nftables.Rule},
 * {@link dev.kubeproxy.proxy.nftables.NftSet}, {@link dev.kubeproxy.proxy.nftables.NftMap},
 * {@link dev.kubeproxy.proxy.nftables.Element}) collected in a
 * {@link dev.kubeproxy.proxy.nftables.Transaction} that renders to nft input. A transaction goes to
 * the kernel ({@link dev.kubeproxy.proxy.nftables.NftCommand}), to stdout in --dry-run, or to the
 * in-memory {@link dev.kubeproxy.proxy.nftables.FakeNftables} of the tests.
 *
 * <p>Layout: upstream's table, sets, maps, base chains and per-service chains, with one difference
 * that keeps the behaviour and removes most kernel objects. A service port without ClientIP
 * affinity has no per-endpoint chains: its policy chain ends in one rule
 * {@code dnat ip addr . port to numgen random mod N map { 0 : ep0 . port , ... }} (same uniform
 * choice as upstream's numgen vmap), and hairpin masquerading (an endpoint reaching itself through
 * its service) is done in the {@code masquerading} chain by matching
 * {@code ct status dnat ip saddr . ip daddr . meta l4proto . th dport} against the set
 * {@code hairpin-connections} of {@code ep . ep . proto . port} entries, then marking the packet as
 * upstream's endpoint chain would. Services with ClientIP affinity keep upstream's endpoint chains
 * and affinity sets unchanged.
 *
 * <p>Syncs: the first sync, every syncPeriod and any sync after a failure rewrite the whole table in
 * one transaction; the others send only the changed chains and elements
 * ({@link dev.kubeproxy.proxy.nftables.NftablesProxier}).
 */
package dev.kubeproxy.proxy.nftables;
