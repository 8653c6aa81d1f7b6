package dev.kubeproxy.gotext;

import dev.kubeproxy.gotext.GoQuote;
import java.math.BigDecimal;
import java.time.Duration;

/** Go's time.Duration text form: parse like time.ParseDuration, print like Duration.String(). */
public final class GoDuration {
  private GoDuration() {}

  private static final long NANOS_MAX = Long.MAX_VALUE;

  /**
   * Parses "1h2m3.5s", "300ms", "-1s", "0" as Go does.
   *
   * @throws IllegalArgumentException with Go's message {@code time: invalid duration "x"} (or
   *     {@code time: missing unit in duration "1"}, {@code time: unknown unit "x" in duration "1x"})
   */
  public static Duration parse(String text) {
    String orig = text;
    String s = text;
    boolean neg = false;
    if (!s.isEmpty() && (s.charAt(0) == '-' || s.charAt(0) == '+')) {
      neg = s.charAt(0) == '-';
      s = s.substring(1);
    }
    if (s.equals("0")) {
      return Duration.ZERO;
    }
    if (s.isEmpty()) {
      throw invalid(orig);
    }
    BigDecimal total = BigDecimal.ZERO;
    while (!s.isEmpty()) {
      int i = 0;
      while (i < s.length() && (Character.isDigit(s.charAt(i)) || s.charAt(i) == '.')) {
        i++;
      }
      String number = s.substring(0, i);
      if (number.isEmpty() || number.equals(".") || number.indexOf('.') != number.lastIndexOf('.')) {
        throw invalid(orig);
      }
      s = s.substring(i);
      int j = 0;
      while (j < s.length() && !(Character.isDigit(s.charAt(j)) || s.charAt(j) == '.')) {
        j++;
      }
      String unit = s.substring(0, j);
      s = s.substring(j);
      if (unit.isEmpty()) {
        throw new IllegalArgumentException("time: missing unit in duration " + GoQuote.quote(orig));
      }
      long unitNanos = switch (unit) {
        case "ns" -> 1L;
        case "us", "µs", "μs" -> 1_000L;
        case "ms" -> 1_000_000L;
        case "s" -> 1_000_000_000L;
        case "m" -> 60_000_000_000L;
        case "h" -> 3_600_000_000_000L;
        default -> throw new IllegalArgumentException(
            "time: unknown unit " + GoQuote.quote(unit) + " in duration " + GoQuote.quote(orig));
      };
      total = total.add(new BigDecimal(number).multiply(BigDecimal.valueOf(unitNanos)));
      if (total.compareTo(BigDecimal.valueOf(NANOS_MAX)) > 0) {
        throw invalid(orig);
      }
    }
    long nanos = total.longValue();
    return Duration.ofNanos(neg ? -nanos : nanos);
  }

  private static IllegalArgumentException invalid(String orig) {
    return new IllegalArgumentException("time: invalid duration " + GoQuote.quote(orig));
  }

  /** Go's Duration.String(): "1h0m0s", "1m30s", "1.5s", "300ms", "0s", "-1s". */
  public static String format(Duration d) {
    long n = d.toNanos();
    if (n == 0) {
      return "0s";
    }
    boolean neg = n < 0;
    long u = Math.abs(n);
    StringBuilder sb = new StringBuilder();
    if (u < 1_000_000_000L) {
      // sub-second: ns, µs or ms with a fraction
      String unit;
      long div;
      if (u < 1_000L) {
        return (neg ? "-" : "") + u + "ns";
      } else if (u < 1_000_000L) {
        unit = "µs";
        div = 1_000L;
      } else {
        unit = "ms";
        div = 1_000_000L;
      }
      sb.append(fraction(u, div)).append(unit);
    } else {
      long hours = u / 3_600_000_000_000L;
      long rem = u % 3_600_000_000_000L;
      long minutes = rem / 60_000_000_000L;
      rem = rem % 60_000_000_000L;
      if (hours > 0) {
        sb.append(hours).append('h');
      }
      if (hours > 0 || minutes > 0) {
        sb.append(minutes).append('m');
      }
      sb.append(fraction(rem, 1_000_000_000L)).append('s');
    }
    return (neg ? "-" : "") + sb;
  }

  private static String fraction(long value, long div) {
    long whole = value / div;
    long frac = value % div;
    if (frac == 0) {
      return Long.toString(whole);
    }
    String digits = Long.toString(div).substring(1); // "000..." width
    String f = String.format("%0" + digits.length() + "d", frac).replaceAll("0+$", "");
    return whole + "." + f;
  }
}
