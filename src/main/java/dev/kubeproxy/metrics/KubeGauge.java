package dev.kubeproxy.metrics;

import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/** A gauge family (Prometheus type "gauge"); the value is a double kept as raw bits. */
public final class KubeGauge extends KubeMetric<AtomicLong> {
  public KubeGauge(String name, String help, Stability stability, String... labelNames) {
    super(name, help, stability, "gauge", List.of(labelNames), () -> new AtomicLong(Double.doubleToRawLongBits(0)));
  }

  public void set(double value, String... labelValues) {
    cell(labelValues).set(Double.doubleToRawLongBits(value));
  }

  public void add(double delta, String... labelValues) {
    cell(labelValues).accumulateAndGet(0, (bits, ignored) -> Double.doubleToRawLongBits(Double.longBitsToDouble(bits) + delta));
  }

  public double value(String... labelValues) {
    return Double.longBitsToDouble(cell(labelValues).get());
  }

  @Override
  void writeSamples(StringBuilder out, List<String> labelValues, AtomicLong cell) {
    sample(out, name(), labelValues, null, null, Double.longBitsToDouble(cell.get()));
  }
}
