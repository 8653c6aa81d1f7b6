package dev.kubeproxy.gotext;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.kubeproxy.testutil.tier.Unit;
import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

@Unit
class GoDurationTest {
  @ParameterizedTest
  @CsvSource({
      "0s, 0", "1s, 1000000000", "1m30s, 90000000000", "15m0s, 900000000000", "1h0m0s, 3600000000000",
      "24h0m0s, 86400000000000", "300ms, 300000000", "1.5s, 1500000000", "-1s, -1000000000",
      "2h22m0s, 8520000000000", "1µs, 1000", "5ns, 5"})
  void formatsLikeGo(String text, long nanos) {
    assertEquals(text, GoDuration.format(Duration.ofNanos(nanos)));
    assertEquals(Duration.ofNanos(nanos), GoDuration.parse(text));
  }

  @ParameterizedTest
  @CsvSource({"0, 0", "2h22m, 8520000000000", "1.5h, 5400000000000", "+5s, 5000000000", "1h1m1s1ms, 3661001000000",
      "10us, 10000"})
  void parsesGoForms(String text, long nanos) {
    assertEquals(Duration.ofNanos(nanos), GoDuration.parse(text));
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "abc|time: invalid duration \"abc\"",
      "''|time: invalid duration \"\"",
      "5|time: missing unit in duration \"5\"",
      "5x|time: unknown unit \"x\" in duration \"5x\"",
      "1..5s|time: invalid duration \"1..5s\""})
  void rejectsWithGoMessages(String text, String message) {
    assertEquals(message, assertThrows(IllegalArgumentException.class, () -> GoDuration.parse(text)).getMessage());
  }
}
