package dev.kubeproxy.backend.iptables;

/**
 * Lines of an iptables-restore input, built token by token into one {@link RestoreText} (no
 * per-rule arrays or strings). A line starts as a declaration ({@link #chainLine}), a rule
 * ({@link #rule}) or a deletion ({@link #deletion}), which the buffer records in its
 * {@link ChainRuns} as it writes them.
 */
final class LineBuffer {
  private final RestoreText text;
  private final ChainRuns runs;
  private boolean atLineStart = true;
  /** Whether the current line was started by rule or deletion (so its run is known). */
  private boolean placed;
  private int lines;

  private LineBuffer(SpareChunks spare) {
    this.text = new RestoreText(spare);
    this.runs = new ChainRuns();
  }

  /** A buffer whose text chunks come from and go back to spare. */
  static LineBuffer create(SpareChunks spare) {
    return new LineBuffer(spare);
  }

  /** Starts the line "-A chain": a rule appended to chain. */
  LineBuffer rule(String chain) {
    runs.rule(chain, text.length(), lines);
    placed = true;
    return t("-A").t(chain);
  }

  /** The line "-X chain": deletes chain (flushed by its declaration before). */
  void deletion(String chain) {
    runs.deletion(text.length(), lines);
    placed = true;
    t("-X").t(chain).end();
  }

  /** One token, separated from the previous one by a space. */
  LineBuffer t(String token) {
    if (!atLineStart) {
      text.append(' ');
    }
    text.append(token);
    atLineStart = false;
    return this;
  }

  LineBuffer t(int number) {
    if (!atLineStart) {
      text.append(' ');
    }
    text.append(number);
    atLineStart = false;
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
    if (!placed) {
      runs.unplaced();
    }
    text.append('\n');
    atLineStart = true;
    placed = false;
    lines++;
  }

  /** The chain declaration line ":NAME - [0:0]". */
  void chainLine(String chain) {
    runs.declaration(chain, text.length(), lines);
    text.append(':').append(chain).append(" - [0:0]\n");
    lines++;
  }

  int lines() {
    return lines;
  }

  int length() {
    return text.length();
  }

  /**
   * Moves these lines to the end of out, chunk by chunk (this buffer is spent); their first line
   * is line firstLine (0-based) of out. Returns the buffer's runs, placed where the lines now are.
   */
  ChainRuns moveTo(RestoreText out, int firstLine) {
    runs.placedAt(out.length(), firstLine, text.length(), lines);
    out.drain(text);
    return runs;
  }

  @Override
  public String toString() {
    return text.toString();
  }
}
