package dev.kubeproxy.proxy.nftables;

import java.util.Map;

/**
 * What the kernel holds in this family's kube-proxy table, as read for a reconciling full sync.
 * Rules are kept in the lister's own form (nft prints them differently from how they were
 * written), so they are compared only by count and with the form seen at an earlier sync.
 *
 * @param exists     whether the table exists at all
 * @param chains     chain name to the rules of the chain, each in the lister's form
 * @param containers set or map name to its elements: key text to the element text
 *                   ({@link #elementText})
 * @param maps       which of the containers are maps
 */
record KernelTable(boolean exists, Map<String, java.util.List<String>> chains,
    Map<String, Map<String, String>> containers, java.util.Set<String> maps) {

  static KernelTable absent() {
    return new KernelTable(false, Map.of(), Map.of(), java.util.Set.of());
  }

  /** An element as compared between the model and the kernel: key, comment and value. */
  static String elementText(String key, String comment, String value) {
    StringBuilder sb = new StringBuilder(key);
    if (comment != null) {
      sb.append(" comment \"").append(comment).append('"');
    }
    if (value != null) {
      sb.append(" : ").append(value);
    }
    return sb.toString();
  }

  static String elementText(Element e) {
    return elementText(e.keyText(), e.comment(), e.valueText());
  }
}
