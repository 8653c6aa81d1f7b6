/**
 * nf_tables over netlink, for the small transactions of partial syncs: nft would first read every
 * chain of the table back, which at 10,000 Services costs more than the change itself.
 * {@link dev.kubeproxy.proxy.nftables.netlink.NetlinkNftables} opens the socket (libc through JNA),
 * {@link dev.kubeproxy.proxy.nftables.netlink.BatchEncoder} turns a transaction into one atomic
 * nfnetlink batch, {@link dev.kubeproxy.proxy.nftables.netlink.RuleEncoder} (from the typed rules) and
 * {@link dev.kubeproxy.proxy.nftables.netlink.ElementCodec} write rules and set elements exactly as
 * nft 1.0 does. What they do not know is left to nft.
 */
package dev.kubeproxy.proxy.nftables.netlink;
