package dev.kubeproxy.backend.iptables;

import java.util.ArrayDeque;
import java.util.Deque;

/**
 * The text chunks of one partial sync's restore input, kept for the next one. A partial sync's
 * input (every service's top-level rules) lives through a restore of seconds, so fresh chunks
 * outlived the young collections of every sync and filled the old generation with garbage that
 * only full collections, and a larger heap, took back. Reused, they are allocated once. A full
 * sync's input is far larger and rare: its chunks are let go. Not thread safe: one per generator.
 */
final class SpareChunks {
  private final Deque<byte[]> spare = new ArrayDeque<>();
  /** Chunks taken since the last sync ended: what one sync needs, and so what is worth keeping. */
  private int taken;

  /** A chunk of {@code size} bytes: a spare one if there is one. */
  byte[] take(int size) {
    taken++;
    byte[] chunk = spare.poll();
    return chunk != null && chunk.length == size ? chunk : new byte[size];
  }

  /** A chunk whose text is no longer needed. */
  void giveBack(byte[] chunk) {
    spare.push(chunk);
  }

  /**
   * After a sync's input is applied or refused: keeps as many chunks as this sync took, for the
   * next partial sync (an unusually large one is not kept for good), or none after a full one.
   */
  void afterSync(boolean full) {
    int keep = full ? 0 : taken;
    while (spare.size() > keep) {
      spare.pop();
    }
    taken = 0;
  }

  int count() {
    return spare.size();
  }
}
