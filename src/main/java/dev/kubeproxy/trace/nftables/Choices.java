package dev.kubeproxy.trace.nftables;

import java.util.ArrayList;
import java.util.List;

/**
 * The random draws of one walk through the rules ("numgen random"), so that the tracer can walk
 * again with the next combination until every one was taken: the walk itself stays a plain
 * sequence of rules, and what a random choice can reach is the union of the walks.
 */
final class Choices {
  /** More walks than this means a loop of random choices, not a real table. */
  static final int MAX_WALKS = 100_000;

  /** Per draw of the current walk: {the option taken, how many there were}. */
  private final List<int[]> draws = new ArrayList<>();
  private int position;
  private int walks = 1;

  /** The option (0..count-1) this walk takes at its next draw. */
  int choose(int count) {
    if (count <= 0) {
      throw new IllegalArgumentException("a draw needs an option");
    }
    if (position < draws.size()) {
      int[] draw = draws.get(position++);
      if (draw[1] != count) {
        throw new IllegalStateException("a walk met a draw of " + count + " options where the same choices met "
            + draw[1] + ": the table changed during the trace");
      }
      return draw[0];
    }
    draws.add(new int[] {0, count});
    position++;
    return 0;
  }

  /** Moves to the next combination of draws; false when every one was walked. */
  boolean next() {
    position = 0;
    while (!draws.isEmpty()) {
      int[] last = draws.get(draws.size() - 1);
      if (last[0] + 1 < last[1]) {
        last[0]++;
        if (++walks > MAX_WALKS) {
          throw new IllegalStateException("more than " + MAX_WALKS + " combinations of random choices");
        }
        return true;
      }
      draws.remove(draws.size() - 1);
    }
    return false;
  }
}
