package dev.kubeproxy.packaging;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A second watch client beside the agent: curl in the namespace watching the EndpointSlices from
 * the current resourceVersion, each changed slice timed from its last-change-trigger-time to its
 * arrival. It tells the API server's share of the latency (write → watch event on the wire) from
 * the agent's.
 */
final class WatchProbe implements AutoCloseable {
  private static final Pattern TRIGGER = Pattern.compile("last-change-trigger-time\":\"([^\"]+)\"");
  private static final Pattern RV = Pattern.compile("\"resourceVersion\":\"(\\d+)\"");
  private final Process curl;
  private final Thread reader;
  private final List<Double> millis = Collections.synchronizedList(new ArrayList<>());

  WatchProbe(Netns ns, int port) throws IOException, InterruptedException {
    String base = "http://127.0.0.1:" + port + "/apis/discovery.k8s.io/v1/namespaces/bench/endpointslices";
    Matcher rv = RV.matcher(ns.exec("curl", "-s", base + "?limit=1").stdout());
    if (!rv.find()) {
      throw new IllegalStateException("the benchmark's API server did not answer a list of EndpointSlices");
    }
    curl = new ProcessBuilder("ip", "netns", "exec", ns.name, "curl", "-sN", base + "?watch=true&resourceVersion="
        + rv.group(1)).start();
    reader = new Thread(() -> {
      try (BufferedReader in = new BufferedReader(new InputStreamReader(curl.getInputStream(), StandardCharsets.UTF_8))) {
        for (String line; (line = in.readLine()) != null; ) {
          Instant now = Instant.now();
          Matcher m = TRIGGER.matcher(line);
          if (m.find()) {
            millis.add((now.toEpochMilli() - Instant.parse(m.group(1)).toEpochMilli()) * 1.0);
          }
        }
      } catch (IOException e) {
        // the probe was stopped
      }
    }, "watch-probe");
    reader.setDaemon(true);
    reader.start();
  }

  String summary() {
    List<Double> v = new ArrayList<>(millis);
    if (v.isEmpty()) {
      return "no event";
    }
    Collections.sort(v);
    return String.format(Locale.ROOT, "n=%d p50 %.0f p99 %.0f max %.0f ms", v.size(), v.get(v.size() / 2),
        v.get(Math.min(v.size() - 1, (int) Math.ceil(v.size() * 0.99) - 1)), v.get(v.size() - 1));
  }

  @Override
  public void close() throws InterruptedException {
    curl.destroy();
    reader.join(5000);
  }
}
