package dev.kubeproxy.packaging;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The figures of several starts at one shape and mode as one column: a figure every start has, as
 * numbers ("4.85", or parts like "214.4 / 104.5"), becomes its median followed by every start's
 * value in run order; any other figure (the churn's, measured in the last start only, or text)
 * is its values joined.
 */
final class RunFigures {
  private RunFigures() {}

  static Map<String, String> combine(List<Map<String, String>> starts) {
    if (starts.size() == 1) {
      return starts.get(0);
    }
    Set<String> labels = new LinkedHashSet<>();
    starts.forEach(s -> labels.addAll(s.keySet()));
    Map<String, String> out = new LinkedHashMap<>();
    for (String label : labels) {
      List<String> values = starts.stream().map(s -> s.get(label)).filter(v -> v != null).toList();
      String median = values.size() == starts.size() ? median(values) : null;
      out.put(label, median != null ? median + " (" + String.join("; ", values) + ")" : String.join("; ", values));
    }
    return out;
  }

  /** The part-wise median of values of the same numeric form, or null when they are not. */
  static String median(List<String> values) {
    List<BigDecimal[]> parsed = new ArrayList<>();
    for (String v : values) {
      BigDecimal[] parts = parts(v);
      if (parts == null || (!parsed.isEmpty() && parsed.get(0).length != parts.length)) {
        return null;
      }
      parsed.add(parts);
    }
    String[] medians = new String[parsed.get(0).length];
    for (int p = 0; p < medians.length; p++) {
      int part = p;
      List<BigDecimal> sorted = parsed.stream().map(a -> a[part]).sorted().toList();
      int n = sorted.size();
      int scale = sorted.stream().mapToInt(BigDecimal::scale).max().orElse(0);
      BigDecimal m = n % 2 == 1 ? sorted.get(n / 2)
          : sorted.get(n / 2 - 1).add(sorted.get(n / 2)).divide(BigDecimal.valueOf(2));
      medians[p] = m.setScale(scale, java.math.RoundingMode.HALF_EVEN).toPlainString();
    }
    return String.join(" / ", medians);
  }

  private static BigDecimal[] parts(String value) {
    try {
      return Arrays.stream(value.split(" / ")).map(String::trim).map(BigDecimal::new).toArray(BigDecimal[]::new);
    } catch (NumberFormatException e) {
      return null;
    }
  }
}
