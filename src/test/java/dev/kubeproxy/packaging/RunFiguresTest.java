package dev.kubeproxy.packaging;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.kubeproxy.testutil.tier.Unit;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

@Unit
class RunFiguresTest {

  private static Map<String, String> start(String... labelsAndValues) {
    Map<String, String> row = new LinkedHashMap<>();
    for (int i = 0; i < labelsAndValues.length; i += 2) {
      row.put(labelsAndValues[i], labelsAndValues[i + 1]);
    }
    return row;
  }

  @Test
  void aFigureOfEveryStartIsItsMedianThenEachValue() {
    Map<String, String> column = RunFigures.combine(List.of(
        start("start (s)", "5.10", "RSS / live heap (MB)", "214.4 / 104.5", "limit", "512m"),
        start("start (s)", "4.85", "RSS / live heap (MB)", "213.9 / 104.1", "limit", "512m"),
        start("start (s)", "6.02", "RSS / live heap (MB)", "229.3 / 104.3", "limit", "512m",
            "churn p99 (ms)", "21")));
    assertEquals("5.10 (5.10; 4.85; 6.02)", column.get("start (s)"));
    assertEquals("214.4 / 104.3 (214.4 / 104.5; 213.9 / 104.1; 229.3 / 104.3)", column.get("RSS / live heap (MB)"));
    assertEquals("512m; 512m; 512m", column.get("limit"), "text is joined");
    assertEquals("21", column.get("churn p99 (ms)"), "a figure of the last start only stays as it is");
  }

  @Test
  void anEvenCountTakesTheMeanOfTheMiddleTwoAtTheValuesPrecision() {
    assertEquals("4.90", RunFigures.median(List.of("5.00", "4.80", "4.70", "6.10")));
    assertNull(RunFigures.median(List.of("1.0 / 2.0", "1.0")), "different forms have no median");
  }

  @Test
  void oneStartIsItsOwnColumn() {
    Map<String, String> only = start("start (s)", "4.85");
    assertEquals(only, RunFigures.combine(List.of(only)));
  }
}
