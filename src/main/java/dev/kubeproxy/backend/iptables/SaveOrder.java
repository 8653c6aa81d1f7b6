package dev.kubeproxy.backend.iptables;

import java.util.Arrays;

/**
 * A table's lines in the order iptables-save prints them: chain declarations sorted by name, then
 * each chain's rules in a row, chains in name order, then the {@code -X} lines. libiptc keeps user
 * chains in a list sorted by name: a chain declared in that order is appended instead of inserted
 * after a walk, and rules of one chain in a row find it without a new search, so the tool applies
 * this order markedly faster (docs/PERFORMANCE.md).
 *
 * <p>The kernel ends up with the same rules: every chain is declared (and, with --noflush,
 * flushed) before any rule, each chain's rules keep their order, and the generator deletes only
 * chains no rule it writes refers to, so the deletions can come last. Built from the
 * {@link ChainRuns} the generator recorded as it wrote, never from the text. A table whose runs
 * do not allow it (a line outside any run, a chain declared twice, a rule of a chain not declared
 * in the table) is sent as written.
 */
final class SaveOrder {
  private SaveOrder() {
  }

  /** Adds a table's declaration lines and then its rule (and deletion) lines to out, reordered when safe. */
  static void table(SentInput out, ChainRuns declarations, ChainRuns rules) {
    Ranks ranks = declarations.orderable() && rules.orderable() ? Ranks.of(declarations) : null;
    int[] runs = ranks == null ? null : ranks.ruleRunsInOrder(rules);
    if (runs == null) {
      out.add(declarations.start(), declarations.end(), declarations.firstLine(), declarations.lineCount());
      out.add(rules.start(), rules.end(), rules.firstLine(), rules.lineCount());
      return;
    }
    for (int d : ranks.inNameOrder) {
      out.add(declarations.start(d), declarations.end(d), declarations.firstLine(d), 1);
    }
    for (int r : runs) {
      out.add(rules.start(r), rules.end(r), rules.firstLine(r), rules.lines(r));
    }
  }

  /** A table's declared chains: their order by name, and a lookup of a chain's place in it. */
  private static final class Ranks {
    final String[] names;
    /** Declaration runs sorted by name. */
    final int[] inNameOrder;
    /** Each declaration's place in that order. */
    final int[] rank;
    /** Open addressing by String.hashCode: declaration index + 1, 0 for none. */
    final int[] slots;

    private Ranks(String[] names, int[] slots) {
      this.names = names;
      this.slots = slots;
      String[] sorted = names.clone();
      Arrays.sort(sorted);
      inNameOrder = new int[names.length];
      rank = new int[names.length];
      for (int k = 0; k < sorted.length; k++) {
        int d = slots[slot(sorted[k])] - 1;
        inNameOrder[k] = d;
        rank[d] = k;
      }
    }

    /** The ranks of the chains declared; null when a run is not a declaration or a chain is declared twice. */
    static Ranks of(ChainRuns declarations) {
      int n = declarations.count();
      String[] names = new String[n];
      int[] slots = new int[Integer.highestOneBit(Math.max(n, 1) * 2) * 2];
      for (int d = 0; d < n; d++) {
        if (declarations.kind(d) != ChainRuns.DECLARATION) {
          return null;
        }
        String name = declarations.chain(d);
        names[d] = name;
        int at = slot(slots, names, name);
        if (slots[at] != 0) {
          return null;
        }
        slots[at] = d + 1;
      }
      return new Ranks(names, slots);
    }

    private int slot(String name) {
      return slot(slots, names, name);
    }

    /** The slot of name: where it is, or the free one where it would go. */
    private static int slot(int[] slots, String[] names, String name) {
      int at = name.hashCode() & (slots.length - 1);
      while (slots[at] != 0 && !names[slots[at] - 1].equals(name)) {
        at = (at + 1) & (slots.length - 1);
      }
      return at;
    }

    /**
     * The rule runs ordered by chain name, each chain's runs in their order, then the deletion
     * runs; null when a rule's chain is not declared here or a run is a declaration.
     */
    int[] ruleRunsInOrder(ChainRuns rules) {
      int n = rules.count();
      int[] runRank = new int[n];
      int[] firstOfRank = new int[names.length + 1];
      int deletions = 0;
      for (int r = 0; r < n; r++) {
        byte kind = rules.kind(r);
        if (kind == ChainRuns.DELETION) {
          runRank[r] = -1;
          deletions++;
          continue;
        }
        if (kind != ChainRuns.RULE) {
          return null;
        }
        int at = slot(rules.chain(r));
        if (slots[at] == 0) {
          return null;
        }
        runRank[r] = rank[slots[at] - 1];
        firstOfRank[runRank[r] + 1]++;
      }
      // Counting sort by rank: stable, so each chain's runs keep their order.
      for (int k = 0; k < names.length; k++) {
        firstOfRank[k + 1] += firstOfRank[k];
      }
      int[] out = new int[n];
      int deletion = n - deletions;
      for (int r = 0; r < n; r++) {
        out[runRank[r] < 0 ? deletion++ : firstOfRank[runRank[r]]++] = r;
      }
      return out;
    }
  }
}
