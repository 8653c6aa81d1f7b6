package dev.kubeproxy.proxy.nftables;

import dev.kubeproxy.proxy.IpFamily;
import java.io.PrintStream;

/** --dry-run: prints each transaction instead of applying it; needs neither root nor nft. */
final class DryRunNftables implements Nftables {
  /** How many printed transactions /debug/services looks back through. */
  static final int KEPT = 16;
  private final IpFamily family;
  private final PrintStream out;
  /** The last transactions printed, one command a line, oldest first. */
  private final java.util.Deque<String> printed = new java.util.ArrayDeque<>();

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
    synchronized (printed) {
      printed.addLast(tx.renderOnePerLine(family, true));
      if (printed.size() > KEPT) {
        printed.removeFirst();
      }
    }
  }

  /** The lines of the transactions printed last (up to {@link #KEPT}), oldest first. */
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

  @Override
  public KernelTable listTable() {
    return KernelTable.absent();
  }
}
