package dev.kubeproxy.proxy.iptables;

/**
 * Lines of an iptables-restore input, built token by token into one StringBuilder (no per-rule
 * arrays or strings). A discarding buffer only counts its lines: partial syncs generate the
 * unchanged services' chains into one so that rule-count metrics stay right.
 */
final class LineBuffer {
  private final StringBuilder text;
  private final boolean discard;
  private boolean atLineStart = true;
  private int lines;

  private LineBuffer(int capacity, boolean discard) {
    this.text = discard ? null : new StringBuilder(capacity);
    this.discard = discard;
  }

  static LineBuffer create(int capacity) {
    return new LineBuffer(capacity, false);
  }

  static LineBuffer discarding() {
    return new LineBuffer(0, true);
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

  /** A --comment value: quoted only when it holds a space, as upstream writes it. */
  LineBuffer comment(String first, String rest) {
    if (!discard) {
      if (!atLineStart) {
        text.append(' ');
      }
      text.append("-m comment --comment ");
      boolean quote = rest.indexOf(' ') >= 0 || first.indexOf(' ') >= 0;
      if (quote) {
        text.append('"');
      }
      text.append(first).append(rest);
      if (quote) {
        text.append('"');
      }
      atLineStart = false;
    }
    return this;
  }

  /** A --comment value of three parts (always quoted when any part holds a space). */
  LineBuffer comment(String first, String middle, String last) {
    if (!discard) {
      if (!atLineStart) {
        text.append(' ');
      }
      boolean quote = first.indexOf(' ') >= 0 || middle.indexOf(' ') >= 0 || last.indexOf(' ') >= 0;
      text.append("-m comment --comment ");
      if (quote) {
        text.append('"');
      }
      text.append(first).append(middle).append(last);
      if (quote) {
        text.append('"');
      }
      atLineStart = false;
    }
    return this;
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

  void appendTo(StringBuilder out) {
    if (!discard) {
      out.append(text);
    }
  }

  @Override
  public String toString() {
    return discard ? "" : text.toString();
  }
}
