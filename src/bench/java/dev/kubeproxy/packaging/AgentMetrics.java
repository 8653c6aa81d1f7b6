package dev.kubeproxy.packaging;

import java.io.IOException;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** One scrape of the agent's /metrics inside its namespace, and quantiles of a histogram between two scrapes. */
final class AgentMetrics {
  private static final Pattern SAMPLE = Pattern.compile("(?m)^([a-z_]+)(\\{[^}]*\\})? ([-+0-9.eE]+|NaN|\\+Inf)$");

  private final Map<String, Double> samples;

  private AgentMetrics(Map<String, Double> samples) {
    this.samples = samples;
  }

  /** Every sample by name with its labels, plus per-name sums (timestamps: the latest). */
  static AgentMetrics scrape(Netns ns) throws IOException, InterruptedException {
    String body = ns.exec("bash", "-c", "exec 3<>/dev/tcp/127.0.0.1/10249 && printf 'GET /metrics HTTP/1.0\\r\\n"
        + "Host: localhost\\r\\n\\r\\n' >&3 && cat <&3").stdout();
    Map<String, Double> out = new TreeMap<>();
    Matcher matcher = SAMPLE.matcher(body);
    while (matcher.find()) {
      String name = matcher.group(1);
      double value = matcher.group(3).equals("+Inf") ? Double.POSITIVE_INFINITY : Double.parseDouble(matcher.group(3));
      if (matcher.group(2) != null) {
        out.put(name + matcher.group(2), value);
      }
      out.merge(name, value, name.endsWith("_timestamp_seconds") ? Math::max : Double::sum);
    }
    return new AgentMetrics(out);
  }

  double get(String sample) {
    return samples.getOrDefault(sample, 0.0);
  }

  /**
   * p50 / p99 / max of a histogram's observations between two scrapes. Estimated as Prometheus'
   * histogram_quantile does: the bucket holding the rank, linearly interpolated within it, except
   * in the first bucket, where only its bound is known (network programming's first bucket is a
   * quarter second: interpolating from zero would invent figures); the max is the upper bound of
   * the highest bucket that gained an observation. Returns "no observations" when none.
   */
  static String quantiles(AgentMetrics before, AgentMetrics after, String name) {
    TreeMap<Double, Double> cumulative = new TreeMap<>();
    Pattern le = Pattern.compile(Pattern.quote(name) + "_bucket\\{.*le=\"([^\"]+)\".*\\}");
    for (Map.Entry<String, Double> e : after.samples.entrySet()) {
      Matcher m = le.matcher(e.getKey());
      if (m.matches()) {
        double bound = m.group(1).equals("+Inf") ? Double.POSITIVE_INFINITY : Double.parseDouble(m.group(1));
        cumulative.merge(bound, e.getValue() - before.get(e.getKey()), Double::sum);
      }
    }
    double count = after.get(name + "_count") - before.get(name + "_count");
    if (count <= 0) {
      return "no observations";
    }
    double sum = after.get(name + "_sum") - before.get(name + "_sum");
    return String.format(Locale.ROOT, "n=%.0f mean %.3f p50 %s p99 %s max ≤ %s", count, sum / count,
        interpolated(cumulative, count * 0.5), interpolated(cumulative, count * 0.99), highest(cumulative, count));
  }

  private static String interpolated(TreeMap<Double, Double> cumulative, double rank) {
    double lower = 0;
    double below = 0;
    for (Map.Entry<Double, Double> e : cumulative.entrySet()) {
      if (e.getValue() >= rank - 1e-9) {
        if (e.getKey().isInfinite()) {
          return "> " + lower;
        }
        if (below == 0 && lower == 0) {
          return "≤ " + e.getKey();
        }
        double inBucket = e.getValue() - below;
        double at = inBucket <= 0 ? e.getKey() : lower + (e.getKey() - lower) * (rank - below) / inBucket;
        return String.format(Locale.ROOT, "%.3f", at);
      }
      lower = e.getKey();
      below = e.getValue();
    }
    return "?";
  }

  private static String highest(TreeMap<Double, Double> cumulative, double count) {
    for (Map.Entry<Double, Double> e : cumulative.entrySet()) {
      if (e.getValue() >= count - 1e-9) {
        return e.getKey().isInfinite() ? "+Inf" : String.valueOf(e.getKey());
      }
    }
    return "?";
  }
}
