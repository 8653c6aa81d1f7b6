package dev.kubeproxy.metrics;

import java.util.List;
import java.util.concurrent.atomic.DoubleAdder;

/** A monotonically increasing counter family (Prometheus type "counter"). */
public final class KubeCounter extends KubeMetric<DoubleAdder> {
  public KubeCounter(String name, String help, Stability stability, String... labelNames) {
    super(name, help, stability, "counter", List.of(labelNames), DoubleAdder::new);
  }

  public void inc(String... labelValues) {
    cell(labelValues).add(1);
  }

  public void add(double amount, String... labelValues) {
    if (amount < 0) {
      throw new IllegalArgumentException(name() + ": counters cannot decrease");
    }
    cell(labelValues).add(amount);
  }

  public double value(String... labelValues) {
    return cell(labelValues).sum();
  }

  @Override
  void writeSamples(StringBuilder out, List<String> labelValues, DoubleAdder cell) {
    sample(out, name(), labelValues, null, null, cell.sum());
  }
}
