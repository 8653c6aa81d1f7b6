package dev.kubeproxy.proxy.nftables;

/**
 * A rule appended to a chain. The text is the rule body in nft syntax ("ip daddr 10.0.0.1 drop");
 * rule comments are always written, whatever the nft version.
 */
public record Rule(String chain, String text, String comment) implements NftObject {

  public Rule {
    comment = Comments.fit(comment);
  }

  public Rule(String chain, String text) {
    this(chain, text, null);
  }

  @Override
  public String render(Transaction.Verb verb, String familyAndTable, boolean objectComments) {
    StringBuilder sb = new StringBuilder("rule ").append(familyAndTable).append(' ').append(chain)
        .append(' ').append(text);
    if (comment != null) {
      sb.append(" comment ").append(NftObject.quote(comment));
    }
    return sb.toString();
  }
}
