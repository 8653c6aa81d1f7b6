package dev.kubeproxy.trace.nftables.script;

import java.util.ArrayList;
import java.util.List;

/**
 * The words of one nft command: split at spaces, a double-quoted string one word (kept with its
 * quotes, so that a quoted "{" is never taken for a brace), read front to back.
 */
final class Tokens {
  private final List<String> words;
  private final String line;
  private int at;

  Tokens(String line) {
    this.line = line;
    this.words = split(line);
  }

  private static List<String> split(String line) {
    List<String> out = new ArrayList<>();
    int i = 0;
    while (i < line.length()) {
      char c = line.charAt(i);
      if (c == ' ' || c == '\t') {
        i++;
      } else if (c == '"') {
        int end = i + 1;
        while (end < line.length() && line.charAt(end) != '"') {
          end += line.charAt(end) == '\\' ? 2 : 1;
        }
        if (end >= line.length()) {
          throw new IllegalArgumentException("an unterminated string in: " + line);
        }
        out.add(line.substring(i, end + 1));
        i = end + 1;
      } else {
        int end = i;
        while (end < line.length() && line.charAt(end) != ' ' && line.charAt(end) != '\t') {
          end++;
        }
        out.add(line.substring(i, end));
        i = end;
      }
    }
    return out;
  }

  boolean done() {
    return at >= words.size();
  }

  String peek() {
    return done() ? "" : words.get(at);
  }

  String peek(int ahead) {
    return at + ahead < words.size() ? words.get(at + ahead) : "";
  }

  String next() {
    if (done()) {
      throw bad("more words");
    }
    return words.get(at++);
  }

  /** Takes the next word when it is w. */
  boolean accept(String w) {
    if (peek().equals(w)) {
      at++;
      return true;
    }
    return false;
  }

  void expect(String w) {
    if (!accept(w)) {
      throw bad("\"" + w + "\"");
    }
  }

  /** A quoted string's text. */
  String quoted() {
    String w = next();
    if (w.length() < 2 || !w.startsWith("\"") || !w.endsWith("\"")) {
      throw bad("a quoted string, not " + w);
    }
    return w.substring(1, w.length() - 1).replace("\\\"", "\"").replace("\\\\", "\\");
  }

  IllegalArgumentException bad(String wanted) {
    return new IllegalArgumentException("expected " + wanted + " at word " + (at + 1) + " of: " + line);
  }
}
