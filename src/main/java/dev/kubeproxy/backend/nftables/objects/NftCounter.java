package dev.kubeproxy.backend.nftables.objects;

import dev.kubeproxy.net.IpFamily;

/**
 * A named counter ("counter ip kube-proxy NAME"): a stateful object that rules add to by name
 * ({@link Statement.CountedReject}) and whose packet count can be read back at any time, which is
 * how the agent counts what a rule did without a counter per rule.
 */
public record NftCounter(String name) implements NftObject {

  public NftCounter {
    if (name == null || name.isEmpty() || name.length() > 255 || name.contains("\"")) {
      throw new IllegalArgumentException("a named counter needs a name of 1 to 255 characters without a"
          + " double quote, not " + name);
    }
  }

  /**
   * Adding an existing counter leaves its counts alone, so every full sync may add it; a flush is
   * not a counter verb nft knows, and a "reset" would lose what the metric has not read yet.
   */
  @Override
  public String render(Transaction.Verb verb, IpFamily family, boolean objectComments) {
    if (verb == Transaction.Verb.FLUSH) {
      throw new IllegalArgumentException("a named counter cannot be flushed: " + name);
    }
    return "counter " + NftObject.tableRef(family) + ' ' + name;
  }
}
