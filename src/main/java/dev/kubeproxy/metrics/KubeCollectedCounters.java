package dev.kubeproxy.metrics;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * A labelled counter family whose series are read from elsewhere at each scrape (upstream's custom
 * collectors sending one const metric per kernel counter, e.g. the nftables named counters). Nothing
 * is written when the read yields no series.
 */
public final class KubeCollectedCounters extends KubeMetric<Object> {
  private final Supplier<Map<List<String>, Double>> read;

  /** @param read called once per scrape: label values (declared order) to the counter's value */
  public KubeCollectedCounters(String name, String help, Stability stability,
      Supplier<Map<List<String>, Double>> read, String... labelNames) {
    super(name, help, stability, "counter", List.of(labelNames), Object::new);
    this.read = read;
  }

  @Override
  public void writeTo(StringBuilder out) {
    Map<List<String>, Double> values = read.get();
    if (values.isEmpty()) {
      return;
    }
    List<String> names = labelNames();
    List<Integer> order = new ArrayList<>();
    for (int i = 0; i < names.size(); i++) {
      order.add(i);
    }
    order.sort(Comparator.comparing(names::get));
    List<Map.Entry<List<String>, Double>> sorted = new ArrayList<>(values.entrySet());
    sorted.sort(Comparator.comparing(e -> {
      StringBuilder key = new StringBuilder();
      for (int i : order) {
        key.append(e.getKey().get(i)).append('\u0000');
      }
      return key.toString();
    }));
    writeHeader(out);
    for (Map.Entry<List<String>, Double> e : sorted) {
      sample(out, name(), e.getKey(), null, null, e.getValue());
    }
  }

  /** Not reached: {@link #writeTo} reads and writes the series itself. */
  @Override
  void writeSamples(StringBuilder out, List<String> labelValues, Object cell) {
    sample(out, name(), labelValues, null, null, 0);
  }
}
