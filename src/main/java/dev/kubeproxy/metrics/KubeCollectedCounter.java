package dev.kubeproxy.metrics;

import java.util.List;
import java.util.OptionalDouble;
import java.util.function.Supplier;

/**
 * A counter whose value is read from elsewhere at each scrape (upstream's custom collectors with
 * a const metric, e.g. the nfacct packet counts). Nothing is written when the read yields nothing,
 * as upstream's collector sends no metric when its Get fails.
 */
public final class KubeCollectedCounter extends KubeMetric<Object> {
  private final Supplier<OptionalDouble> read;

  /** @param read called once per scrape; empty when the value cannot be read now */
  public KubeCollectedCounter(String name, String help, Stability stability, Supplier<OptionalDouble> read) {
    super(name, help, stability, "counter", List.of(), Object::new);
    this.read = read;
  }

  @Override
  public void writeTo(StringBuilder out) {
    OptionalDouble value = read.get();
    if (value.isEmpty()) {
      return;
    }
    writeHeader(out);
    sample(out, name(), List.of(), null, null, value.getAsDouble());
  }

  /** Not reached: {@link #writeTo} reads and writes the one sample itself. */
  @Override
  void writeSamples(StringBuilder out, List<String> labelValues, Object cell) {
    sample(out, name(), labelValues, null, null, 0);
  }
}
