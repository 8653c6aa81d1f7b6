package dev.kubeproxy.gotext;

import java.math.BigDecimal;
import java.time.Duration;

/**
 * Number and duration text exactly as upstream's Go code prints them, so scrapers, dashboards and
 * diff-based checks see the same strings from this agent as from upstream kube-proxy.
 */
public final class GoFormat {
  private GoFormat() {}

  /**
   * A float as Go's {@code strconv.FormatFloat(v, 'g', -1, 64)}, which the Prometheus text format
   * uses for sample values and bucket bounds: shortest digits, exponent form when the decimal
   * exponent is below -4 or at least 6 (1 → "1", 0.001 → "0.001", 1.7e9 → "1.7e+09").
   */
  public static String floatG(double v) {
    if (Double.isNaN(v)) {
      return "NaN";
    }
    if (Double.isInfinite(v)) {
      return v > 0 ? "+Inf" : "-Inf";
    }
    if (v == 0) {
      return 1 / v < 0 ? "-0" : "0";
    }
    BigDecimal decimal = new BigDecimal(Double.toString(Math.abs(v))).stripTrailingZeros();
    String digits = decimal.unscaledValue().toString();
    int nd = digits.length();
    int dp = nd - decimal.scale(); // value = 0.<digits> x 10^dp
    int exp = dp - 1;
    StringBuilder out = new StringBuilder(v < 0 ? "-" : "");
    if (exp < -4 || exp >= 6) {
      out.append(digits.charAt(0));
      if (nd > 1) {
        out.append('.').append(digits, 1, nd);
      }
      out.append('e').append(exp < 0 ? '-' : '+');
      int abs = Math.abs(exp);
      if (abs < 10) {
        out.append('0');
      }
      out.append(abs);
      return out.toString();
    }
    if (dp <= 0) {
      out.append("0.").append("0".repeat(-dp)).append(digits);
    } else if (dp >= nd) {
      out.append(digits).append("0".repeat(dp - nd));
    } else {
      out.append(digits, 0, dp).append('.').append(digits, dp, nd);
    }
    return out.toString();
  }

  /** A duration as Go's {@code time.Duration.String()}: "0s", "1.5ms", "30s", "15m0s", "24h0m0s". */
  public static String duration(Duration d) {
    long nanos;
    try {
      nanos = d.toNanos();
    } catch (ArithmeticException e) {
      nanos = d.isNegative() ? Long.MIN_VALUE : Long.MAX_VALUE;
    }
    if (nanos == 0) {
      return "0s";
    }
    boolean negative = nanos < 0;
    // Long.MIN_VALUE has no positive counterpart; BigDecimal keeps the arithmetic exact.
    BigDecimal abs = new BigDecimal(nanos).abs();
    StringBuilder out = new StringBuilder(negative ? "-" : "");
    if (abs.compareTo(BigDecimal.valueOf(1_000_000_000L)) < 0) {
      String unit;
      BigDecimal scaled;
      if (abs.compareTo(BigDecimal.valueOf(1_000)) < 0) {
        unit = "ns";
        scaled = abs;
      } else if (abs.compareTo(BigDecimal.valueOf(1_000_000)) < 0) {
        unit = "µs";
        scaled = abs.movePointLeft(3);
      } else {
        unit = "ms";
        scaled = abs.movePointLeft(6);
      }
      return out.append(plain(scaled)).append(unit).toString();
    }
    BigDecimal[] hoursRest = abs.divideAndRemainder(BigDecimal.valueOf(3_600_000_000_000L));
    BigDecimal[] minutesRest = hoursRest[1].divideAndRemainder(BigDecimal.valueOf(60_000_000_000L));
    String seconds = plain(minutesRest[1].movePointLeft(9)) + "s";
    if (hoursRest[0].signum() > 0) {
      out.append(hoursRest[0].toPlainString()).append('h').append(minutesRest[0].toPlainString()).append('m');
    } else if (minutesRest[0].signum() > 0) {
      out.append(minutesRest[0].toPlainString()).append('m');
    }
    return out.append(seconds).toString();
  }

  private static String plain(BigDecimal value) {
    return value.signum() == 0 ? "0" : value.stripTrailingZeros().toPlainString();
  }
}
