package dev.kubeproxy.gotext;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.kubeproxy.testutil.tier.Unit;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

/** Go's time.Time JSON form (RFC3339Nano). */
@Unit
class GoTimeTest {
  @Test
  void utcEndsInZAndKeepsNanoseconds() {
    Instant t = Instant.parse("2020-06-03T23:59:53.688063083Z");
    assertEquals("2020-06-03T23:59:53.688063083Z", GoTime.format(t, ZoneId.of("Etc/UTC")));
    assertEquals("2020-06-03T23:59:53.688063083Z", GoTime.format(t, ZoneOffset.UTC));
  }

  @Test
  void trailingZerosOfTheFractionAreDropped() {
    assertEquals("2020-06-03T23:59:53.5Z", GoTime.format(Instant.parse("2020-06-03T23:59:53.500Z"), ZoneId.of("UTC")));
    assertEquals("2020-06-04T00:00:00Z", GoTime.format(Instant.parse("2020-06-04T00:00:00Z"), ZoneId.of("UTC")));
  }

  @Test
  void localZonesPrintTheirOffset() {
    Instant t = Instant.parse("2020-06-03T23:59:53.25Z");
    assertEquals("2020-06-04T01:59:53.25+02:00", GoTime.format(t, ZoneId.of("Europe/Berlin")));
    assertEquals("2020-06-03T18:29:53.25-05:30", GoTime.format(t, ZoneOffset.ofHoursMinutes(-5, -30)));
  }

  @Test
  void theZeroTime() {
    assertEquals("0001-01-01T00:00:00Z", GoTime.format(null));
  }
}
