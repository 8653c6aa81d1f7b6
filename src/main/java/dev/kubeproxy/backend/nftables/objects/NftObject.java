package dev.kubeproxy.backend.nftables.objects;

import dev.kubeproxy.net.IpFamily;

/**
 * One nftables object inside the kube-proxy table: what a {@link Transaction} adds, flushes or
 * deletes. The family and table name come from the transaction, so objects stay family-neutral.
 */
public sealed interface NftObject permits Table, Chain, Rule, NftSet, NftMap, Element, NftCounter {

  /** The object as written after a verb, e.g. "chain ip kube-proxy services". */
  String render(Transaction.Verb verb, IpFamily family, boolean objectComments);

  /** "ip kube-proxy" or "ip6 kube-proxy", how commands name the table. */
  static String tableRef(IpFamily family) {
    return Transaction.familyKeyword(family) + " " + Transaction.TABLE;
  }

  /** Quotes a comment the way nft expects it (comments never hold a double quote here). */
  static String quote(String comment) {
    return "\"" + comment.replace("\"", "'") + "\"";
  }
}
