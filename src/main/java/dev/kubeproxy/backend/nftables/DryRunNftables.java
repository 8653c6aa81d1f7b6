package dev.kubeproxy.backend.nftables;

import dev.kubeproxy.backend.nftables.objects.Nftables;
import dev.kubeproxy.backend.nftables.objects.Transaction;

import dev.kubeproxy.model.ProgrammedRuleset;
import dev.kubeproxy.net.IpFamily;
import java.io.PrintStream;
import java.util.Optional;

/** --dry-run: prints each transaction instead of applying it; needs neither root nor nft. */
final class DryRunNftables implements Nftables {
  /** How many partial transactions after the last full one /debug/services looks back through. */
  static final int KEPT = 16;
  private final IpFamily family;
  private final PrintStream out;
  /** The last full transaction printed and the partial ones since (at most KEPT), one command a line. */
  private final java.util.List<String> printed = new java.util.ArrayList<>();
  /** Whether a partial transaction since the last full one was let go (what is kept no longer adds up to the table). */
  private boolean partialDropped;

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
        partialDropped = false;
      }
      printed.add(lines);
      if (printed.size() > KEPT + 1) {
        printed.remove(1); // the oldest partial one; the full one stays
        partialDropped = true;
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

  /**
   * The commands printed since the last full transaction, one a line, which applied in order
   * make the table; empty when none was printed yet or when some were let go since.
   */
  Optional<String> wholeTable() {
    synchronized (printed) {
      if (printed.isEmpty() || partialDropped) {
        return Optional.empty();
      }
      return Optional.of(String.join("", printed));
    }
  }

  /** The table as the commands printed make it, for a tracer, or why they no longer make it. */
  ProgrammedRuleset programmedRuleset() {
    String source = "the nft commands the dry run printed (the last full transaction and the partial ones since)";
    synchronized (printed) {
      return wholeTable().map(text -> ProgrammedRuleset.nftCommands(source, text))
          .orElseGet(() -> ProgrammedRuleset.unavailable(source, partialDropped
              ? "more than " + KEPT + " partial transactions since the last full one; the oldest were let go,"
              + " so what is kept no longer makes the table (the next full sync starts again)"
              : "nothing printed yet"));
    }
  }

  @Override
  public TableContents list() {
    return TableContents.absent();
  }
}
