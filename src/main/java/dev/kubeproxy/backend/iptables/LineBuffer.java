package dev.kubeproxy.backend.iptables;

/**
 * Lines of an iptables-restore input, built token by token into one {@link RestoreText} (no
 * per-rule arrays or strings). A discarding buffer only counts its lines: partial syncs generate the
 * unchanged services' chains into one so that rule-count metrics stay right.
 */
final class LineBuffer {
  private final RestoreText text;
  private final boolean discard;
  private boolean atLineStart = true;
  private int lines;

  private LineBuffer(boolean discard) {
    this.text = discard ? null : new RestoreText();
    this.discard = discard;
  }

  static LineBuffer create() {
    return new LineBuffer(false);
  }

  static LineBuffer discarding() {
    return new LineBuffer(true);
  }

  /** One token, separated from the previous one by a space. */
  LineBuffer t(String token) {
    if (!discard) {
      if (!atLineStart) {
        text.append(' ');
      }
      text.append(token);
      atLineStart = false;
    }
    return this;
  }

  LineBuffer t(int number) {
    if (!discard) {
      if (!atLineStart) {
        text.append(' ');
      }
      text.append(number);
      atLineStart = false;
    }
    return this;
  }

  /**
   * A --comment value: quoted only when it holds a space, as upstream writes it. The parts come
   * from object names, which must never reach iptables-restore as syntax: a value with a quote,
   * backslash or other special character is quoted with '"' and '\\' escaped (iptables-restore's
   * tokenizer, add_param_to_argv in iptables' xshared.c, reads both escapes inside quotes), and a
   * line break or other control character, which no escape can carry, becomes '?'.
   */
  LineBuffer comment(String first, String rest) {
    return comment(first, rest, "");
  }

  /** A --comment value of three parts (one value, quoted as a whole when needed). */
  LineBuffer comment(String first, String middle, String last) {
    if (!discard) {
      if (!atLineStart) {
        text.append(' ');
      }
      text.append("-m comment --comment ");
      int plain = Math.max(plainness(first), Math.max(plainness(middle), plainness(last)));
      if (plain == 0) {
        text.append(first).append(middle).append(last);
      } else {
        text.append('"');
        appendEscaped(first);
        appendEscaped(middle);
        appendEscaped(last);
        text.append('"');
      }
      atLineStart = false;
    }
    return this;
  }

  /** 0: written as is; 1: needs quotes (a space); 2: needs escaping too. */
  private static int plainness(String s) {
    int level = 0;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == ' ') {
        level = 1;
      } else if (c == '"' || c == '\\' || c == '\'' || c < 0x20 || c == 0x7f || c > 0xFF) {
        return 2;
      }
    }
    return level;
  }

  private void appendEscaped(String s) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '"' || c == '\\') {
        text.append('\\').append(c);
      } else if (c < 0x20 || c == 0x7f || c > 0xFF) {
        text.append('?');
      } else {
        text.append(c);
      }
    }
  }

  /** Ends the current line. */
  void end() {
    lines++;
    if (!discard) {
      text.append('\n');
      atLineStart = true;
    }
  }

  /** A whole line (chain line, table header, COMMIT). */
  void line(String whole) {
    t(whole).end();
  }

  /** The chain declaration line ":NAME - [0:0]". */
  void chainLine(String chain) {
    if (!discard) {
      text.append(':').append(chain).append(" - [0:0]\n");
    }
    lines++;
  }

  int lines() {
    return lines;
  }

  int length() {
    return discard ? 0 : text.length();
  }

  /** head, these lines, tail: head takes this buffer's text chunk by chunk (this buffer is spent). */
  RestoreText between(RestoreText head, String tail) {
    if (!discard) {
      head.drain(text);
    }
    return head.append(tail);
  }

  /** Moves these lines to the end of out (this buffer is spent). */
  void moveTo(RestoreText out) {
    if (!discard) {
      out.drain(text);
    }
  }

  @Override
  public String toString() {
    return discard ? "" : text.toString();
  }
}
