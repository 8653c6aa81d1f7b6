package dev.kubeproxy.monitoring;

import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The metric names a PromQL expression reads (enough of PromQL for dashboards and alert rules). */
final class PromQlNames {
  private static final Pattern STRINGS = Pattern.compile("\"(?:[^\"\\\\]|\\\\.)*\"|'(?:[^'\\\\]|\\\\.)*'");
  private static final Pattern MATCHERS = Pattern.compile("\\{[^}]*}");
  private static final Pattern RANGES = Pattern.compile("\\[[^]]*]");
  /** Label lists of grouping and vector-matching modifiers: `by (a, b)`, `on (x)`, … */
  private static final Pattern LABEL_LISTS =
      Pattern.compile("\\b(by|without|on|ignoring|group_left|group_right)\\s*\\([^)]*\\)");
  private static final Pattern IDENTIFIER = Pattern.compile("[a-zA-Z_:][a-zA-Z0-9_:]*");
  private static final Set<String> KEYWORDS =
      Set.of("and", "or", "unless", "bool", "offset", "inf", "nan", "by", "without", "on", "ignoring");

  private PromQlNames() {}

  static Set<String> of(String expr) {
    String s = STRINGS.matcher(expr).replaceAll("\"\"");
    s = MATCHERS.matcher(s).replaceAll(" ");
    s = RANGES.matcher(s).replaceAll(" ");
    s = LABEL_LISTS.matcher(s).replaceAll(" ");
    Set<String> names = new TreeSet<>();
    Matcher m = IDENTIFIER.matcher(s);
    while (m.find()) {
      boolean partOfNumber = m.start() > 0 && (Character.isDigit(s.charAt(m.start() - 1)) || s.charAt(m.start() - 1) == '.');
      String rest = s.substring(m.end()).stripLeading();
      if (!partOfNumber && !rest.startsWith("(") && !KEYWORDS.contains(m.group().toLowerCase())) {
        names.add(m.group());
      }
    }
    return names;
  }
}
