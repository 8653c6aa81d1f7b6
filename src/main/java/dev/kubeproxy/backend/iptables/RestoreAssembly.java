package dev.kubeproxy.backend.iptables;

import java.util.ArrayList;
import java.util.List;

/**
 * Puts a restore input's tables together from the generator's buffers: the text in the order
 * written ("*table", its chain declarations, its rules, "COMMIT"), and the same lines in the order
 * they are sent ({@link SaveOrder}), from the runs each buffer recorded. Each buffer's text is
 * moved in a chunk at a time, so the whole input is never held twice.
 */
final class RestoreAssembly {
  private static final String COMMIT = "COMMIT\n";

  /** One table: where its header and COMMIT lines are, and what its two buffers wrote. */
  private record Table(String name, int header, int headerLine, ChainRuns declared, ChainRuns written, int commit, int commitLine) {}

  private final RestoreText text;
  private final List<Table> tables = new ArrayList<>(2);
  private int lines;

  RestoreAssembly(SpareChunks spare) {
    this.text = new RestoreText(spare);
  }

  /**
   * Appends a table: its header, chains' declarations, rules, COMMIT (the buffers are spent).
   *
   * @return the 0-based line of its header
   */
  int table(String name, LineBuffer chains, LineBuffer rules) {
    int header = text.length();
    int headerLine = lines;
    text.append('*').append(name).append('\n');
    ChainRuns declared = chains.moveTo(text, headerLine + 1);
    ChainRuns written = rules.moveTo(text, headerLine + 1 + chains.lines());
    lines = headerLine + 1 + chains.lines() + rules.lines();
    tables.add(new Table(name, header, headerLine, declared, written, text.length(), lines));
    text.append(COMMIT);
    lines++;
    return headerLine;
  }

  /** The text, in the order written. */
  RestoreText text() {
    return text;
  }

  /** The same lines as they are sent to the tool. */
  SentInput sent() {
    SentInput sent = new SentInput(text);
    for (Table t : tables) {
      sent.add(t.header(), t.declared().start(), t.headerLine(), 1);
      SaveOrder.table(sent, t.declared(), t.written());
      sent.add(t.commit(), t.commit() + COMMIT.length(), t.commitLine(), 1);
    }
    return sent;
  }

  /** The rules written in each of these chains of a table's rules, by chain. */
  java.util.Map<String, Integer> rulesIn(String table, List<String> chains) {
    java.util.Map<String, Integer> byChain = new java.util.HashMap<>();
    for (Table t : tables) {
      if (t.name().equals(table)) {
        int[] rules = t.written().rulesIn(chains);
        for (int c = 0; c < rules.length; c++) {
          byChain.put(chains.get(c), rules[c]);
        }
      }
    }
    return byChain;
  }
}
