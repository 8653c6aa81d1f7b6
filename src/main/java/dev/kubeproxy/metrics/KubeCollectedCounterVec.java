package dev.kubeproxy.metrics;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;

/**
 * A labelled counter whose samples are read from elsewhere at each scrape (upstream's custom
 * collectors with const metrics, e.g. the nftables named counters). Several sources may add samples
 * (one per IP family); a source that cannot read now yields nothing, as upstream's collector skips
 * what it fails to get.
 */
public final class KubeCollectedCounterVec extends KubeMetric<Object> {
  private final List<Supplier<Map<List<String>, Double>>> sources = new CopyOnWriteArrayList<>();

  public KubeCollectedCounterVec(String name, String help, Stability stability, List<String> labelNames) {
    super(name, help, stability, "counter", labelNames, Object::new);
  }

  /** @param samples called once per scrape: label values (in label-name order) to value; empty when unreadable */
  public void addSource(Supplier<Map<List<String>, Double>> samples) {
    sources.add(samples);
  }

  @Override
  public void writeTo(StringBuilder out) {
    boolean header = false;
    for (Supplier<Map<List<String>, Double>> source : sources) {
      for (Map.Entry<List<String>, Double> s : source.get().entrySet()) {
        if (!header) {
          writeHeader(out);
          header = true;
        }
        sample(out, name(), s.getKey(), null, null, s.getValue());
      }
    }
  }

  /** Not reached: {@link #writeTo} reads and writes the samples itself. */
  @Override
  void writeSamples(StringBuilder out, List<String> labelValues, Object cell) {
    sample(out, name(), labelValues, null, null, 0);
  }
}
