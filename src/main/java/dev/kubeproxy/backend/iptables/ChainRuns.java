package dev.kubeproxy.backend.iptables;

import java.util.Arrays;

/**
 * What a {@link LineBuffer} wrote, recorded as it wrote it: its lines as runs, each a chain
 * declaration, consecutive rules of one chain, or consecutive chain deletions, with where each run
 * starts (char and line). {@link SaveOrder} reorders a table by these runs without reading the text
 * again, and the rules monitor's counts come from them. A line the buffer could not place in a run
 * (written without {@link LineBuffer#rule} or {@link LineBuffer#deletion}) makes the runs unorderable:
 * such a table is sent as written.
 */
final class ChainRuns {
  static final byte DECLARATION = 0;
  static final byte RULE = 1;
  static final byte DELETION = 2;

  private String[] chains = new String[64];
  private byte[] kinds = new byte[64];
  private int[] starts = new int[64];
  private int[] firstLines = new int[64];
  private int count;
  private boolean orderable = true;
  /** Where the buffer's lines start and end (the char and line after its last line), once placed. */
  private int begin;
  private int beginLine;
  private int end;
  private int endLine;

  /** A chain declaration line starting at char at, line line. */
  void declaration(String chain, int at, int line) {
    add(DECLARATION, chain, at, line);
  }

  /** A rule line of chain: it joins the run before when that run is chain's rules. */
  void rule(String chain, int at, int line) {
    int last = count - 1;
    if (last >= 0 && kinds[last] == RULE && (chains[last] == chain || chains[last].equals(chain))) {
      return;
    }
    add(RULE, chain, at, line);
  }

  /** A chain deletion line: it joins the run before when that run is deletions. */
  void deletion(int at, int line) {
    if (count > 0 && kinds[count - 1] == DELETION) {
      return;
    }
    add(DELETION, null, at, line);
  }

  /** A line that is none of these: the buffer's lines cannot be reordered. */
  void unplaced() {
    orderable = false;
  }

  private void add(byte kind, String chain, int at, int line) {
    if (count == chains.length) {
      int grown = count * 2;
      chains = Arrays.copyOf(chains, grown);
      kinds = Arrays.copyOf(kinds, grown);
      starts = Arrays.copyOf(starts, grown);
      firstLines = Arrays.copyOf(firstLines, grown);
    }
    chains[count] = chain;
    kinds[count] = kind;
    starts[count] = at;
    firstLines[count] = line;
    count++;
  }

  /**
   * Moves the runs by chars and lines (the buffer's text now starts there in the whole input) and
   * records where they end.
   */
  void placedAt(int chars, int lines, int length, int lineCount) {
    for (int r = 0; r < count; r++) {
      starts[r] += chars;
      firstLines[r] += lines;
    }
    begin = chars;
    beginLine = lines;
    end = chars + length;
    endLine = lines + lineCount;
  }

  int count() {
    return count;
  }

  boolean orderable() {
    return orderable;
  }

  byte kind(int run) {
    return kinds[run];
  }

  String chain(int run) {
    return chains[run];
  }

  int start(int run) {
    return starts[run];
  }

  int firstLine(int run) {
    return firstLines[run];
  }

  /** The char after the run's last line. */
  int end(int run) {
    return run + 1 < count ? starts[run + 1] : end;
  }

  int lines(int run) {
    return (run + 1 < count ? firstLines[run + 1] : endLine) - firstLines[run];
  }

  /** Where the buffer's lines start and end, as chars: all of them, as written, runs or not. */
  int start() {
    return begin;
  }

  int end() {
    return end;
  }

  int firstLine() {
    return beginLine;
  }

  /** All the buffer's lines. */
  int lineCount() {
    return endLine - beginLine;
  }

  /** The rules written in each of these chains, in their order. */
  int[] rulesIn(java.util.List<String> wanted) {
    int[] rules = new int[wanted.size()];
    for (int r = 0; r < count; r++) {
      if (kinds[r] == RULE) {
        int w = wanted.indexOf(chains[r]);
        if (w >= 0) {
          rules[w] += lines(r);
        }
      }
    }
    return rules;
  }
}
