package dev.kubeproxy.backend.nftables.objects;

import dev.kubeproxy.backend.nftables.objects.Comments;

import dev.kubeproxy.net.IpFamily;

import java.util.List;

/**
 * A named set.
 *
 * @param type           e.g. "ipv4_addr" or "ipv4_addr . inet_proto . inet_service"
 * @param flags          e.g. ["dynamic", "timeout"], empty for none
 * @param timeoutSeconds element timeout, 0 for none
 */
public record NftSet(String name, String type, List<String> flags, int timeoutSeconds, String comment)
    implements NftObject {

  public NftSet {
    flags = List.copyOf(flags);
    comment = Comments.fit(comment);
  }

  public static NftSet of(String name, String type, String comment) {
    return new NftSet(name, type, List.of(), 0, comment);
  }

  @Override
  public String render(Transaction.Verb verb, IpFamily family, boolean objectComments) {
    String familyAndTable = NftObject.tableRef(family);
    StringBuilder sb = new StringBuilder("set ").append(familyAndTable).append(' ').append(name);
    if (!verb.createsObject()) {
      return sb.toString();
    }
    sb.append(" { type ").append(type).append(" ;");
    if (!flags.isEmpty()) {
      sb.append(" flags ").append(String.join(",", flags)).append(" ;");
    }
    if (timeoutSeconds > 0) {
      sb.append(" timeout ").append(timeoutSeconds).append("s ;");
    }
    if (comment != null && objectComments) {
      sb.append(" comment ").append(NftObject.quote(comment)).append(" ;");
    }
    return sb.append(" }").toString();
  }
}
