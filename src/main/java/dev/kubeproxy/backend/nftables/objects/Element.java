package dev.kubeproxy.backend.nftables.objects;

import dev.kubeproxy.backend.nftables.objects.Comments;

import dev.kubeproxy.net.IpFamily;
import java.util.List;

/**
 * An element of a set ({@code value == null}) or of a map.
 *
 * @param container the set or map name
 * @param key       the key, one part per field of a concatenation ("10.96.0.1", "tcp", "80")
 * @param value     the map value: a verdict ("goto service-…", "drop") or an endpoint; null in a set
 * @param comment   element comment, or null
 */
public record Element(String container, boolean inMap, List<String> key, ElementValue value, String comment)
    implements NftObject {

  public Element {
    key = List.copyOf(key);
    comment = Comments.fit(comment);
  }

  public static Element ofSet(String set, String... key) {
    return new Element(set, false, List.of(key), null, null);
  }

  public static Element ofMap(String map, List<String> key, ElementValue value, String comment) {
    return new Element(map, true, key, value, comment);
  }

  /** The key as nft writes it ("10.96.0.1 . tcp . 80"), which also identifies the element inside its container. */
  public String keyText() {
    return key.size() == 1 ? key.get(0) : String.join(" . ", key);
  }

  /** The value as nft writes it, or null in a set. */
  public String valueText() {
    return value == null ? null : value.text();
  }

  @Override
  public String render(Transaction.Verb verb, IpFamily family, boolean objectComments) {
    StringBuilder sb = new StringBuilder("element ").append(NftObject.tableRef(family)).append(' ')
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
        sb.append(" : ").append(value.text());
      }
    }
  }
}
