/**
 * nftables as small typed objects (tables, chains, rules, sets, maps, elements) carried in a
 * {@link dev.kubeproxy.backend.nftables.objects.Transaction}, and the {@link dev.kubeproxy.backend.nftables.objects.Nftables}
 * seam that runs one (nft text or netlink). The typed form the backend writes, the netlink encoder
 * sends and the tracer reads.
 */
package dev.kubeproxy.backend.nftables.objects;
