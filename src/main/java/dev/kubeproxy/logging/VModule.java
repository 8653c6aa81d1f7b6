package dev.kubeproxy.logging;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Per-source verbosity (--vmodule pattern=N,...). A pattern without '/' matches the source file's
 * base name without ".java" (e.g. {@code ConfigVerticle}, {@code Proxier*}); a pattern with '/'
 * matches the path of the class (e.g. {@code dev/kubeproxy/backend/*}). '*' and '?' are globs.
 */
public final class VModule {
  /** One pattern=N entry. */
  public record Entry(String pattern, int verbosity) {}

  private record Compiled(Pattern regex, boolean pathPattern, int verbosity) {}

  private final List<Entry> entries;
  private final List<Compiled> compiled;

  public VModule(List<Entry> entries) {
    this.entries = List.copyOf(entries);
    List<Compiled> c = new ArrayList<>();
    for (Entry e : entries) {
      c.add(new Compiled(glob(e.pattern()), e.pattern().contains("/"), e.verbosity()));
    }
    this.compiled = List.copyOf(c);
  }

  public static final VModule EMPTY = new VModule(List.of());

  public List<Entry> entries() {
    return entries;
  }

  public boolean isEmpty() {
    return entries.isEmpty();
  }

  /**
   * Parses "pattern=N,pattern2=M" as the flag takes it.
   *
   * @throws IllegalArgumentException with a message naming the bad entry
   */
  public static List<Entry> parse(String value) {
    List<Entry> result = new ArrayList<>();
    if (value == null || value.isEmpty()) {
      return result;
    }
    for (String part : value.split(",", -1)) {
      int eq = part.indexOf('=');
      if (eq <= 0 || eq == part.length() - 1) {
        throw new IllegalArgumentException(
            "\"" + part + "\" does not have the pattern=N format (e.g. ProxierVerticle=4)");
      }
      String pattern = part.substring(0, eq).trim();
      String level = part.substring(eq + 1).trim();
      int v;
      try {
        v = Integer.parseInt(level);
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("\"" + part + "\": verbosity \"" + level + "\" is not a number");
      }
      if (v < 0) {
        throw new IllegalArgumentException("\"" + part + "\": verbosity must not be negative");
      }
      result.add(new Entry(pattern, v));
    }
    return result;
  }

  /** The verbosity for a source, or -1 when no pattern matches it. */
  int verbosityFor(String className, String fileBaseName) {
    for (Compiled c : compiled) {
      String subject = c.pathPattern() ? className.replace('.', '/') : fileBaseName;
      if (c.regex().matcher(subject).matches()) {
        return c.verbosity();
      }
    }
    return -1;
  }

  private static Pattern glob(String glob) {
    StringBuilder re = new StringBuilder();
    for (char ch : glob.toCharArray()) {
      switch (ch) {
        case '*' -> re.append(".*");
        case '?' -> re.append('.');
        default -> re.append(Pattern.quote(String.valueOf(ch)));
      }
    }
    return Pattern.compile(re.toString());
  }

  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder();
    for (Entry e : entries) {
      if (sb.length() > 0) {
        sb.append(',');
      }
      sb.append(e.pattern()).append('=').append(e.verbosity());
    }
    return sb.toString();
  }
}
