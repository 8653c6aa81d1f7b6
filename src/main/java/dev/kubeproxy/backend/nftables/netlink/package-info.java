/**
 * nf_tables over netlink: transactions as one atomic nfnetlink batch, the generation number, and
 * the table read back for reconciling. {@link dev.kubeproxy.backend.nftables.netlink.NetlinkNftables}
 * opens the socket (libc through JNA); {@link dev.kubeproxy.backend.nftables.netlink.BatchEncoder}
 * turns a transaction into a batch, with {@link dev.kubeproxy.backend.nftables.netlink.RuleEncoder}
 * (typed rules to expressions), {@link dev.kubeproxy.backend.nftables.netlink.ElementCodec} (set
 * elements) and {@link dev.kubeproxy.backend.nftables.netlink.SetDeclarations} (sets and maps),
 * written as nft 1.0 writes them; {@link dev.kubeproxy.backend.nftables.netlink.TableDump} reads the
 * table with nf_tables dumps, and {@link dev.kubeproxy.backend.nftables.netlink.RuleForm} and
 * {@link dev.kubeproxy.backend.nftables.netlink.ExpressionForms} give the normalized forms in which
 * written and read rules and elements compare. What the encoder does not know is left to nft.
 *
 * <p>Owns one family's nf_tables socket (used on the proxier verticle's worker). May call:
 * backend.nftables.objects (the typed objects it encodes and reads back), host.netlink, net,
 * logging; nothing of the model.
 */
package dev.kubeproxy.backend.nftables.netlink;
