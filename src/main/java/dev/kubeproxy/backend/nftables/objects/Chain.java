package dev.kubeproxy.backend.nftables.objects;

import dev.kubeproxy.backend.nftables.objects.Comments;

import dev.kubeproxy.net.IpFamily;

/**
 * A chain. A base chain has a type, hook and numeric priority; a regular chain has none.
 *
 * @param priority printed as an integer, e.g. -110 for dstnat-10
 */
public record Chain(String name, String type, String hook, Integer priority, String comment)
    implements NftObject {

  public Chain {
    comment = Comments.fit(comment);
  }

  public static Chain regular(String name) {
    return new Chain(name, null, null, null, null);
  }

  public static Chain regular(String name, String comment) {
    return new Chain(name, null, null, null, comment);
  }

  public static Chain base(String name, String type, String hook, int priority) {
    return new Chain(name, type, hook, priority, null);
  }

  public boolean isBase() {
    return hook != null;
  }

  @Override
  public String render(Transaction.Verb verb, IpFamily family, boolean objectComments) {
    String familyAndTable = NftObject.tableRef(family);
    StringBuilder sb = new StringBuilder("chain ").append(familyAndTable).append(' ').append(name);
    if (!verb.createsObject()) {
      return sb.toString();
    }
    boolean withComment = comment != null && objectComments;
    if (isBase() || withComment) {
      sb.append(" {");
      if (isBase()) {
        sb.append(" type ").append(type).append(" hook ").append(hook)
            .append(" priority ").append(priority).append(" ;");
      }
      if (withComment) {
        sb.append(" comment ").append(NftObject.quote(comment)).append(" ;");
      }
      sb.append(" }");
    }
    return sb.toString();
  }
}
