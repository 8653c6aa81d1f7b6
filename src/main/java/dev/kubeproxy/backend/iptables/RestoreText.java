package dev.kubeproxy.backend.iptables;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A restore input's text, one byte per char, in fixed-size chunks: it grows without the
 * doubling copies of a StringBuilder, is never over-allocated from an estimate, and is handed to
 * the tool without a final String copy: a builder plus its String held the largest input twice
 * at the first sync's peak.
 *
 * <p>Every char is stored as its low byte when it is Latin-1, as '?' otherwise: the input is
 * ASCII (names, addresses, numbers), and {@link LineBuffer} escapes what an object name could
 * carry into a comment, so nothing above Latin-1 reaches here but by mistake, and then it must
 * not turn into another char (a '\n' would split a rule).
 */
final class RestoreText implements CharSequence {
  private static final int SHIFT = 16;
  private static final int CHUNK = 1 << SHIFT;
  private static final int MASK = CHUNK - 1;

  /** Where chunks come from and go back to; null: allocated, and left to the collector. */
  private final SpareChunks spare;
  private byte[][] chunks = new byte[4][];
  private int length;

  RestoreText() {
    this(null);
  }

  RestoreText(SpareChunks spare) {
    this.spare = spare;
  }

  /** The text of a String (tests, and inputs that are Strings already). */
  static RestoreText of(CharSequence s) {
    return new RestoreText().append(s);
  }

  RestoreText append(char c) {
    int at = length & MASK;
    byte[] chunk = chunkFor(length);
    chunk[at] = c <= 0xFF ? (byte) c : (byte) '?';
    length++;
    return this;
  }

  RestoreText append(CharSequence s) {
    return append(s, 0, s.length());
  }

  RestoreText append(CharSequence s, int from, int to) {
    int i = from;
    while (i < to) {
      byte[] chunk = chunkFor(length);
      int at = length & MASK;
      int n = Math.min(to - i, CHUNK - at);
      for (int k = 0; k < n; k++) {
        char c = s.charAt(i + k);
        chunk[at + k] = c <= 0xFF ? (byte) c : (byte) '?';
      }
      i += n;
      length += n;
    }
    return this;
  }

  RestoreText append(int number) {
    return append(Integer.toString(number));
  }

  /** Appends other's text, releasing each of its chunks once copied: other is empty afterwards. */
  RestoreText drain(RestoreText other) {
    int copied = 0;
    for (int c = 0; copied < other.length; c++) {
      int n = Math.min(CHUNK, other.length - copied);
      byte[] src = other.chunks[c];
      int i = 0;
      while (i < n) {
        byte[] chunk = chunkFor(length);
        int at = length & MASK;
        int k = Math.min(n - i, CHUNK - at);
        System.arraycopy(src, i, chunk, at, k);
        i += k;
        length += k;
      }
      other.chunks[c] = null;
      other.giveBack(src);
      copied += n;
    }
    other.chunks = new byte[4][];
    other.length = 0;
    return this;
  }

  /** Gives every chunk back to the spares (the text is empty afterwards). */
  void release() {
    for (int c = 0; c < chunks.length && chunks[c] != null; c++) {
      giveBack(chunks[c]);
      chunks[c] = null;
    }
    length = 0;
  }

  private void giveBack(byte[] chunk) {
    if (spare != null) {
      spare.giveBack(chunk);
    }
  }

  private byte[] chunkFor(int index) {
    int c = index >>> SHIFT;
    if (c >= chunks.length) {
      chunks = Arrays.copyOf(chunks, chunks.length * 2);
    }
    byte[] chunk = chunks[c];
    if (chunk == null) {
      chunk = spare == null ? new byte[CHUNK] : spare.take(CHUNK);
      chunks[c] = chunk;
    }
    return chunk;
  }

  @Override
  public int length() {
    return length;
  }

  @Override
  public char charAt(int index) {
    if (index < 0 || index >= length) {
      throw new IndexOutOfBoundsException(index + " of " + length);
    }
    return (char) (chunks[index >>> SHIFT][index & MASK] & 0xFF);
  }

  /** The first c at or after from, or -1. */
  int indexOf(char c, int from) {
    byte b = (byte) c;
    int i = Math.max(from, 0);
    while (i < length) {
      byte[] chunk = chunks[i >>> SHIFT];
      int end = Math.min(length - (i & ~MASK), CHUNK);
      for (int k = i & MASK; k < end; k++) {
        if (chunk[k] == b) {
          return (i & ~MASK) + k;
        }
      }
      i = (i & ~MASK) + CHUNK;
    }
    return -1;
  }

  boolean startsWith(String prefix, int at) {
    return regionMatches(at, prefix, 0, prefix.length());
  }

  /** Whether [at, at + n) equals s[from, from + n). */
  boolean regionMatches(int at, CharSequence s, int from, int n) {
    if (at < 0 || at + n > length || from < 0 || from + n > s.length()) {
      return false;
    }
    for (int k = 0; k < n; k++) {
      if (charAt(at + k) != s.charAt(from + k)) {
        return false;
      }
    }
    return true;
  }

  /** Chars [start, end) as a String of their own. */
  String substring(int start, int end) {
    if (start < 0 || end > length || start > end) {
      throw new IndexOutOfBoundsException("[" + start + ", " + end + ") of " + length);
    }
    byte[] out = new byte[end - start];
    int i = start;
    while (i < end) {
      int at = i & MASK;
      int n = Math.min(end - i, CHUNK - at);
      System.arraycopy(chunks[i >>> SHIFT], at, out, i - start, n);
      i += n;
    }
    return new String(out, StandardCharsets.ISO_8859_1);
  }

  /** Appends chars [start, end) to out. */
  void appendTo(StringBuilder out, int start, int end) {
    out.append(substring(start, end));
  }

  @Override
  public String subSequence(int start, int end) {
    return substring(start, end);
  }

  @Override
  public String toString() {
    return substring(0, length);
  }
}
