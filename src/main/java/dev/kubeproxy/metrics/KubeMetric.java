package dev.kubeproxy.metrics;

import dev.kubeproxy.gotext.GoFormat;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * One metric family in upstream's (component-base) style: exact name, "[STABILITY] help" text,
 * a fixed label set, and series created on first use. It writes itself in the Prometheus text
 * format 0.0.4 the way Go's client does (labels sorted by name, series sorted by label values,
 * Go float formatting).
 *
 * <p>Why not Micrometer or the Prometheus Java client: both refuse or rename names that upstream
 * uses (gauges ending in {@code _total}, counters whose {@code _total} is re-derived), and
 * kube-proxy's names are a compatibility contract with dashboards and alerts.
 *
 * @param <C> the per-series cell type (thread-safe)
 */
public abstract class KubeMetric<C> {
  /** Upstream's metric stability levels, printed in brackets at the start of the help text. */
  public enum Stability { ALPHA, BETA, STABLE }

  private final String name;
  private final String help;
  private final Stability stability;
  private final String type;
  private final List<String> labelNames;
  private final int[] sortedLabelOrder;
  private final Map<List<String>, C> series = new ConcurrentHashMap<>();
  private final Supplier<C> newCell;

  KubeMetric(String name, String help, Stability stability, String type, List<String> labelNames, Supplier<C> newCell) {
    this.name = name;
    this.help = help;
    this.stability = stability;
    this.type = type;
    this.labelNames = List.copyOf(labelNames);
    this.newCell = newCell;
    Integer[] order = new Integer[labelNames.size()];
    for (int i = 0; i < order.length; i++) {
      order[i] = i;
    }
    Arrays.sort(order, Comparator.comparing(labelNames::get));
    this.sortedLabelOrder = Arrays.stream(order).mapToInt(Integer::intValue).toArray();
    if (labelNames.isEmpty()) {
      series.put(List.of(), newCell.get()); // a metric without labels is always exported
    }
  }

  public String name() {
    return name;
  }

  public String type() {
    return type;
  }

  public List<String> labelNames() {
    return labelNames;
  }

  /** The cell for these label values (declared label order), created on first use. */
  C cell(String... labelValues) {
    if (labelValues.length != labelNames.size()) {
      throw new IllegalArgumentException(name + " has labels " + labelNames + " but got " + labelValues.length + " values");
    }
    return series.computeIfAbsent(List.of(labelValues), k -> newCell.get());
  }

  /** Forgets every series (labelled families then have none until the next observation). */
  public void reset() {
    series.clear();
    if (labelNames.isEmpty()) {
      series.put(List.of(), newCell.get());
    }
  }

  /** Appends HELP, TYPE and all samples; nothing at all when the family has no series yet. */
  public void writeTo(StringBuilder out) {
    if (series.isEmpty()) {
      return;
    }
    writeHeader(out);
    List<Map.Entry<List<String>, String>> sorted = new ArrayList<>();
    for (Map.Entry<List<String>, C> e : series.entrySet()) {
      sorted.add(Map.entry(e.getKey(), sortKey(e.getKey())));
    }
    sorted.sort(Map.Entry.comparingByValue());
    for (Map.Entry<List<String>, String> e : sorted) {
      C cell = series.get(e.getKey());
      if (cell != null) {
        writeSamples(out, e.getKey(), cell);
      }
    }
  }

  /** The HELP and TYPE lines. */
  void writeHeader(StringBuilder out) {
    out.append("# HELP ").append(name).append(" [").append(stability).append("] ").append(escapeHelp(help)).append('\n');
    out.append("# TYPE ").append(name).append(' ').append(type).append('\n');
  }

  abstract void writeSamples(StringBuilder out, List<String> labelValues, C cell);

  /** One sample line: name, labels (sorted by name, plus an optional trailing extra label), value. */
  void sample(StringBuilder out, String sampleName, List<String> labelValues, String extraLabel, String extraValue, double value) {
    out.append(sampleName);
    boolean any = !labelValues.isEmpty() || extraLabel != null;
    if (any) {
      out.append('{');
      boolean first = true;
      for (int i : sortedLabelOrder) {
        if (!first) {
          out.append(',');
        }
        first = false;
        out.append(labelNames.get(i)).append("=\"").append(escapeLabel(labelValues.get(i))).append('"');
      }
      if (extraLabel != null) {
        if (!first) {
          out.append(',');
        }
        out.append(extraLabel).append("=\"").append(extraValue).append('"');
      }
      out.append('}');
    }
    out.append(' ').append(GoFormat.floatG(value)).append('\n');
  }

  private String sortKey(List<String> labelValues) {
    StringBuilder key = new StringBuilder();
    for (int i : sortedLabelOrder) {
      key.append(labelValues.get(i)).append('\u0000');
    }
    return key.toString();
  }

  private static String escapeHelp(String s) {
    return s.replace("\\", "\\\\").replace("\n", "\\n");
  }

  private static String escapeLabel(String s) {
    return s.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n");
  }
}
