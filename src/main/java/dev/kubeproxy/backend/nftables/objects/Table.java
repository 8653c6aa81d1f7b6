package dev.kubeproxy.backend.nftables.objects;

import dev.kubeproxy.net.IpFamily;

/** The kube-proxy table of one family; only the comment is configurable. */
public record Table(String comment) implements NftObject {

  @Override
  public String render(Transaction.Verb verb, IpFamily family, boolean objectComments) {
    String familyAndTable = NftObject.tableRef(family);
    StringBuilder sb = new StringBuilder("table ").append(familyAndTable);
    if (verb.createsObject() && comment != null && objectComments) {
      sb.append(" { comment ").append(NftObject.quote(comment)).append(" ; }");
    }
    return sb.toString();
  }
}
