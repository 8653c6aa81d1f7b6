package dev.kubeproxy.backend.iptables;

import java.util.Arrays;

/**
 * The restore input as it is handed to iptables-restore: pieces of the generated text (whole
 * lines) in another order, with no second copy of the text, which the first sync's heap would have
 * to grow for. Read a chunk at a time ({@link #subSequence}) as it is written to the tool. It maps
 * a line the tool refuses back to the generated text's own numbering ({@link #originalLine}), the
 * one the dry run prints and the line owners are known by.
 */
final class SentInput implements CharSequence {
  private final RestoreText text;
  /** Piece i is text[from[i], from[i] + its length), starting at char offsets[i] and line sentLines[i] as sent. */
  private int[] from = new int[128];
  private int[] offsets = new int[128];
  /** 0-based lines: where piece i starts in the generated text, and as sent. */
  private int[] originalLines = new int[128];
  private int[] sentLines = new int[128];
  private int count;
  private int length;
  private int lines;

  SentInput(RestoreText text) {
    this.text = text;
  }

  /**
   * Appends text[start, end), its lines starting at line firstLine (0-based) of the text; joined to
   * the last piece when it follows it there.
   */
  void add(int start, int end, int firstLine, int lineCount) {
    if (start == end) {
      return;
    }
    if (count > 0 && from[count - 1] + (length - offsets[count - 1]) == start) {
      length += end - start;
      lines += lineCount;
      return;
    }
    if (count == from.length) {
      int grown = count * 2;
      from = Arrays.copyOf(from, grown);
      offsets = Arrays.copyOf(offsets, grown);
      originalLines = Arrays.copyOf(originalLines, grown);
      sentLines = Arrays.copyOf(sentLines, grown);
    }
    from[count] = start;
    offsets[count] = length;
    originalLines[count] = firstLine;
    sentLines[count] = lines;
    count++;
    length += end - start;
    lines += lineCount;
  }

  /** What to hand to the tool: the text itself when no line moved, else these pieces. */
  CharSequence input() {
    return count == 1 && from[0] == 0 && length == text.length() ? text : this;
  }

  /** The 1-based line of the generated text that is this 1-based line as sent (0, unknown, stays 0). */
  int originalLine(int line) {
    if (line < 1 || line > lines) {
      return line;
    }
    int p = Arrays.binarySearch(sentLines, 0, count, line - 1);
    p = p >= 0 ? p : -p - 2;
    return originalLines[p] + (line - 1 - sentLines[p]) + 1;
  }

  @Override
  public int length() {
    return length;
  }

  @Override
  public char charAt(int index) {
    int p = piece(index);
    return text.charAt(from[p] + index - offsets[p]);
  }

  /** Chars [start, end) as a String of their own. */
  @Override
  public String subSequence(int start, int end) {
    if (start < 0 || end > length || start > end) {
      throw new IndexOutOfBoundsException("[" + start + ", " + end + ") of " + length);
    }
    StringBuilder out = new StringBuilder(end - start);
    for (int p = start < end ? piece(start) : count; p < count && offsets[p] < end; p++) {
      int pieceEnd = p + 1 < count ? offsets[p + 1] : length;
      int at = from[p] + Math.max(0, start - offsets[p]);
      int to = from[p] + Math.min(pieceEnd, end) - offsets[p];
      text.appendTo(out, at, to);
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
