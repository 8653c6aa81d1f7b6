package dev.kubeproxy.proxy.nftables;

import dev.kubeproxy.proxy.IpFamily;

/**
 * A named map.
 *
 * @param type e.g. "ipv4_addr . inet_proto . inet_service : verdict", or a "typeof …" declaration
 */
public record NftMap(String name, String type, String comment) implements NftObject {

  public NftMap {
    comment = Comments.fit(comment);
  }

  @Override
  public String render(Transaction.Verb verb, IpFamily family, boolean objectComments) {
    String familyAndTable = NftObject.tableRef(family);
    StringBuilder sb = new StringBuilder("map ").append(familyAndTable).append(' ').append(name);
    if (!verb.createsObject()) {
      return sb.toString();
    }
    sb.append(type.startsWith("typeof ") ? " { " : " { type ").append(type).append(" ;");
    if (comment != null && objectComments) {
      sb.append(" comment ").append(NftObject.quote(comment)).append(" ;");
    }
    return sb.append(" }").toString();
  }
}
