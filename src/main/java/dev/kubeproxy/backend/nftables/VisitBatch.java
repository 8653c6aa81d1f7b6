package dev.kubeproxy.backend.nftables;

import dev.kubeproxy.backend.nftables.objects.TableVisitor;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;

/**
 * Visits of a table read waiting to be handed to another thread ({@link TableReadAhead}), in order.
 * An element's forms are copied into the batch's own arrays instead of being held as objects, and
 * the batch is reused once handed over: a read can then run a whole set ahead of the thread that
 * compares without making anything for the collector to promote.
 */
final class VisitBatch {
  /** Stands for the next element of the batch among its events. */
  private static final Consumer<TableVisitor> ELEMENT = v -> { };
  private static final int MAX_EVENTS = 1024;
  private static final int MAX_CHARS = 32 * 1024;

  private final List<Consumer<TableVisitor>> events = new ArrayList<>();
  /** The elements' forms, one after another. */
  private char[] chars = new char[4096];
  private int length;
  /** Two per element: where its key form ends in chars, and where it ends. */
  private int[] ends = new int[256];
  private int elements;
  /** Whether a new attempt at the read begins with this batch (its visits go to a fresh visitor). */
  boolean restarts;
  /** Whether the read ended with this batch. */
  boolean last;

  /** A visit other than an element. */
  void add(Consumer<TableVisitor> event) {
    events.add(event);
  }

  /** An element visit ({@link TableVisitor#element}): its forms are copied. */
  void element(char[] forms, int keyStart, int keyEnd, int end) {
    int count = end - keyStart;
    if (length + count > chars.length) {
      chars = Arrays.copyOf(chars, Math.max(chars.length * 2, length + count));
    }
    if (2 * elements + 2 > ends.length) {
      ends = Arrays.copyOf(ends, ends.length * 2);
    }
    System.arraycopy(forms, keyStart, chars, length, count);
    ends[2 * elements] = length + keyEnd - keyStart;
    length += count;
    ends[2 * elements + 1] = length;
    elements++;
    events.add(ELEMENT);
  }

  /** Whether it should be handed over before more is added. */
  boolean full() {
    return events.size() >= MAX_EVENTS || length >= MAX_CHARS;
  }

  /** Hands the visits in order to visitor. */
  void replay(TableVisitor visitor) {
    int element = 0;
    for (Consumer<TableVisitor> event : events) {
      if (event == ELEMENT) {
        visitor.element(chars, element == 0 ? 0 : ends[2 * element - 1], ends[2 * element], ends[2 * element + 1]);
        element++;
      } else {
        event.accept(visitor);
      }
    }
  }

  /** Forgets the visits and marks (the arrays are kept for the next ones). */
  void clear() {
    events.clear();
    length = 0;
    elements = 0;
    restarts = false;
    last = false;
  }
}
