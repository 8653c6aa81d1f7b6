package dev.kubeproxy.health;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

class GoTimeTest {
  private final Instant start = Instant.parse("2020-06-03T23:56:31.056265423Z");

  @Test
  void wallTimeZoneAndMonotonicSuffix() {
    Instant t = Instant.parse("2020-06-03T23:59:53.688063083Z");
    assertEquals("2020-06-03 23:59:53.688063083 +0000 UTC m=+202.631797660", GoTime.format(t, ZoneId.of("Etc/UTC"), start));
    assertEquals("2020-06-03 23:59:53.688063083 +0000 UTC m=+202.631797660", GoTime.format(t, ZoneOffset.UTC, start));
  }

  @Test
  void trailingZerosOfTheFractionAreDropped() {
    assertEquals("2020-06-03 23:59:53.5 +0000 UTC m=+202.443734577",
        GoTime.format(Instant.parse("2020-06-03T23:59:53.500Z"), ZoneId.of("UTC"), start));
    assertEquals("2020-06-04 00:00:00 +0000 UTC m=+208.943734577",
        GoTime.format(Instant.parse("2020-06-04T00:00:00Z"), ZoneId.of("UTC"), start));
  }

  @Test
  void localZonesUseOffsetAndAbbreviation() {
    assertEquals("2020-06-04 01:59:53 +0200 CEST m=+201.943734577",
        GoTime.format(Instant.parse("2020-06-03T23:59:53Z"), ZoneId.of("Europe/Berlin"), start));
  }

  @Test
  void zeroTime() {
    assertEquals("0001-01-01 00:00:00 +0000 UTC", GoTime.format(null));
  }

  @Test
  void processClockTimesHaveAPositiveMonotonicReading() {
    assertTrue(GoTime.format(Instant.now()).matches("\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d(\\.\\d+)? [+-]\\d{4} \\S+ m=\\+\\d+\\.\\d{9}"));
  }
}
