package dev.kubeproxy.backend.nftables.objects;

import java.util.Optional;
import java.util.function.Supplier;

/**
 * Reads this family's kube-proxy table back from the kernel, for the reconciling full sync, and
 * gives the form in which the model's rules and elements compare with what it read: exactly, so
 * that any difference (a rule edited in place included) is found.
 */
public interface TableReader {

  /**
   * Reads the whole table into a visitor: chains with their rules, sets and maps with their
   * elements.
   *
   * @param visitors a fresh visitor for each attempt (a read that the table changed under is
   *                 repeated from the start)
   * @return the visitor of the read that held; empty when there is no table
   */
  <V extends TableVisitor> Optional<V> read(Supplier<V> visitors) throws NftablesException;

  /** A rule as it would read back once written (matches, statement and comment). */
  String ruleForm(Rule rule);

  /** Appends an element's key as it reads back (which identifies it inside its set or map) to out. */
  void keyForm(Element element, FormArena out);

  /** Appends an element as it reads back (key, value and comment) to out. */
  void elementForm(Element element, FormArena out);

  /**
   * The element of a container whose key, in {@link #keyForm} form, is forms[start, end), to
   * delete it; null when it is not one this agent writes (its whole set or map is then flushed and
   * refilled). Called on the thread that compares, possibly while a read is under way.
   */
  Element decode(String container, boolean map, char[] forms, int start, int end);
}
