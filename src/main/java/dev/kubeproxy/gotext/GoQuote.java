package dev.kubeproxy.gotext;

/**
 * Go's {@code strconv.Quote} (what {@code %q} prints): the text in double quotes, with backslash and
 * double quote escaped and control characters written as escapes. klog quotes its values this way,
 * and upstream's messages that the agent repeats (flag and duration parse errors, validation and
 * health answers) quote with {@code %q}.
 */
public final class GoQuote {
  private GoQuote() {}

  public static String quote(String s) {
    StringBuilder sb = new StringBuilder(s.length() + 2).append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> sb.append("\\\"");
        case '\\' -> sb.append("\\\\");
        case '\u0007' -> sb.append("\\a");
        case '\b' -> sb.append("\\b");
        case '\f' -> sb.append("\\f");
        case '\n' -> sb.append("\\n");
        case '\r' -> sb.append("\\r");
        case '\t' -> sb.append("\\t");
        case '\u000b' -> sb.append("\\v");
        default -> {
          if (c < 0x20 || c == 0x7f) {
            sb.append(String.format("\\x%02x", (int) c));
          } else {
            sb.append(c);
          }
        }
      }
    }
    return sb.append('"').toString();
  }
}
