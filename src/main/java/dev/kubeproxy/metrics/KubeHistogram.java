package dev.kubeproxy.metrics;

import dev.kubeproxy.gotext.GoFormat;

import java.util.Arrays;
import java.util.List;

/**
 * A histogram family with fixed bucket upper bounds (Prometheus type "histogram"), written as
 * cumulative {@code _bucket{le=...}} lines, then {@code _sum} and {@code _count}, as Go does.
 */
public final class KubeHistogram extends KubeMetric<KubeHistogram.Cell> {
  private final double[] bounds;

  public KubeHistogram(String name, String help, Stability stability, double[] bounds, String... labelNames) {
    this(name, help, stability, checked(bounds), List.of(labelNames));
  }

  private KubeHistogram(String name, String help, Stability stability, double[] bounds, List<String> labelNames) {
    super(name, help, stability, "histogram", labelNames, () -> new Cell(bounds.length));
    this.bounds = bounds;
  }

  /** Upstream's ExponentialBuckets(start, factor, count). */
  public static double[] exponentialBuckets(double start, double factor, int count) {
    double[] b = new double[count];
    b[0] = start;
    for (int i = 1; i < count; i++) {
      b[i] = b[i - 1] * factor;
    }
    return b;
  }

  public double[] bounds() {
    return bounds.clone();
  }

  public void observe(double value, String... labelValues) {
    Cell cell = cell(labelValues);
    int i = 0;
    while (i < bounds.length && value > bounds[i]) {
      i++;
    }
    synchronized (cell) {
      cell.counts[i]++; // index bounds.length is the +Inf overflow slot
      cell.sum += value;
      cell.count++;
    }
  }

  /** The number of observations so far. */
  public long count(String... labelValues) {
    Cell cell = cell(labelValues);
    synchronized (cell) {
      return cell.count;
    }
  }

  @Override
  void writeSamples(StringBuilder out, List<String> labelValues, Cell cell) {
    long[] counts;
    double sum;
    long count;
    synchronized (cell) {
      counts = cell.counts.clone();
      sum = cell.sum;
      count = cell.count;
    }
    long cumulative = 0;
    for (int i = 0; i < bounds.length; i++) {
      cumulative += counts[i];
      sample(out, name() + "_bucket", labelValues, "le", GoFormat.floatG(bounds[i]), cumulative);
    }
    sample(out, name() + "_bucket", labelValues, "le", "+Inf", count);
    sample(out, name() + "_sum", labelValues, null, null, sum);
    sample(out, name() + "_count", labelValues, null, null, count);
  }

  private static double[] checked(double[] bounds) {
    double[] copy = bounds.clone();
    for (int i = 1; i < copy.length; i++) {
      if (!(copy[i] > copy[i - 1])) {
        throw new IllegalArgumentException("histogram buckets must increase: " + Arrays.toString(copy));
      }
    }
    return copy;
  }

  static final class Cell {
    final long[] counts;
    double sum;
    long count;

    Cell(int bucketCount) {
      counts = new long[bucketCount + 1];
    }
  }
}
