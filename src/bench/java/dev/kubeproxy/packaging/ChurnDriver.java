package dev.kubeproxy.packaging;

import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The churn, through the API server as a cluster makes it: a rolling update replacing the
 * endpoints of {@link BenchCluster#CHURNED} Services one after the other, {@code rate} slice
 * updates a second, each carrying {@code endpoints.kubernetes.io/last-change-trigger-time}, and a
 * Service created and the previous extra one deleted every second. Prints the agent's
 * network-programming histogram over the churn, the time until each change is in the kernel seen
 * from outside, and in iptables mode each sync's time beside the restore tool's own.
 */
final class ChurnDriver {
  private ChurnDriver() {}

  static void run(String mode, BenchCluster cluster, Netns ns, Process agent, BenchApiServer.Handle api,
      int seconds, int rate, RestoreTimes restores, Path agentLog, Map<String, String> row) throws Exception {
    AgentMetrics before = AgentMetrics.scrape(ns);
    long startMicros = KernelWatch.nowMicros();
    int changes = 0;
    int created = 0;
    try (WatchProbe probe = new WatchProbe(ns, api.port);
         KernelWatch watch = mode.equals("nftables") ? new KernelWatch.Nftables(ns) : new KernelWatch.Iptables(ns, restores)) {
      Thread.sleep(500); // the iptables watch has made its first round before the first change
      long start = System.nanoTime();
      long period = TimeUnit.SECONDS.toNanos(1) / rate;
      for (long next = start; next < start + TimeUnit.SECONDS.toNanos(seconds); next += period) {
        long wait = next - System.nanoTime();
        if (wait > 0) {
          TimeUnit.NANOSECONDS.sleep(wait);
        }
        int generation = ++changes;
        int service = generation % Math.min(BenchCluster.CHURNED, cluster.services);
        long written = KernelWatch.nowMicros();
        api.send("slice " + service + " " + generation + " " + Instant.now());
        watch.expect(new KernelWatch.Expected("endpoints", service, cluster.endpointIp(service, 0, generation), written));
        if (changes % rate == 0) {
          int extra = cluster.services + created++;
          written = KernelWatch.nowMicros();
          api.send("create " + extra);
          watch.expect(new KernelWatch.Expected("create", extra, BenchCluster.clusterIp(extra), written));
          if (created > 1) {
            written = KernelWatch.nowMicros();
            api.send("delete " + (extra - 1));
            watch.expect(new KernelWatch.Expected("delete", extra - 1, BenchCluster.clusterIp(extra - 1), written));
          }
        }
        if (!agent.isAlive()) {
          throw new IllegalStateException("the agent exited " + agent.exitValue() + " during the churn");
        }
      }
      awaitQuiet(ns, 90);
      AgentMetrics after = AgentMetrics.scrape(ns);
      System.out.printf("  churn: %d endpoint replacements, %d Services created, %d deleted in %d s (load %s)%n",
          changes, created, Math.max(0, created - 1), seconds, ScaleBenchmark.load());
      String npd = AgentMetrics.quantiles(before, after, "kubeproxy_network_programming_duration_seconds");
      String syncs = AgentMetrics.quantiles(before, after, "kubeproxy_sync_proxy_rules_duration_seconds");
      System.out.println("  network programming, the agent's histogram (s): " + npd);
      System.out.println("  sync duration during the churn (s): " + syncs);
      System.out.println("  slice change → its watch event at a second client (curl in the namespace): " + probe.summary());
      row.put("churn: slice change → watch event at curl (ms)", probe.summary());
      System.out.println("  visible in the kernel, from outside (" + watch.method() + "):");
      watch.summary().forEach(l -> System.out.println("    " + l));
      row.put("churn: network programming (agent, s)", npd);
      row.put("churn: syncs (agent, s)", syncs);
      row.put("churn: visible in the kernel (ms)", String.join("; ", watch.summary()));
    }
    if (restores != null) {
      partialSyncs(restores.syncsSince(agentLog, startMicros), row);
    }
  }

  /**
   * Waits until the last changes have landed: the agent has finished no sync for two seconds plus
   * twice its mean sync (a long iptables sync is still running when two seconds pass without a
   * new one), at most {@code limit} s.
   */
  private static void awaitQuiet(Netns ns, int limit) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(limit);
    AgentMetrics metrics = AgentMetrics.scrape(ns);
    double count = metrics.get(SYNC_COUNT);
    long quietSince = System.nanoTime();
    while (System.nanoTime() < deadline && System.nanoTime() - quietSince < quietNanos(metrics)) {
      Thread.sleep(250);
      metrics = AgentMetrics.scrape(ns);
      if (metrics.get(SYNC_COUNT) != count) {
        count = metrics.get(SYNC_COUNT);
        quietSince = System.nanoTime();
      }
    }
  }

  private static final String SYNC_COUNT = "kubeproxy_sync_proxy_rules_duration_seconds_count";

  private static long quietNanos(AgentMetrics m) {
    double count = m.get(SYNC_COUNT);
    double mean = count > 0 ? m.get("kubeproxy_sync_proxy_rules_duration_seconds_sum") / count : 0;
    return TimeUnit.MILLISECONDS.toNanos(2000 + Math.round(2000 * mean));
  }

  private static void partialSyncs(List<RestoreTimes.Sync> syncs, Map<String, String> row) {
    System.out.println("  iptables syncs during the churn, the agent's time beside iptables-legacy-restore's on the same input:");
    List<Double> ratios = new ArrayList<>();
    for (RestoreTimes.Sync s : syncs) {
      System.out.println("    " + RestoreTimes.describe(s));
      if (s.kind().equals("partial") && s.toolSeconds() > 0) {
        ratios.add(s.agentSeconds() / s.toolSeconds());
      }
    }
    if (ratios.isEmpty()) {
      row.put("churn: partial sync / restore tool", "no partial sync");
      return;
    }
    ratios.sort(Comparator.naturalOrder());
    long within = ratios.stream().filter(r -> r <= 1.2).count();
    String summary = String.format(Locale.ROOT, "n=%d median %.2f max %.2f (%d of %d ≤ 1.2)", ratios.size(),
        ratios.get(ratios.size() / 2), ratios.get(ratios.size() - 1), within, ratios.size());
    System.out.println("    partial syncs, agent / tool: " + summary);
    row.put("churn: partial sync / restore tool", summary);
  }
}
