package dev.kubeproxy.proxy.nftables;

import java.util.List;

/**
 * An element of a set ({@code value == null}) or of a map.
 *
 * @param container the set or map name
 * @param key       the key as nft writes it; the parts of a concatenation are joined with " . "
 * @param value     the map value, e.g. "goto service-…" or "drop"; null in a set
 * @param comment   element comment, or null
 */
public record Element(String container, boolean inMap, String key, String value, String comment)
    implements NftObject {

  public Element {
    comment = Comments.fit(comment);
  }

  public static Element ofSet(String set, String... key) {
    return new Element(set, false, key.length == 1 ? key[0] : String.join(" . ", key), null, null);
  }

  public static Element ofMap(String map, List<String> key, String value, String comment) {
    return new Element(map, true, String.join(" . ", key), value, comment);
  }

  /** The key as nft prints it, which also identifies the element inside its container. */
  public String keyText() {
    return key;
  }

  @Override
  public String render(Transaction.Verb verb, String familyAndTable, boolean objectComments) {
    StringBuilder sb = new StringBuilder("element ").append(familyAndTable).append(' ')
        .append(container).append(" { ");
    renderItem(sb, verb);
    return sb.append(" }").toString();
  }

  /** The element inside the braces: key, then (when adding) comment and value. */
  void renderItem(StringBuilder sb, Transaction.Verb verb) {
    sb.append(keyText());
    if (verb.createsObject()) {
      if (comment != null) {
        sb.append(" comment ").append(NftObject.quote(comment));
      }
      if (value != null) {
        sb.append(" : ").append(value);
      }
    }
  }
}
