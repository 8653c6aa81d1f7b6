package dev.kubeproxy.backend.nftables;

import dev.kubeproxy.backend.nftables.objects.Nftables;
import dev.kubeproxy.backend.nftables.objects.Transaction;

import dev.kubeproxy.net.IpFamily;
import java.io.PrintStream;

/** --dry-run: prints each transaction instead of applying it; needs neither root nor nft. */
final class DryRunNftables implements Nftables {
  /** How many partial transactions after the last full one /debug/services looks back through. */
  static final int KEPT = 16;
  private final IpFamily family;
  private final PrintStream out;
  /** The last full transaction printed and the partial ones since (at most KEPT), one command a line. */
  private final java.util.List<String> printed = new java.util.ArrayList<>();

  DryRunNftables(IpFamily family, PrintStream out) {
    this.family = family;
    this.out = out;
  }

  @Override
  public void run(Transaction tx) {
    synchronized (out) {
      out.print(tx.render(family));
      out.flush();
    }
    String lines = tx.renderOnePerLine(family, true);
    synchronized (printed) {
      if (lines.startsWith("add table ")) {
        printed.clear(); // a full transaction: it holds everything
      }
      printed.add(lines);
      if (printed.size() > KEPT + 1) {
        printed.remove(1); // the oldest partial one; the full one stays
      }
    }
  }

  /** The lines of the last full transaction printed and of the partial ones since, oldest first. */
  java.util.List<String> printedLines() {
    java.util.List<String> lines = new java.util.ArrayList<>();
    synchronized (printed) {
      for (String tx : printed) {
        lines.addAll(java.util.Arrays.asList(tx.split("\n")));
      }
    }
    return lines;
  }

  @Override
  public TableContents list() {
    return TableContents.absent();
  }
}
