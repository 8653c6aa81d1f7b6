package dev.kubeproxy.packaging;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The large-cluster benchmark: the packaged agent started as the image starts it ({@code
 * bin/kube-proxy}, the container's memory limit as {@code -XX:MaxRAM}) in a scratch network
 * namespace, watching a generated cluster of N Services × E endpoints on the project's test API
 * server ({@link BenchApiServer}, started in the same namespace), per mode. Prints start → first
 * sync applied, the first sync's own duration (the agent's histogram) beside the kernel's share
 * (system CPU of the agent and of its child processes) and the mode's tool alone loading what the
 * agent programmed into another scratch namespace, the peak RSS, RSS and live heap after the
 * first sync and after the churn ({@link ChurnDriver}), and at the end all of it as one table.
 *
 * <pre>
 * mvn -B -q package -DskipTests        # the agent's jar, and the benchmark in target/test-classes
 * java -cp target/test-classes:target/kube-proxy.jar dev.kubeproxy.packaging.ScaleBenchmark \
 *     [--modes nftables,iptables] [--memory-limit 512m (default: the sizing rule's, per shape)] [--runs 1] \
 *     [--churn-seconds 60] [--rate 20] \
 *     [--jvm-opts '-XX:NativeMemoryTracking=summary'] [--breakdown true] \
 *     [--agent-flags '--iptables-min-sync-period=0s'] 5006x50 44125x1 100000x1
 * </pre>
 *
 * <p>{@code --runs N} starts the agent N times per shape and mode, each in fresh namespaces, the
 * churn in the last; the table then gives each figure's median and every run's value ({@link
 * RunFigures}): the machine's speed moves a single start more than most changes do.
 *
 * <p>{@code --jvm-opts} are appended to the agent's JAVA_OPTS, {@code --agent-flags} (split at
 * spaces) to its command line; {@code --breakdown true} prints where the RSS goes after the first
 * sync and after the churn ({@link MemoryBreakdown}).
 */
public final class ScaleBenchmark {
  private static final String LAST_SYNC = "kubeproxy_sync_proxy_rules_last_timestamp_seconds";
  private final List<String> modes;
  private final String memoryLimit;
  private final int churnSeconds;
  private final int runs;
  private final int rate;
  private final Path jar;
  private final Path launcher;
  private final String jvmOpts;
  private final List<String> agentFlags;
  private final boolean breakdown;
  private final Map<String, Map<String, String>> rows = new LinkedHashMap<>();

  private ScaleBenchmark(Map<String, String> opts) {
    modes = List.of(opts.getOrDefault("modes", "nftables,iptables").split(","));
    for (String mode : modes) {
      if (!mode.equals("nftables") && !mode.equals("iptables")) {
        throw new IllegalArgumentException("--modes takes nftables and/or iptables, got " + mode);
      }
    }
    memoryLimit = opts.get("memory-limit"); // null: each shape under the sizing rule's limit
    churnSeconds = Integer.parseInt(opts.getOrDefault("churn-seconds", "60"));
    runs = Integer.parseInt(opts.getOrDefault("runs", "1"));
    if (runs < 1) {
      throw new IllegalArgumentException("--runs is starts per shape and mode, at least 1; got " + runs);
    }
    rate = Integer.parseInt(opts.getOrDefault("rate", "20"));
    if (rate <= 0) {
      throw new IllegalArgumentException("--rate is changes a second, at least 1; got " + rate);
    }
    jar = Path.of(opts.getOrDefault("jar", "target/kube-proxy.jar")).toAbsolutePath();
    launcher = Path.of(opts.getOrDefault("launcher", "bin/kube-proxy")).toAbsolutePath();
    jvmOpts = opts.getOrDefault("jvm-opts", "");
    String flags = opts.getOrDefault("agent-flags", "").trim();
    agentFlags = flags.isEmpty() ? List.of() : List.of(flags.split("\\s+"));
    breakdown = Boolean.parseBoolean(opts.getOrDefault("breakdown", "false"));
  }

  public static void main(String[] args) throws Exception {
    Map<String, String> opts = new java.util.HashMap<>();
    List<int[]> shapes = new ArrayList<>();
    for (int i = 0; i < args.length; i++) {
      if (args[i].startsWith("--")) {
        if (i + 1 >= args.length) {
          throw new IllegalArgumentException(args[i] + " needs a value");
        }
        opts.put(args[i].substring(2), args[++i]);
      } else {
        String[] nxe = args[i].split("x");
        if (nxe.length != 2) {
          throw new IllegalArgumentException("a shape is SERVICESxENDPOINTS, e.g. 5006x50; got " + args[i]);
        }
        shapes.add(new int[] {Integer.parseInt(nxe[0]), Integer.parseInt(nxe[1])});
      }
    }
    if (shapes.isEmpty()) {
      shapes = List.of(new int[] {5006, 50}, new int[] {44125, 1}, new int[] {100000, 1});
    }
    if (!"root".equals(System.getProperty("user.name"))) {
      throw new IllegalStateException("the scale benchmark needs root (network namespaces)");
    }
    ScaleBenchmark bench = new ScaleBenchmark(opts);
    System.out.printf("scale benchmark: launcher %s, jar %s, memory limit %s, %d start(s) per shape and mode, churn %d s"
        + " (in the last) at %d changes/s, agent flags %s%n",
        bench.launcher, bench.jar, bench.memoryLimit == null ? "per shape, by the sizing rule" : bench.memoryLimit,
        bench.runs, bench.churnSeconds, bench.rate, bench.agentFlags.isEmpty() ? "(none beyond the benchmark's)" : String.join(" ", bench.agentFlags));
    for (int[] shape : shapes) {
      for (String mode : bench.modes) {
        List<Map<String, String>> starts = new ArrayList<>();
        for (int r = 1; r <= bench.runs; r++) {
          Map<String, String> row = new LinkedHashMap<>();
          starts.add(row);
          try {
            bench.run(mode, new BenchCluster(shape[0], shape[1]), row, r == bench.runs ? bench.churnSeconds : 0);
          } catch (IllegalStateException e) {
            // an agent that runs out of memory at one shape is a figure of that shape, not the end of the run
            System.out.println("  FAILED: " + e.getMessage());
            row.put("failed", e.getMessage().lines().findFirst().orElse(""));
          }
        }
        bench.rows.put(String.format(Locale.ROOT, "%,d × %d %s", shape[0], shape[1], mode), RunFigures.combine(starts));
      }
    }
    bench.printTable();
  }

  /** One start of the agent at a shape, its figures put in row, then churn seconds of churn (0: none). */
  private void run(String mode, BenchCluster cluster, Map<String, String> row, int churn) throws Exception {
    System.out.printf("%n%s, %,d Services × %d endpoints (load %s)%n", mode, cluster.services, cluster.endpoints,
        load());
    Path work = Files.createTempDirectory("kp-scale-");
    try (Netns ns = Netns.create(); Netns replay = Netns.create();
         BenchApiServer.Handle api = new BenchApiServer.Handle(ns, cluster, work.resolve("api-server.log"))) {
      RestoreTimes restores = mode.equals("iptables") ? RestoreTimes.install(work) : null;
      Path log = work.resolve("agent.log");
      Path lock = work.resolve("xtables.lock");
      Files.writeString(lock, "");
      List<String> argv = new ArrayList<>(List.of("ip", "netns", "exec", ns.name));
      argv.addAll(ownXtablesLock(lock, launcher.toString(), "--kubeconfig", api.kubeconfig(work).toString(),
          "--hostname-override", BenchCluster.NODE, "--proxy-mode", mode, "--conntrack-max-per-core=0", "--v=2"));
      argv.addAll(agentFlags);
      ProcessBuilder pb = new ProcessBuilder(argv).redirectErrorStream(true).redirectOutput(log.toFile());
      pb.environment().put("KUBE_PROXY_JAR", jar.toString());
      String limit = memoryLimit != null ? memoryLimit
          : SizingRule.CURRENT.limitMiB(cluster.services, cluster.endpoints) + "m";
      row.put("memory limit", limit);
      pb.environment().put("JAVA_OPTS", ("-XX:MaxRAM=" + limit + " " + jvmOpts).trim());
      if (restores != null) {
        pb.environment().put("PATH", restores.path());
      }
      row.put("load at the start", load());
      long[] apiCpuBefore = cpuTicks(api.pid());
      long startMillis = System.currentTimeMillis();
      Process agent = pb.start();
      try {
        AgentMetrics m = awaitSyncs(ns, agent, log);
        double synced = m.get(LAST_SYNC) - startMillis / 1000.0;
        put(row, "start → first sync applied (s)", synced);
        put(row, "first sync itself, IPv4 (s)", m.get("kubeproxy_sync_proxy_rules_duration_seconds_sum{ip_family=\"IPv4\"}"));
        long[] cpu = cpuTicks(agent.pid());
        row.put("kernel: system CPU agent / its children (s)", String.format(Locale.ROOT, "%.2f / %.2f",
            cpu[1] / 100.0, cpu[3] / 100.0));
        row.put("CPU agent / its children, user+system (s)", String.format(Locale.ROOT, "%.2f / %.2f",
            (cpu[0] + cpu[1]) / 100.0, (cpu[2] + cpu[3]) / 100.0));
        // the API server shares the node's cores here, as a remote one never does: its part is shown
        long[] apiCpu = cpuTicks(api.pid());
        put(row, "CPU of the benchmark's API server meanwhile (s)",
            (apiCpu[0] + apiCpu[1] - apiCpuBefore[0] - apiCpuBefore[1]) / 100.0);
        System.out.println("  " + row);
        toolAlone(mode, ns, replay, lock, row);
        row.put("peak RSS to the first sync (MB)", peakRss(agent.pid()));
        row.put("RSS / live heap after the first sync (MB)", memory(agent.pid(), breakdown));
        if (breakdown) {
          MemoryBreakdown.print(agent.pid());
        }
        System.out.println("  RSS / live heap after the first sync (MB): " + row.get("RSS / live heap after the first sync (MB)"));
        if (churn > 0) {
          ChurnDriver.run(mode, cluster, ns, agent, api, churn, rate, restores, log, row);
          row.put("peak RSS to the end of the churn (MB)", peakRss(agent.pid()));
          row.put("RSS / live heap after the churn (MB)", memory(agent.pid(), breakdown));
          if (breakdown) {
            MemoryBreakdown.print(agent.pid());
          }
          System.out.println("  RSS / live heap after the churn (MB): " + row.get("RSS / live heap after the churn (MB)"));
        }
        row.put("load at the end", load());
      } finally {
        agent.destroy();
        if (!agent.waitFor(20, TimeUnit.SECONDS)) {
          agent.destroyForcibly().waitFor();
        }
        System.out.println("  agent log: " + log + "; load " + load());
      }
    }
  }

  private static void put(Map<String, String> row, String label, double seconds) {
    row.put(label, String.format(Locale.ROOT, "%.2f", seconds));
  }

  private static AgentMetrics awaitSyncs(Netns ns, Process agent, Path log) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(20);
    while (System.nanoTime() < deadline) {
      if (!agent.isAlive()) {
        List<String> lines = Files.readAllLines(log);
        throw new IllegalStateException("the agent exited " + agent.exitValue() + ":\n"
            + String.join("\n", lines.subList(Math.max(0, lines.size() - 10), lines.size())));
      }
      try {
        AgentMetrics m = AgentMetrics.scrape(ns);
        if (m.get(LAST_SYNC + "{ip_family=\"IPv4\"}") > 0 && m.get(LAST_SYNC + "{ip_family=\"IPv6\"}") > 0) {
          return m; // both families have applied their first sync
        }
      } catch (IOException e) {
        // not listening yet
      }
      Thread.sleep(250);
    }
    throw new IllegalStateException("no first sync within 20 minutes; see " + log);
  }

  /** utime, stime, cutime, cstime of a process, in clock ticks (1/100 s). */
  private static long[] cpuTicks(long pid) throws IOException {
    String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
    String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    return new long[] {Long.parseLong(f[11]), Long.parseLong(f[12]), Long.parseLong(f[13]), Long.parseLong(f[14])};
  }

  /** What the agent programmed, dumped and loaded by the mode's tool alone into a fresh namespace. */
  private static void toolAlone(String mode, Netns from, Netns to, Path lock, Map<String, String> row)
      throws Exception {
    String label = mode.equals("iptables") ? "iptables-legacy-restore alone, same rules (s)" : "nft -f alone, same table (s)";
    try {
      double t = mode.equals("iptables")
          ? to.timedWithInput(from.exec("iptables-legacy-save").stdout().replaceAll(" -m nfacct --nfacct-name +\\S+", ""),
              ownXtablesLock(lock, "iptables-legacy-restore").toArray(String[]::new))
          : to.timedWithInput(from.exec("nft", "list", "table", "ip", "kube-proxy").stdout(), "nft", "-f", "-");
      put(row, label, t);
    } catch (IllegalStateException e) {
      row.put(label, "failed: " + e.getMessage().lines().findFirst().orElse(""));
    }
    System.out.println("  " + label + ": " + row.get(label));
  }

  /** The most the process has had resident (VmHWM): what the container's memory limit must hold. */
  private static String peakRss(long pid) throws IOException {
    return String.format(Locale.ROOT, "%.1f", statusKb(pid, "VmHWM:") / 1024.0);
  }

  /** A kB field of /proc/PID/status ("VmRSS:"), 0 when absent. */
  private static long statusKb(long pid, String field) throws IOException {
    for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
      if (line.startsWith(field)) {
        return Long.parseLong(line.split("\\s+")[1]);
      }
    }
    return 0;
  }

  /**
   * RSS, then the live heap (a full collection). With trimFirst, prints what a trim of the C heap
   * returns in between, before the collection's cleaners free more native memory.
   */
  private static String memory(long pid, boolean trimFirst) throws Exception {
    long rss = statusKb(pid, "VmRSS:");
    Path exe = Path.of("/proc/" + pid + "/exe").toRealPath();
    String jcmd = exe.resolveSibling("jcmd").toString();
    if (trimFirst) {
      MemoryBreakdown.printNativeTrim(jcmd, pid);
    }
    Commands.run(List.of(jcmd, String.valueOf(pid), "GC.run"), null);
    String info = Commands.run(List.of(jcmd, String.valueOf(pid), "GC.heap_info"), null).stdout();
    Matcher mm = Pattern.compile("(?i)(generation|DefNew|Tenured|heap)\\s+total \\d+K, used (\\d+)K").matcher(info);
    long kb = 0;
    while (mm.find()) {
      kb += Long.parseLong(mm.group(2));
    }
    return String.format(Locale.ROOT, "%.1f / %.1f", rss / 1024.0, kb / 1024.0);
  }

  /**
   * The command run with a private xtables lock: /run is shared by every network namespace, so
   * any iptables command on the machine (other tests, other benchmarks) would hold up the agent's
   * restores, as it never does on a node of its own. {@code ip netns exec} gives the command a
   * mount namespace of its own whose mounts do not propagate back, and the lock file is bound over
   * there.
   */
  static List<String> ownXtablesLock(Path lock, String... argv) {
    List<String> out = new ArrayList<>(List.of("sh", "-c",
        "[ -e /run/xtables.lock ] || : > /run/xtables.lock; mount --bind \"$0\" /run/xtables.lock && exec \"$@\"",
        lock.toString()));
    out.addAll(List.of(argv));
    return out;
  }

  /** Every figure of every run: a row per figure, a column per shape and mode. */
  private void printTable() {
    Set<String> labels = new LinkedHashSet<>();
    rows.values().forEach(r -> labels.addAll(r.keySet()));
    StringBuilder sb = new StringBuilder("\n| |");
    rows.keySet().forEach(k -> sb.append(' ').append(k).append(" |"));
    sb.append("\n|---|");
    rows.keySet().forEach(k -> sb.append("---|"));
    for (String label : labels) {
      sb.append("\n| ").append(label).append(" |");
      rows.values().forEach(r -> sb.append(' ').append(r.getOrDefault(label, "")).append(" |"));
    }
    System.out.println(sb);
  }

  static String load() {
    try {
      String[] f = Files.readString(Path.of("/proc/loadavg")).split(" ");
      return f[0] + " " + f[1] + " " + f[2];
    } catch (IOException e) {
      return "?";
    }
  }
}
