package dev.kubeproxy.proxy.nftables;

import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What the kernel holds in this family's kube-proxy table, as read by a {@link TableReader} for a
 * reconciling full sync, in the reader's forms.
 *
 * @param exists     whether the table exists at all
 * @param chains     chain name to its rules, each in {@link TableReader#ruleForm} form
 * @param containers set or map name to its elements, by {@link TableReader#keyForm}
 * @param maps       which of the containers are maps
 */
public record KernelTable(boolean exists, Map<String, List<String>> chains,
    Map<String, Map<String, Entry>> containers, Set<String> maps) {

  /**
   * One element as read.
   *
   * @param form    the element in {@link TableReader#elementForm} form
   * @param decoder the element decoded (only when it has to be deleted); null from it when it
   *                cannot be (then its whole set or map is flushed and refilled)
   */
  public record Entry(String form, java.util.function.Supplier<Element> decoder) {
    public Element element() {
      return decoder.get();
    }
  }

  public static KernelTable absent() {
    return new KernelTable(false, Map.of(), Map.of(), Set.of());
  }
}
