package dev.kubeproxy.backend.nftables.objects;

import dev.kubeproxy.backend.nftables.objects.Comments;

import dev.kubeproxy.net.IpFamily;
import java.util.List;

/**
 * A named map.
 *
 * @param type  e.g. "ipv4_addr . inet_proto . inet_service : verdict", or a "typeof …" declaration
 * @param flags e.g. ["interval"], empty for none
 */
public record NftMap(String name, String type, List<String> flags, String comment) implements NftObject {

  public NftMap {
    flags = List.copyOf(flags);
    comment = Comments.fit(comment);
  }

  public NftMap(String name, String type, String comment) {
    this(name, type, List.of(), comment);
  }

  /** Whether its keys are ranges ("flags interval"). */
  public boolean interval() {
    return flags.contains("interval");
  }

  @Override
  public String render(Transaction.Verb verb, IpFamily family, boolean objectComments) {
    String familyAndTable = NftObject.tableRef(family);
    StringBuilder sb = new StringBuilder("map ").append(familyAndTable).append(' ').append(name);
    if (!verb.createsObject()) {
      return sb.toString();
    }
    sb.append(type.startsWith("typeof ") ? " { " : " { type ").append(type).append(" ;");
    if (!flags.isEmpty()) {
      sb.append(" flags ").append(String.join(",", flags)).append(" ;");
    }
    if (comment != null && objectComments) {
      sb.append(" comment ").append(NftObject.quote(comment)).append(" ;");
    }
    return sb.append(" }").toString();
  }
}
