package dev.kubeproxy.gotext;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.kubeproxy.testutil.tier.Unit;
import java.time.Duration;
import org.junit.jupiter.api.Test;

@Unit
class GoFormatTest {
  @Test
  void floatsLikeStrconvFormatFloatG() {
    assertEquals("0", GoFormat.floatG(0));
    assertEquals("1", GoFormat.floatG(1));
    assertEquals("-3", GoFormat.floatG(-3));
    assertEquals("0.001", GoFormat.floatG(0.001));
    assertEquals("16.384", GoFormat.floatG(16.384));
    assertEquals("0.25", GoFormat.floatG(0.25));
    assertEquals("300", GoFormat.floatG(300));
    assertEquals("100000", GoFormat.floatG(100000));
    assertEquals("1e+06", GoFormat.floatG(1_000_000));
    assertEquals("1.23456789e+08", GoFormat.floatG(123456789));
    assertEquals("1.7171717171234e+09", GoFormat.floatG(1717171717.1234));
    assertEquals("0.0001", GoFormat.floatG(0.0001));
    assertEquals("1e-05", GoFormat.floatG(0.00001));
    assertEquals("1.5e-07", GoFormat.floatG(1.5e-7));
    assertEquals("+Inf", GoFormat.floatG(Double.POSITIVE_INFINITY));
    assertEquals("-Inf", GoFormat.floatG(Double.NEGATIVE_INFINITY));
    assertEquals("NaN", GoFormat.floatG(Double.NaN));
    assertEquals("1e+21", GoFormat.floatG(1e21));
  }

  @Test
  void durationsLikeGoDurationString() {
    assertEquals("0s", GoFormat.duration(Duration.ZERO));
    assertEquals("30s", GoFormat.duration(Duration.ofSeconds(30)));
    assertEquals("1s", GoFormat.duration(Duration.ofSeconds(1)));
    assertEquals("15m0s", GoFormat.duration(Duration.ofMinutes(15)));
    assertEquals("24h0m0s", GoFormat.duration(Duration.ofHours(24)));
    assertEquals("1h0m0s", GoFormat.duration(Duration.ofHours(1)));
    assertEquals("1m30s", GoFormat.duration(Duration.ofSeconds(90)));
    assertEquals("1.5s", GoFormat.duration(Duration.ofMillis(1500)));
    assertEquals("500ms", GoFormat.duration(Duration.ofMillis(500)));
    assertEquals("1.5ms", GoFormat.duration(Duration.ofNanos(1_500_000)));
    assertEquals("2µs", GoFormat.duration(Duration.ofNanos(2_000)));
    assertEquals("7ns", GoFormat.duration(Duration.ofNanos(7)));
    assertEquals("-5s", GoFormat.duration(Duration.ofSeconds(-5)));
    assertEquals("2562047h47m16.854775807s", GoFormat.duration(Duration.ofNanos(Long.MAX_VALUE)));
    assertEquals("-2562047h47m16.854775808s", GoFormat.duration(Duration.ofNanos(Long.MIN_VALUE)));
  }
}
