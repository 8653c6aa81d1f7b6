package dev.kubeproxy.backend.nftables.netlink;

/**
 * Where forms ({@link ExpressionForms}, {@link RuleForm}) are written, one at a time, by one thread
 * (the reading thread and the syncing one each have theirs, and each builds hundreds of thousands
 * of forms per resync): the string made from it is the only allocation, where a StringBuilder
 * grows, widens to two bytes per char and is copied again.
 */
final class FormChars {
  /**
   * One char per byte value, spread over 16 bits: String's hash (a polynomial in 31) of the plain
   * bytes of addresses collides so often (a × 31 + b) that the maps of 100,000 keys turn their
   * buckets into trees.
   */
  private static final char[] SPREAD = new char[256];
  /** The spread chars in order, and the byte of each: to read a key back from its form. */
  private static final char[] SPREAD_SORTED = new char[256];
  private static final byte[] BYTE_OF_SORTED = new byte[256];

  static {
    long[] pairs = new long[256];
    for (int b = 0; b < 256; b++) {
      SPREAD[b] = (char) ((b * 0x9E3779B1) >>> 16);
      pairs[b] = (long) SPREAD[b] << 8 | b;
    }
    java.util.Arrays.sort(pairs);
    for (int i = 0; i < 256; i++) {
      SPREAD_SORTED[i] = (char) (pairs[i] >>> 8);
      BYTE_OF_SORTED[i] = (byte) pairs[i];
    }
  }

  private char[] chars = new char[256];
  private int length;

  FormChars clear() {
    length = 0;
    return this;
  }

  /** Length, then one spread char per byte (nothing but the length 0 for null): an element's key or value. */
  FormChars raw(byte[] bytes) {
    if (bytes == null) {
      return append((char) 0);
    }
    room(bytes.length + 1);
    chars[length++] = (char) bytes.length;
    for (byte b : bytes) {
      chars[length++] = SPREAD[b & 0xff];
    }
    return this;
  }

  /**
   * The bytes of the {@link #raw} part at forms[at] (its length char), if it lies before end and
   * every char is one that {@link #raw} writes; else null.
   */
  static byte[] rawAt(char[] forms, int at, int end) {
    if (at >= end || at + 1 + forms[at] > end) {
      return null;
    }
    byte[] out = new byte[forms[at]];
    for (int i = 0; i < out.length; i++) {
      int sorted = java.util.Arrays.binarySearch(SPREAD_SORTED, forms[at + 1 + i]);
      if (sorted < 0) {
        return null;
      }
      out[i] = BYTE_OF_SORTED[sorted];
    }
    return out;
  }

  /** Length (an attribute's, at most 65,535, fits one char), then one char per byte as it is: a rule's attribute. */
  FormChars bytes(byte[] buf, int from, int to) {
    room(to - from + 1);
    chars[length++] = (char) (to - from);
    for (int i = from; i < to; i++) {
      chars[length++] = (char) (buf[i] & 0xff);
    }
    return this;
  }

  FormChars append(char c) {
    room(1);
    chars[length++] = c;
    return this;
  }

  FormChars append(String s) {
    room(s.length());
    s.getChars(0, s.length(), chars, length);
    length += s.length();
    return this;
  }

  /** Copies the form written to out (where a set's desired forms are kept without a string each). */
  void appendTo(dev.kubeproxy.backend.nftables.objects.FormArena out) {
    out.append(chars, 0, length);
  }

  /** The chars written so far (valid until the next write): forms[0, {@link #length()}). */
  char[] chars() {
    return chars;
  }

  int length() {
    return length;
  }

  String done() {
    return new String(chars, 0, length);
  }

  private void room(int more) {
    if (length + more > chars.length) {
      chars = java.util.Arrays.copyOf(chars, Math.max(chars.length * 2, length + more));
    }
  }
}
