package dev.kubeproxy.proxy.nftables;

/**
 * Reads this family's kube-proxy table back from the kernel, for the reconciling full sync, and
 * gives the form in which the model's rules and elements compare with what it read: exactly, so
 * that any difference (a rule edited in place included) is found.
 */
public interface TableReader {

  /** The whole table: chains with their rules, sets and maps with their elements. */
  KernelTable read() throws NftablesException;

  /** A rule as it would read back once written (matches, statement and comment). */
  String ruleForm(Rule rule);

  /** An element's key as it reads back (identifies the element inside its set or map). */
  String keyForm(Element element);

  /** An element as it reads back: key, value and comment. */
  String elementForm(Element element);
}
