package dev.kubeproxy.backend.nftables.objects;

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
   * An element of the set or map begun last: its key in {@link TableReader#keyForm} form is
   * forms[keyStart, keyEnd), the element in {@link TableReader#elementForm} form forms[keyEnd, end).
   * The chars are the reader's and hold the element only during the call (no object is made per
   * element, as a large table has very many); {@link TableReader#decode}
   * names it from its key form.
   */
  void element(char[] forms, int keyStart, int keyEnd, int end);

  /** The set or map begun last has no more elements. */
  void endContainer(String name);

  /** The next rule of a chain, in {@link TableReader#ruleForm} form. */
  void rule(String chain, String form);
}
