package dev.kubeproxy.backend.nftables.objects;

import java.util.Arrays;

/**
 * Forms ({@link TableReader#keyForm}, {@link TableReader#elementForm}) written one after another
 * into one growing char array, each found again by where it starts: a set's desired elements are
 * held for the comparison without a String each, which in a large set would live long enough to
 * be promoted.
 */
public final class FormArena {
  private char[] chars = new char[4096];
  private int length;

  public void append(char[] from, int start, int count) {
    room(count);
    System.arraycopy(from, start, chars, length, count);
    length += count;
  }

  public void append(String s) {
    room(s.length());
    s.getChars(0, s.length(), chars, length);
    length += s.length();
  }

  /** Forgets the forms from this place on (the array is kept for the next ones). */
  public void truncate(int length) {
    this.length = length;
  }

  /** How many chars the forms written so far hold: where the next one starts. */
  public int length() {
    return length;
  }

  /** Whether chars [start, end) are exactly other[otherStart, otherEnd). */
  public boolean holds(int start, int end, char[] other, int otherStart, int otherEnd) {
    return Arrays.equals(chars, start, end, other, otherStart, otherEnd);
  }

  /** Whether the count chars at a and those at b are the same. */
  public boolean same(int a, int b, int count) {
    return Arrays.equals(chars, a, a + count, chars, b, b + count);
  }

  /** A hash of chars [start, end), the same as {@link #hash(char[], int, int)} of the same chars elsewhere. */
  public int hash(int start, int end) {
    return hash(chars, start, end);
  }

  public static int hash(char[] in, int start, int end) {
    int h = 0;
    for (int i = start; i < end; i++) {
      h = 31 * h + in[i];
    }
    return h;
  }

  private void room(int more) {
    if (length + more > chars.length) {
      chars = Arrays.copyOf(chars, Math.max(chars.length * 2, length + more));
    }
  }
}
