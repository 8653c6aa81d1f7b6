package dev.kubeproxy.proxy.nftables;

import java.util.function.Supplier;

/**
 * Receives this family's kube-proxy table from a {@link TableReader} as it is read, in the reader's
 * forms, so that no part of it need be held whole: first every chain's name, then each set or map
 * with its elements, then the rules, each chain's in order.
 */
public interface TableVisitor {

  /** A chain of the table. */
  void chain(String name);

  /** A set or map begins; its elements follow, then {@link #endContainer}. */
  void container(String name, boolean map);

  /**
   * An element of the set or map begun last.
   *
   * @param key     its key in {@link TableReader#keyForm} form
   * @param form    the element in {@link TableReader#elementForm} form
   * @param decoder the element decoded, to delete it; null from it when it cannot be (then its
   *                whole set or map is flushed and refilled). Called only when needed.
   */
  void element(String key, String form, Supplier<Element> decoder);

  /** The set or map begun last has no more elements. */
  void endContainer(String name);

  /** The next rule of a chain, in {@link TableReader#ruleForm} form. */
  void rule(String chain, String form);
}
