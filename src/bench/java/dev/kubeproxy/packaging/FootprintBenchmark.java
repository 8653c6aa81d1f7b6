package dev.kubeproxy.packaging;

import dev.kubeproxy.testutil.TempTrees;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The footprint benchmark: starts the packaged agent exactly as the image does (through
 * {@code bin/kube-proxy}, the one launcher) inside a scratch network namespace, over generated
 * N Services × E endpoints read with {@code --manifests}, in each mode, and prints
 *
 * <ul>
 *   <li>start → first sync applied: from just before the process starts to the moment every
 *       family's first sync was in the kernel (the agent's own
 *       {@code kubeproxy_sync_proxy_rules_last_timestamp_seconds} once the sync count covers both
 *       families);
 *   <li>the kernel tool's own apply time for the same rules, loaded into a second fresh namespace
 *       by the tool alone, timed: for iptables what the agent programmed ({@code iptables-save}),
 *       for nftables the agent's first-sync transactions as its dry run prints them; the agent's share (JVM start, reading the objects, the model,
 *       rendering) is the rest of start → first sync;
 *   <li>CPU: the agent process's own, and its child processes' (the tools it ran);
 *   <li>RSS after the first sync (anonymous / file-backed), the heap in use, and the live heap
 *       (after a full collection that jcmd asks for);
 *   <li>with {@code --churn-seconds}: a bounded churn run (one EndpointSlice rewritten every
 *       {@code --churn-interval-ms}, endpoint addresses drawn from a fixed pool so the state does
 *       not grow), RSS and heap sampled every 30 s, the RSS trend over the run, whether the
 *       kernel then holds exactly every Service's final endpoints (waiting at most
 *       {@code --converge-seconds}, default 60; the benchmark exits 1 when it does not), and the
 *       live heap at its end.
 * </ul>
 *
 * <p>The container's memory limit, which the launcher sizes the heap from, is given to the JVM
 * as {@code -XX:MaxRAM} through {@code JAVA_OPTS} ({@code --memory-limit}, default the
 * DaemonSet's). Needs root, ip, iptables-legacy, nft, bash and the JDK's jcmd. Writes rules only
 * into the namespaces it creates and deletes.
 *
 * <pre>
 * mvn -B -q package -DskipTests
 * java -cp target/test-classes dev.kubeproxy.packaging.FootprintBenchmark [--modes iptables,nftables]
 *     [--endpoints 10] [--runs 3] [--memory-limit 256m] [--churn-seconds 600] [--churn-interval-ms 2000]
 *     [--converge-seconds 60] [--jar target/kube-proxy.jar] 1000 10000
 * </pre>
 */
public final class FootprintBenchmark {
  private static final Pattern METRIC = Pattern.compile("(?m)^([a-z_]+)(\\{[^}]*\\})? ([-+0-9.eE]+|NaN)$");

  private final List<String> modes;
  private final int endpoints;
  private final int runs;
  private final String memoryLimit;
  private final int churnSeconds;
  private final int churnIntervalMs;
  private final int convergeSeconds;
  private final Path jar;
  private final Path launcher;

  private FootprintBenchmark(Map<String, String> opts) {
    modes = List.of(opts.getOrDefault("modes", "iptables,nftables").split(","));
    endpoints = Integer.parseInt(opts.getOrDefault("endpoints", "10"));
    runs = Integer.parseInt(opts.getOrDefault("runs", "1"));
    memoryLimit = opts.getOrDefault("memory-limit", "256m");
    churnSeconds = Integer.parseInt(opts.getOrDefault("churn-seconds", "0"));
    churnIntervalMs = Integer.parseInt(opts.getOrDefault("churn-interval-ms", "2000"));
    convergeSeconds = Integer.parseInt(opts.getOrDefault("converge-seconds", "60"));
    jar = Path.of(opts.getOrDefault("jar", "target/kube-proxy.jar")).toAbsolutePath();
    launcher = Path.of(opts.getOrDefault("launcher", "bin/kube-proxy")).toAbsolutePath();
  }

  public static void main(String[] args) throws Exception {
    Map<String, String> opts = new java.util.HashMap<>();
    List<Integer> sizes = new ArrayList<>();
    for (int i = 0; i < args.length; i++) {
      if (args[i].startsWith("--")) {
        opts.put(args[i].substring(2), args[++i]);
      } else {
        sizes.add(Integer.parseInt(args[i]));
      }
    }
    if (sizes.isEmpty()) {
      sizes = List.of(1000, 10000);
    }
    if (!"root".equals(System.getProperty("user.name"))) {
      throw new IllegalStateException("the footprint benchmark needs root (network namespaces)");
    }
    FootprintBenchmark bench = new FootprintBenchmark(opts);
    bench.ensureCdsArchive();
    System.out.printf("footprint benchmark: launcher %s, jar %s, memory limit %s, %d endpoints per Service%n",
        bench.launcher, bench.jar, bench.memoryLimit, bench.endpoints);
    System.out.println("load at start: " + load());
    boolean converged = true;
    for (int n : sizes) {
      Path dir = Files.createTempDirectory("kp-footprint-");
      try {
        FootprintManifests manifests = new FootprintManifests(dir, n, bench.endpoints);
        manifests.writeAll();
        for (String mode : bench.modes) {
          List<Result> results = new ArrayList<>();
          for (int r = 0; r < bench.runs; r++) {
            results.add(bench.run(mode, manifests, r == bench.runs - 1 && bench.churnSeconds > 0));
          }
          report(mode, n, bench.endpoints, results);
          converged &= results.stream().allMatch(x -> x.churnChanges == 0 || x.converged);
        }
      } finally {
        TempTrees.deleteTree(dir);
      }
    }
    System.out.println("load at end: " + load());
    if (!converged) {
      throw new IllegalStateException("the kernel did not converge to the final state of the churn (see above)");
    }
  }

  /** The image builds its class-data sharing archive with the launcher; so does the benchmark when it is stale. */
  private void ensureCdsArchive() throws IOException, InterruptedException {
    Path archive = jar.resolveSibling(jar.getFileName().toString().replaceAll("\\.jar$", ".jsa"));
    if (Files.exists(archive) && Files.getLastModifiedTime(archive).compareTo(Files.getLastModifiedTime(jar)) > 0) {
      return;
    }
    ProcessBuilder pb = new ProcessBuilder(launcher.toString(), "--cds-archive").inheritIO();
    pb.environment().put("KUBE_PROXY_JAR", jar.toString());
    if (pb.start().waitFor() != 0) {
      throw new IllegalStateException(launcher + " --cds-archive failed");
    }
  }

  /** One start of the agent over the manifests: figures of the first sync, and of the churn run if asked. */
  private Result run(String mode, FootprintManifests manifests, boolean churn) throws Exception {
    Result r = new Result();
    r.loadBefore = load();
    try (Netns ns = Netns.create(); Netns replay = Netns.create()) {
      Path log = Files.createTempFile("kp-footprint-", ".log");
      List<String> cmd = new ArrayList<>(List.of("ip", "netns", "exec", ns.name, launcher.toString(),
          "--manifests", manifests.dir.toString(), "--hostname-override", FootprintManifests.NODE, "--proxy-mode", mode,
          // a network namespace has no conntrack table of its own to size
          "--conntrack-max-per-core=0"));
      ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile());
      pb.environment().put("KUBE_PROXY_JAR", jar.toString());
      // The container's memory limit as the JVM would read it from the cgroup.
      pb.environment().put("JAVA_OPTS", "-XX:MaxRAM=" + memoryLimit);
      long startMillis = System.currentTimeMillis();
      Process agent = pb.start();
      try {
        Map<String, Double> m = waitForFirstSyncs(ns, agent, log, 2);
        r.startToSyncedSeconds = m.get("kubeproxy_sync_proxy_rules_last_timestamp_seconds") - startMillis / 1000.0;
        long[] cpu = cpuTicks(agent.pid());
        r.agentCpuSeconds = cpu[0] / 100.0;
        r.childCpuSeconds = cpu[1] / 100.0;
        Thread.sleep(2000);
        long[] rss = rssKb(agent.pid());
        r.rssMb = rss[0] / 1024.0;
        r.rssAnonMb = rss[1] / 1024.0;
        r.rssFileMb = rss[2] / 1024.0;
        Path jcmd = jcmdOf(agent.pid());
        r.heapUsedMb = heapUsedMb(jcmd, agent.pid(), false);
        r.liveHeapMb = heapUsedMb(jcmd, agent.pid(), true);
        r.toolApplySeconds = toolApplySeconds(mode, manifests, ns, replay);
        if (churn) {
          churn(r, mode, manifests, ns, agent.pid(), jcmd);
        }
      } finally {
        agent.destroy();
        if (!agent.waitFor(20, TimeUnit.SECONDS)) {
          agent.destroyForcibly().waitFor();
        }
        r.log = log;
      }
    }
    return r;
  }

  /** Polls /metrics inside the namespace until the sync count reaches the number of families. */
  private static Map<String, Double> waitForFirstSyncs(Netns ns, Process agent, Path log, int families)
      throws Exception {
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(10);
    while (System.nanoTime() < deadline) {
      if (!agent.isAlive()) {
        throw new IllegalStateException("the agent exited " + agent.exitValue() + ":\n" + tail(log));
      }
      Map<String, Double> m = metrics(ns);
      Double count = m.get("kubeproxy_sync_proxy_rules_duration_seconds_count");
      if (count != null && count >= families) {
        return m;
      }
      Thread.sleep(250);
    }
    throw new IllegalStateException("no first sync within 10 minutes:\n" + tail(log));
  }

  /** The metrics port from inside the namespace, through bash's /dev/tcp (no HTTP client needed there). */
  private static Map<String, Double> metrics(Netns ns) throws IOException, InterruptedException {
    String body = ns.exec("bash", "-c", "exec 3<>/dev/tcp/127.0.0.1/10249 && printf 'GET /metrics HTTP/1.0\\r\\n"
        + "Host: localhost\\r\\n\\r\\n' >&3 && cat <&3").stdout();
    // Per-family series (ip_family="IPv4", …) fold into one figure: counts add up, timestamps take the latest.
    Map<String, Double> out = new java.util.HashMap<>();
    Matcher matcher = METRIC.matcher(body);
    while (matcher.find()) {
      String name = matcher.group(1);
      double value = Double.parseDouble(matcher.group(3));
      out.merge(name, value, name.endsWith("_timestamp_seconds") ? Math::max : Double::sum);
    }
    return out;
  }

  /**
   * The kernel tool alone on the same rules, timed in a fresh namespace. nftables: the agent's own
   * first-sync transactions, as its dry run prints them (a listing of the table puts every map's
   * elements before the rules that bind them, an order that costs the kernel several times more).
   * iptables: what the agent programmed, from iptables-save.
   */
  private double toolApplySeconds(String mode, FootprintManifests manifests, Netns from, Netns to) throws Exception {
    if (mode.equals("nftables")) {
      return to.timedWithInput(dryRunOutput(mode, manifests, to), "nft", "-f", "-");
    }
    double total = 0;
    for (String family : List.of("iptables", "ip6tables")) {
      String variant = "legacy";
      String dump = from.exec(family + "-legacy-save").stdout();
      if (!dump.contains("KUBE-")) {
        variant = "nft";
        dump = from.exec(family + "-nft-save").stdout();
      }
      // The agent's nfacct counter (its INVALID-drop rule counts into it) exists only in the
      // agent's namespace; the replay matches without it.
      dump = dump.replaceAll(" -m nfacct --nfacct-name +\\S+", "");
      total += to.timedWithInput(dump, family + "-" + variant + "-restore");
    }
    return total;
  }

  /** What the agent's dry run prints for its first syncs (run in the namespace only for its ports). */
  private String dryRunOutput(String mode, FootprintManifests manifests, Netns ns) throws Exception {
    Path out = Files.createTempFile("kp-footprint-", ".dry");
    try {
      ProcessBuilder pb = new ProcessBuilder("ip", "netns", "exec", ns.name, launcher.toString(), "--manifests",
          manifests.dir.toString(), "--hostname-override", FootprintManifests.NODE, "--proxy-mode", mode, "--dry-run")
          .redirectOutput(out.toFile()).redirectError(ProcessBuilder.Redirect.DISCARD);
      pb.environment().put("KUBE_PROXY_JAR", jar.toString());
      pb.environment().put("JAVA_OPTS", "-XX:MaxRAM=" + memoryLimit);
      Process dry = pb.start();
      try {
        waitForFirstSyncs(ns, dry, out, 2);
      } finally {
        dry.destroy();
        dry.waitFor(20, TimeUnit.SECONDS);
      }
      return Files.readString(out);
    } finally {
      Files.deleteIfExists(out);
    }
  }

  /**
   * The bounded churn run: RSS and heap every 30 s, the RSS trend, whether the kernel converged to
   * the final state, and the live heap at the end.
   */
  private void churn(Result r, String mode, FootprintManifests manifests, Netns ns, long pid, Path jcmd) throws Exception {
    System.out.printf("  churn run: %d s, one EndpointSlice rewritten every %d ms (load %s)%n",
        churnSeconds, churnIntervalMs, load());
    long start = System.nanoTime();
    long nextSample = start;
    long end = start + TimeUnit.SECONDS.toNanos(churnSeconds);
    int change = 0;
    List<double[]> samples = new ArrayList<>();
    long lastChange = start;
    while (System.nanoTime() < end) {
      manifests.churn(change++);
      lastChange = System.nanoTime();
      if (System.nanoTime() >= nextSample) {
        double minutes = (System.nanoTime() - start) / 6e10;
        long[] rss = rssKb(pid);
        double heap = heapUsedMb(jcmd, pid, false);
        samples.add(new double[] {minutes, rss[0] / 1024.0, heap});
        System.out.printf("    %5.1f min  RSS %6.1f MB  heap in use %6.1f MB  changes %d  load %s%n",
            minutes, rss[0] / 1024.0, heap, change, load());
        nextSample += TimeUnit.SECONDS.toNanos(30);
      }
      Thread.sleep(churnIntervalMs);
    }
    r.churnChanges = change;
    r.converged = awaitConvergence(mode, manifests, ns, lastChange);
    long[] rss = rssKb(pid);
    r.churnRssEndMb = rss[0] / 1024.0;
    r.churnRssMaxMb = samples.stream().mapToDouble(s -> s[1]).max().orElse(0);
    r.churnRssSlopeMbPerMin = slope(samples.subList(Math.min(2, samples.size()), samples.size()));
    r.churnLiveHeapEndMb = heapUsedMb(jcmd, pid, true);
    r.churnLoad = load();
  }

  /**
   * Polls the kernel until every Service's rules DNAT to exactly its final endpoints (none of the
   * replaced ones), for at most --converge-seconds after the last change; prints the outcome.
   */
  private boolean awaitConvergence(String mode, FootprintManifests manifests, Netns ns, long lastChange) throws Exception {
    long deadline = lastChange + TimeUnit.SECONDS.toNanos(convergeSeconds);
    while (true) {
      Map<String, java.util.Set<String>> kernel = kernelEndpoints(mode, ns);
      List<String> wrong = new ArrayList<>();
      for (int i = 0; i < manifests.services; i++) {
        java.util.Set<String> expected = manifests.endpointsOf(i);
        java.util.Set<String> actual = kernel.getOrDefault(FootprintManifests.clusterIp(i), java.util.Set.of());
        if (!actual.equals(expected)) {
          wrong.add("svc-" + i + ": kernel " + actual + ", expected " + expected);
        }
      }
      long now = System.nanoTime();
      if (wrong.isEmpty()) {
        System.out.printf("  converged: %d/%d services right after %d ms%n", manifests.services, manifests.services,
            TimeUnit.NANOSECONDS.toMillis(now - lastChange));
        return true;
      }
      if (now > deadline) {
        System.out.printf("  NOT converged: %d/%d services wrong %d s after the last change:%n", wrong.size(),
            manifests.services, convergeSeconds);
        wrong.stream().limit(20).forEach(w -> System.out.println("    " + w));
        if (wrong.size() > 20) {
          System.out.println("    ... and " + (wrong.size() - 20) + " more");
        }
        return false;
      }
      Thread.sleep(250);
    }
  }

  /** Cluster IP → endpoints, as the agent's rules in the namespace have them. */
  private static Map<String, java.util.Set<String>> kernelEndpoints(String mode, Netns ns) throws Exception {
    if (mode.equals("nftables")) {
      return KernelServiceEndpoints.fromNftList(ns.exec("nft", "list", "table", "ip", "kube-proxy").stdout());
    }
    String dump = ns.exec("iptables-legacy-save", "-t", "nat").stdout();
    if (!dump.contains("KUBE-")) {
      dump = ns.exec("iptables-nft-save", "-t", "nat").stdout();
    }
    return KernelServiceEndpoints.fromIptablesSave(dump);
  }

  /** Least-squares slope of RSS over minutes. */
  static double slope(List<double[]> samples) {
    int n = samples.size();
    if (n < 2) {
      return 0;
    }
    double mx = samples.stream().mapToDouble(s -> s[0]).average().orElse(0);
    double my = samples.stream().mapToDouble(s -> s[1]).average().orElse(0);
    double num = 0;
    double den = 0;
    for (double[] s : samples) {
      num += (s[0] - mx) * (s[1] - my);
      den += (s[0] - mx) * (s[0] - mx);
    }
    return den == 0 ? 0 : num / den;
  }

  private static void report(String mode, int n, int e, List<Result> results) throws IOException {
    System.out.printf("%n%s, %,d Services × %d endpoints (%d run%s; median, then every run):%n", mode, n, e,
        results.size(), results.size() == 1 ? "" : "s");
    row("start → first sync applied (s)", results, x -> x.startToSyncedSeconds, "%.2f");
    row("  kernel tool alone, same rules (s)", results, x -> x.toolApplySeconds, "%.2f");
    row("  the agent's share: the rest (s)", results, x -> x.startToSyncedSeconds - x.toolApplySeconds, "%.2f");
    row("CPU to first sync: agent (s)", results, x -> x.agentCpuSeconds, "%.2f");
    row("CPU to first sync: child processes (s)", results, x -> x.childCpuSeconds, "%.2f");
    row("RSS after first sync (MB)", results, x -> x.rssMb, "%.1f");
    row("  of it anonymous (MB)", results, x -> x.rssAnonMb, "%.1f");
    row("  of it file-backed (MB)", results, x -> x.rssFileMb, "%.1f");
    row("heap in use after first sync (MB)", results, x -> x.heapUsedMb, "%.1f");
    row("live heap after first sync (MB)", results, x -> x.liveHeapMb, "%.1f");
    for (Result x : results) {
      if (x.churnChanges > 0) {
        System.out.printf("  churn: %d changes; RSS end %.1f MB, max %.1f MB, trend %+.2f MB/min; live heap at end"
            + " %.1f MB (after first sync %.1f MB); load %s%n", x.churnChanges, x.churnRssEndMb, x.churnRssMaxMb,
            x.churnRssSlopeMbPerMin, x.churnLiveHeapEndMb, x.liveHeapMb, x.churnLoad);
      }
      System.out.println("  load before the run: " + x.loadBefore + "; agent log: " + x.log);
    }
  }

  private static void row(String label, List<Result> results, java.util.function.ToDoubleFunction<Result> f,
      String format) {
    double[] v = results.stream().mapToDouble(f).toArray();
    double[] sorted = v.clone();
    Arrays.sort(sorted);
    StringBuilder each = new StringBuilder();
    for (double x : v) {
      each.append(' ').append(String.format(Locale.ROOT, format, x));
    }
    System.out.printf(Locale.ROOT, "  %-44s " + format + "   (%s)%n", label, sorted[sorted.length / 2],
        each.toString().trim());
  }

  /** utime+stime of the process and of its waited-for children, in clock ticks. */
  private static long[] cpuTicks(long pid) throws IOException {
    String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
    String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    // fields after the command: state(3) ... utime(14) stime(15) cutime(16) cstime(17), 1-based from pid
    return new long[] {Long.parseLong(f[11]) + Long.parseLong(f[12]), Long.parseLong(f[13]) + Long.parseLong(f[14])};
  }

  /** VmRSS, RssAnon, RssFile in kB. */
  private static long[] rssKb(long pid) throws IOException {
    long[] out = new long[3];
    for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
      String[] f = line.split("\\s+");
      switch (f[0]) {
        case "VmRSS:" -> out[0] = Long.parseLong(f[1]);
        case "RssAnon:" -> out[1] = Long.parseLong(f[1]);
        case "RssFile:" -> out[2] = Long.parseLong(f[1]);
        default -> { }
      }
    }
    return out;
  }

  /** The jcmd of the JDK the agent runs on. */
  private static Path jcmdOf(long pid) throws IOException {
    Path exe = Path.of("/proc/" + pid + "/exe").toRealPath();
    Path jcmd = exe.resolveSibling("jcmd");
    return Files.isExecutable(jcmd) ? jcmd : Path.of("jcmd");
  }

  /** The heap in use (GC.heap_info), after a full collection when live is set. */
  private static double heapUsedMb(Path jcmd, long pid, boolean live) throws Exception {
    if (live) {
      Commands.run(List.of(jcmd.toString(), String.valueOf(pid), "GC.run"), null);
    }
    String info = Commands.run(List.of(jcmd.toString(), String.valueOf(pid), "GC.heap_info"), null).stdout();
    // Serial: "def new generation total 1K, used 2K" / "tenured generation total 3K, used 4K";
    // JDK 25 names them DefNew / Tenured; G1: "garbage-first heap total 5K, used 6K".
    Matcher m = Pattern.compile("(?i)(generation|DefNew|Tenured|heap)\\s+total \\d+K, used (\\d+)K").matcher(info);
    long kb = 0;
    while (m.find()) {
      kb += Long.parseLong(m.group(2));
    }
    return kb / 1024.0;
  }

  private static String load() {
    try {
      String[] f = Files.readString(Path.of("/proc/loadavg")).split(" ");
      return f[0] + " " + f[1] + " " + f[2];
    } catch (IOException e) {
      return "?";
    }
  }

  private static String tail(Path log) throws IOException {
    List<String> lines = Files.readAllLines(log);
    return String.join("\n", lines.subList(Math.max(0, lines.size() - 20), lines.size()));
  }

  /** The figures of one run. */
  static final class Result {
    String loadBefore;
    double startToSyncedSeconds;
    double toolApplySeconds;
    double agentCpuSeconds;
    double childCpuSeconds;
    double rssMb;
    double rssAnonMb;
    double rssFileMb;
    double heapUsedMb;
    double liveHeapMb;
    int churnChanges;
    boolean converged;
    double churnRssEndMb;
    double churnRssMaxMb;
    double churnRssSlopeMbPerMin;
    double churnLiveHeapEndMb;
    String churnLoad;
    Path log;
  }
}
