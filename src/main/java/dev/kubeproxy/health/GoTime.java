package dev.kubeproxy.health;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Locale;

/**
 * Times in the text of Go's {@code time.Time.String()}, which upstream's /healthz and /livez bodies
 * carry: {@code 2020-06-03 23:59:53.688063083 +0000 UTC m=+202.631797660}. The "m=" part is Go's
 * monotonic reading (seconds since process start); the zero time prints as
 * {@code 0001-01-01 00:00:00 +0000 UTC}.
 */
public final class GoTime {
  /** Go's zero time, which upstream prints before the first successful sync. */
  public static final String ZERO = "0001-01-01 00:00:00 +0000 UTC";

  private static final DateTimeFormatter WALL = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss", Locale.ROOT);
  private static final DateTimeFormatter OFFSET = DateTimeFormatter.ofPattern("xx", Locale.ROOT);
  private static final DateTimeFormatter ZONE_NAME = DateTimeFormatter.ofPattern("zzz", Locale.ROOT);
  private static final Instant PROCESS_START = Instant.ofEpochMilli(ManagementFactory.getRuntimeMXBean().getStartTime());

  private GoTime() {}

  /** A time read from the process clock, in the local zone, with the monotonic suffix; null = zero time. */
  public static String format(Instant t) {
    return format(t, ZoneId.systemDefault(), PROCESS_START);
  }

  static String format(Instant t, ZoneId zone, Instant processStart) {
    if (t == null) {
      return ZERO;
    }
    ZonedDateTime local = t.atZone(zone);
    StringBuilder out = new StringBuilder(64).append(WALL.format(local));
    int nanos = local.getNano();
    if (nanos != 0) {
      String fraction = String.format(Locale.ROOT, "%09d", nanos).replaceFirst("0+$", "");
      out.append('.').append(fraction);
    }
    out.append(' ').append(OFFSET.format(local)).append(' ').append(zoneName(local));
    Duration sinceStart = Duration.between(processStart, t);
    long n = sinceStart.toNanos();
    out.append(" m=").append(n < 0 ? '-' : '+');
    long abs = Math.abs(n);
    out.append(abs / 1_000_000_000L).append('.').append(String.format(Locale.ROOT, "%09d", abs % 1_000_000_000L));
    return out.toString();
  }

  private static String zoneName(ZonedDateTime local) {
    ZoneId zone = local.getZone();
    if (zone instanceof ZoneOffset offset) {
      // Go names a fixed zone without a name after its offset; UTC is "UTC".
      return offset.getTotalSeconds() == 0 ? "UTC" : OFFSET.format(local);
    }
    return ZONE_NAME.format(local);
  }
}
