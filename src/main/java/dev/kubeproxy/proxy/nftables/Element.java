package dev.kubeproxy.proxy.nftables;

import java.util.List;

/**
 * An element of a set ({@code value == null}) or of a map.
 *
 * @param container the set or map name
 * @param key       the key's parts, joined with " . " (a concatenation)
 * @param value     the map value, e.g. "goto service-…" or "drop"; null in a set
 * @param comment   element comment, or null
 */
public record Element(String container, boolean inMap, List<String> key, String value, String comment)
    implements NftObject {

  public Element {
    key = List.copyOf(key);
  }

  public static Element ofSet(String set, String... key) {
    return new Element(set, false, List.of(key), null, null);
  }

  public static Element ofMap(String map, List<String> key, String value, String comment) {
    return new Element(map, true, key, value, comment);
  }

  /** The key as nft prints it, which also identifies the element inside its container. */
  public String keyText() {
    return key.size() == 1 ? key.get(0) : String.join(" . ", key);
  }

  @Override
  public String render(Transaction.Verb verb, String familyAndTable, boolean objectComments) {
    StringBuilder sb = new StringBuilder("element ").append(familyAndTable).append(' ')
        .append(container).append(" { ").append(keyText());
    if (verb.createsObject()) {
      if (comment != null) {
        sb.append(" comment ").append(NftObject.quote(comment));
      }
      if (value != null) {
        sb.append(" : ").append(value);
      }
    }
    return sb.append(" }").toString();
  }
}
