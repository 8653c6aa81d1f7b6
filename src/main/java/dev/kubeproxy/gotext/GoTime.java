package dev.kubeproxy.gotext;

import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.Locale;

/**
 * Times as Go's {@code time.Time} marshals them to JSON (RFC 3339 with nanoseconds, trailing zeros
 * of the fraction dropped, the process's local zone as offset or "Z"): what upstream's /healthz
 * and /livez bodies carry since v1.33 (pkg/proxy/healthcheck/proxy_health.go, json.Marshal of
 * ProxyHealth), e.g. {@code 2025-01-07T10:15:30.123456789Z}. The zero time is
 * {@code 0001-01-01T00:00:00Z}.
 */
public final class GoTime {
  /** Go's zero time, which upstream reports before the first successful sync. */
  public static final String ZERO = "0001-01-01T00:00:00Z";

  private GoTime() {}

  /** A time in the local zone; null = the zero time. */
  public static String format(Instant t) {
    return format(t, ZoneId.systemDefault());
  }

  static String format(Instant t, ZoneId zone) {
    if (t == null) {
      return ZERO;
    }
    ZonedDateTime local = t.atZone(zone);
    StringBuilder out = new StringBuilder(40).append(String.format(Locale.ROOT, "%04d-%02d-%02dT%02d:%02d:%02d",
        local.getYear(), local.getMonthValue(), local.getDayOfMonth(), local.getHour(), local.getMinute(), local.getSecond()));
    int nanos = local.getNano();
    if (nanos != 0) {
      out.append('.').append(String.format(Locale.ROOT, "%09d", nanos).replaceFirst("0+$", ""));
    }
    int offset = local.getOffset().getTotalSeconds();
    if (offset == 0) {
      return out.append('Z').toString();
    }
    int abs = Math.abs(offset);
    return out.append(offset < 0 ? '-' : '+').append(String.format(Locale.ROOT, "%02d:%02d", abs / 3600, abs / 60 % 60)).toString();
  }
}
