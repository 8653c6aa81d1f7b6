package dev.kubeproxy.backend.iptables;

import java.util.Arrays;

/**
 * A restore input with its lines in the order iptables-save prints a table: each table's chain
 * declarations sorted by name, then each chain's rules in a row, chains in name order, then its
 * {@code -X} lines. libiptc keeps user chains in a list sorted by name: a chain declared in that
 * order is appended instead of inserted after a walk, and rules of one chain in a row find it
 * without a new search, so the tool applies this order markedly faster (docs/PERFORMANCE.md).
 *
 * <p>The kernel ends up with the same rules: every chain is declared (and, with --noflush,
 * flushed) before any rule, each chain's rules keep their order, and deletions come last. A table
 * where that does not hold (a declaration after a rule, a deletion before one, a line that is
 * none of these, a chain declared twice or a rule of a chain not declared) is left as it is. The
 * generator, its tests and the dry run keep upstream's order; {@link #originalLine} maps a line
 * the tool refuses back to it.
 */
final class RestoreOrder {
  private final CharSequence input;
  /** The 0-based line of the original input at each line of the reordered one. */
  private final int[] originalLines;

  private RestoreOrder(CharSequence input, int[] originalLines) {
    this.input = input;
    this.originalLines = originalLines;
  }

  /** The input to hand to iptables-restore. */
  CharSequence input() {
    return input;
  }

  /** The 1-based line of the original input that is this 1-based line of {@link #input()} (0 stays 0). */
  int originalLine(int line) {
    return line < 1 || line > originalLines.length ? line : originalLines[line - 1] + 1;
  }

  static RestoreOrder of(String payload) {
    return of(RestoreText.of(payload));
  }

  static RestoreOrder of(RestoreText payload) {
    if (payload.isEmpty() || payload.charAt(payload.length() - 1) != '\n') {
      return identity(payload); // lines could not be moved without gluing the last one to another
    }
    Reordering r = new Reordering(payload);
    int lines = r.starts.length - 1;
    int i = 0;
    while (i < lines) {
      if (payload.charAt(r.starts[i]) == '*') {
        int commit = i + 1;
        while (commit < lines && !r.isLine(commit, "COMMIT")) {
          commit++;
        }
        if (commit < lines) {
          r.table(i, commit);
          i = commit + 1;
          continue;
        }
      }
      r.copy(i, i + 1); // outside a table: where it was
      i++;
    }
    return new RestoreOrder(r.out.done(), r.original);
  }

  private static RestoreOrder identity(RestoreText payload) {
    int[] original = new int[lineStarts(payload).length - 1];
    for (int i = 0; i < original.length; i++) {
      original[i] = i;
    }
    return new RestoreOrder(payload, original);
  }

  /** The input's lines, and the reordered input as it is written. */
  private static final class Reordering {
    final RestoreText payload;
    final int[] starts;
    final Pieces out;
    /** The original line of each line written so far. */
    final int[] original;
    int written;

    Reordering(RestoreText payload) {
      this.payload = payload;
      this.starts = lineStarts(payload);
      this.out = new Pieces(payload);
      this.original = new int[starts.length - 1];
    }

    /**
     * Writes the table from its header line to its COMMIT line, reordered when that is safe.
     * Without a map per line: a large table has tens of thousands of declarations and runs of one
     * chain's rules, and this runs in every sync, often before the JIT has compiled it.
     */
    void table(int header, int commit) {
      int body = header + 1;
      while (body < commit && payload.charAt(starts[body]) == '#') {
        body++; // comments before the first line stay before it
      }
      int declarationsEnd = body;
      while (declarationsEnd < commit && payload.charAt(starts[declarationsEnd]) == ':') {
        declarationsEnd++;
      }
      int rulesEnd = declarationsEnd;
      while (rulesEnd < commit && payload.startsWith("-A ", starts[rulesEnd])) {
        rulesEnd++;
      }
      int deletionsEnd = rulesEnd;
      while (deletionsEnd < commit && payload.startsWith("-X ", starts[deletionsEnd])) {
        deletionsEnd++;
      }
      Chains chains = deletionsEnd == commit ? Chains.declared(payload, starts, body, declarationsEnd) : null;
      int[] runs = chains == null ? null : chains.runs(payload, starts, declarationsEnd, rulesEnd);
      if (runs == null) { // anything else (-I, -D, a declaration after a rule, a chain declared twice or not at all)
        copy(header, commit + 1);
        return;
      }
      copy(header, body);
      for (int d : chains.inNameOrder) {
        copy(body + d, body + d + 1);
      }
      for (int r = 0; r < runs.length; r += 2) {
        copy(runs[r], runs[r + 1]);
      }
      copy(rulesEnd, commit + 1); // the -X lines, COMMIT
    }

    /** Writes lines [from, to) as they are. */
    void copy(int from, int to) {
      if (from < to) {
        out.add(starts[from], starts[to]);
      }
      for (int l = from; l < to; l++) {
        original[written++] = l;
      }
    }

    boolean isLine(int line, String text) {
      int length = starts[line + 1] - starts[line] - 1; // without its '\n'
      return length == text.length() && payload.startsWith(text, starts[line]);
    }
  }

  /**
   * The reordered input as pieces of the original one, in order: no second copy of a large input,
   * which the first sync's heap would have to grow for. Read a chunk at a time
   * ({@link #subSequence}) as it is written to the tool.
   */
  static final class Pieces implements CharSequence {
    private final RestoreText payload;
    /** Piece i is payload[bounds[2i], bounds[2i+1]) and starts at offsets[i] of this sequence. */
    private int[] bounds = new int[256];
    private int[] offsets = new int[128];
    private int count;
    private int length;

    Pieces(RestoreText payload) {
      this.payload = payload;
    }

    /** Appends payload[from, to), joining it to the last piece when it follows it there. */
    void add(int from, int to) {
      if (count > 0 && bounds[2 * count - 1] == from) {
        bounds[2 * count - 1] = to;
      } else {
        if (count == offsets.length) {
          offsets = Arrays.copyOf(offsets, count * 2);
          bounds = Arrays.copyOf(bounds, count * 4);
        }
        bounds[2 * count] = from;
        bounds[2 * count + 1] = to;
        offsets[count++] = length;
      }
      length += to - from;
    }

    /** The input itself when nothing moved. */
    CharSequence done() {
      return count == 1 && bounds[0] == 0 && bounds[1] == payload.length() ? payload : this;
    }

    @Override
    public int length() {
      return length;
    }

    @Override
    public char charAt(int index) {
      int p = piece(index);
      return payload.charAt(bounds[2 * p] + index - offsets[p]);
    }

    /** Chars [start, end) as a String of their own. */
    @Override
    public String subSequence(int start, int end) {
      if (start < 0 || end > length || start > end) {
        throw new IndexOutOfBoundsException("[" + start + ", " + end + ") of " + length);
      }
      StringBuilder out = new StringBuilder(end - start);
      for (int p = start < end ? piece(start) : count; p < count && offsets[p] < end; p++) {
        int from = bounds[2 * p] + Math.max(0, start - offsets[p]);
        int to = bounds[2 * p] + Math.min(bounds[2 * p + 1] - bounds[2 * p], end - offsets[p]);
        payload.appendTo(out, from, to);
      }
      return out.toString();
    }

    @Override
    public String toString() {
      return subSequence(0, length);
    }

    /** The piece holding char index. */
    private int piece(int index) {
      if (index < 0 || index >= length) {
        throw new IndexOutOfBoundsException(index + " of " + length);
      }
      int p = Arrays.binarySearch(offsets, 0, count, index);
      return p >= 0 ? p : -p - 2;
    }
  }

  /** A table's declared chains: their names, their order by name, and a lookup of a name in the input. */
  private static final class Chains {
    final String[] names;
    /** Declaration indexes sorted by name. */
    final int[] inNameOrder;
    /** Each declaration's place in that order. */
    final int[] rank;
    /** Open addressing by String.hashCode: declaration index + 1, 0 for none. */
    final int[] slots;

    private Chains(String[] names, int[] slots) {
      this.names = names;
      this.slots = slots;
      String[] sorted = names.clone();
      Arrays.sort(sorted);
      inNameOrder = new int[names.length];
      rank = new int[names.length];
      for (int k = 0; k < sorted.length; k++) {
        int d = slots[slot(slots, names, sorted[k])] - 1;
        inNameOrder[k] = d;
        rank[d] = k;
      }
    }

    /** The slot of name: where it is, or the free one where it would go. */
    private static int slot(int[] slots, String[] names, String name) {
      int at = name.hashCode() & (slots.length - 1);
      while (slots[at] != 0 && !names[slots[at] - 1].equals(name)) {
        at = (at + 1) & (slots.length - 1);
      }
      return at;
    }

    /** The chains declared in lines [from, to); null when one is declared twice. */
    static Chains declared(RestoreText payload, int[] starts, int from, int to) {
      String[] names = new String[to - from];
      int[] slots = new int[Integer.highestOneBit(Math.max(names.length, 1) * 2) * 2];
      for (int l = from; l < to; l++) {
        String name = payload.substring(starts[l] + 1, nameEnd(payload, starts[l] + 1, starts[l + 1]));
        names[l - from] = name;
        int at = slot(slots, names, name);
        if (slots[at] != 0) {
          return null;
        }
        slots[at] = l - from + 1;
      }
      return new Chains(names, slots);
    }

    /** The declaration of the chain named by payload[from, to), or -1. */
    int find(RestoreText payload, int from, int to) {
      int h = 0; // String.hashCode of that name, without making the String
      for (int i = from; i < to; i++) {
        h = 31 * h + payload.charAt(i);
      }
      for (int at = h & (slots.length - 1); slots[at] != 0; at = (at + 1) & (slots.length - 1)) {
        String name = names[slots[at] - 1];
        if (name.length() == to - from && payload.regionMatches(from, name, 0, to - from)) {
          return slots[at] - 1;
        }
      }
      return -1;
    }

    /**
     * The rule lines [from, to) as runs of one chain (pairs of line bounds), ordered by chain name,
     * each chain's runs in their order; null when a rule's chain is not declared here.
     */
    int[] runs(RestoreText payload, int[] starts, int from, int to) {
      int[] runStart = new int[Math.max(to - from, 1)];
      int[] runRank = new int[runStart.length];
      int count = 0;
      int lastRank = -1;
      int lastFrom = 0;
      int lastTo = 0;
      for (int l = from; l < to; l++) {
        int at = starts[l] + 3;
        int end = nameEnd(payload, at, starts[l + 1]);
        if (lastRank >= 0 && end - at == lastTo - lastFrom && payload.regionMatches(at, payload, lastFrom, end - at)) {
          continue; // the same chain as the line before
        }
        int d = find(payload, at, end);
        if (d < 0) {
          return null;
        }
        lastRank = rank[d];
        lastFrom = at;
        lastTo = end;
        runStart[count] = l;
        runRank[count++] = lastRank;
      }
      // Counting sort by rank: stable, so each chain's runs keep their order.
      int[] firstOfRank = new int[names.length + 1];
      for (int r = 0; r < count; r++) {
        firstOfRank[runRank[r] + 1]++;
      }
      for (int k = 0; k < names.length; k++) {
        firstOfRank[k + 1] += firstOfRank[k];
      }
      int[] out = new int[count * 2];
      for (int r = 0; r < count; r++) {
        int place = firstOfRank[runRank[r]]++;
        out[place * 2] = runStart[r];
        out[place * 2 + 1] = r + 1 < count ? runStart[r + 1] : to;
      }
      return out;
    }
  }

  /** Where a chain name starting at from ends: at a space or the line's end (its '\n'). */
  private static int nameEnd(RestoreText payload, int from, int lineEnd) {
    int space = payload.indexOf(' ', from);
    return space >= 0 && space < lineEnd ? space : lineEnd - 1;
  }

  /** The start of each line and, last, the end of the input. */
  private static int[] lineStarts(RestoreText payload) {
    int[] starts = new int[1024];
    int lines = 0;
    for (int at = 0; at < payload.length(); ) {
      if (lines + 2 > starts.length) {
        starts = Arrays.copyOf(starts, starts.length * 2);
      }
      starts[lines++] = at;
      int newline = payload.indexOf('\n', at);
      at = newline < 0 ? payload.length() : newline + 1;
    }
    starts[lines] = payload.length();
    return Arrays.copyOf(starts, lines + 1);
  }
}
