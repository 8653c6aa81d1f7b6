package dev.kubeproxy.backend.iptables;

import dev.kubeproxy.backend.netfilter.IptablesBackend;
import dev.kubeproxy.backend.netfilter.Sysctls;

import dev.kubeproxy.model.Endpoint;
import dev.kubeproxy.net.IpFamily;
import dev.kubeproxy.model.LocalTrafficDetector;
import dev.kubeproxy.model.NamespacedName;
import dev.kubeproxy.model.ProxierSettings;
import dev.kubeproxy.model.ProxyState;
import dev.kubeproxy.model.ServicePort;
import dev.kubeproxy.model.ServicePortName;
import dev.kubeproxy.testutil.RecordingRunner;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Prints figures for the iptables backend (a benchmark, not a test: it asserts nothing).
 *
 * <p>For 1,000 and 10,000 ClusterIP Services × 10 endpoints: ruleset generation time, restore-input
 * size, iptables-restore time on the legacy backend (and the nft backend at 1,000 only: at 10,000 it
 * takes more than 20 minutes), the agent-to-kernel ratio, then at 10,000 a one-endpoint change (partial
 * sync), the idle rules check every syncPeriod and the JVM's RSS. syncPeriod is 1 h here, so the partial sync shows the steady state in which
 * large clusters skip the periodic iptables-save scan for stale chains (it runs at most once per syncPeriod). Every rule goes into a scratch network namespace (kp-ipt-*) that it deletes.
 *
 * <pre>
 * mvn -B -o -q test-compile
 * java -Xmx512m -cp target/classes:target/test-classes dev.kubeproxy.backend.iptables.IptablesBenchmark \
 *     [--legacy-only] [sizes...]
 * </pre>
 * Needs root, ip and the iptables tools. Default sizes: 1000 10000; --legacy-only skips the nft backend.
 */
public final class IptablesBenchmark {
  private static final int ENDPOINTS = 10;
  private static boolean legacyOnly;

  public static void main(String[] args) throws Exception {
    String why = ScratchNamespace.whyUnavailable();
    if (why != null) {
      System.err.println("cannot run the benchmark: " + why);
      System.exit(2);
    }
    List<Integer> sizes = new ArrayList<>();
    for (String arg : args) {
      if (arg.equals("--legacy-only")) {
        legacyOnly = true;
      } else {
        sizes.add(Integer.parseInt(arg));
      }
    }
    if (sizes.isEmpty()) {
      sizes = List.of(1000, 10000);
    }
    warmUp();
    for (int services : sizes) {
      run(services);
    }
  }

  /** Lets the JIT compile the generator, as it is in a running agent after its first syncs. */
  private static void warmUp() {
    ProxyState state = state(2000, -1);
    RulesetGenerator generator = new RulesetGenerator();
    for (int i = 0; i < 5; i++) {
      generator.generate(options(), state, true, List.of());
    }
  }

  private static void run(int services) throws Exception {
    System.out.printf("%n== %,d Services x %d endpoints (%,d endpoints)%n", services, ENDPOINTS, services * ENDPOINTS);
    ProxyState state = state(services, -1);

    RulesetGenerator generator = new RulesetGenerator();
    java.lang.management.ThreadMXBean threads = java.lang.management.ManagementFactory.getThreadMXBean();
    long cold = time(() -> generator.generate(options(), state, true, List.of()));
    long[] wall = new long[5];
    long[] cpu = new long[5];
    Ruleset ruleset = null;
    for (int i = 0; i < wall.length; i++) {
      long startCpu = threads.getCurrentThreadCpuTime();
      long start = System.nanoTime();
      ruleset = generator.generate(options(), state, true, List.of());
      wall[i] = System.nanoTime() - start;
      cpu[i] = threads.getCurrentThreadCpuTime() - startCpu;
    }
    java.util.Arrays.sort(wall);
    java.util.Arrays.sort(cpu);
    System.out.printf("generation: first %d ms (fresh chain-name caches); then median of 5: %d ms wall, %d ms CPU%n",
        ms(cold), ms(wall[2]), ms(cpu[2]));
    // What a sync does before the tool runs: the input, in the order it is sent in; CPU and bytes allocated.
    com.sun.management.ThreadMXBean allocation = (com.sun.management.ThreadMXBean) threads;
    long[] sendCpu = new long[5];
    long[] allocated = new long[5];
    long sentLength = 0;
    for (int i = 0; i < sendCpu.length; i++) {
      long startCpu = threads.getCurrentThreadCpuTime();
      long startBytes = allocation.getCurrentThreadAllocatedBytes();
      sentLength = sentForm(generator.generate(options(), state, true, List.of())).length();
      sendCpu[i] = threads.getCurrentThreadCpuTime() - startCpu;
      allocated[i] = allocation.getCurrentThreadAllocatedBytes() - startBytes;
    }
    java.util.Arrays.sort(sendCpu);
    java.util.Arrays.sort(allocated);
    System.out.printf("input as sent (generation and send order, %,d bytes): median of 5: %d ms CPU, %,d MiB allocated%n",
        sentLength, ms(sendCpu[2]), allocated[2] >> 20);
    System.out.printf("restore input: %,d bytes, %,d lines (filter %d rules, nat %,d rules)%n",
        ruleset.payload().length(), ruleset.payload().split("\n", -1).length - 1, ruleset.filterRules(),
        ruleset.natRulesTotal());

    for (IptablesBackend backend : IptablesBackend.values()) {
      if (backend == IptablesBackend.NFT && legacyOnly) {
        continue;
      }
      if (backend == IptablesBackend.NFT && services > 2000) {
        System.out.println("iptables-nft-restore: not measured above 2,000 Services (more than 20 minutes at 10,000)");
        continue;
      }
      // The tool alone on the same input, in a fresh namespace: wall clock and CPU (user + system).
      try (ScratchNamespace ns = ScratchNamespace.create()) {
        Path input = Files.createTempFile("kp-ipt-bench", ".rules");
        Files.writeString(input, ruleset.payload());
        String restore = "iptables-" + backend.suffix() + "-restore";
        var result = ns.runner.run(List.of("bash", "-c", "TIMEFORMAT='%R %U %S'; time " + restore
            + " -w 5 --noflush --counters < " + input));
        Files.delete(input);
        String[] t = result.stderr().trim().split("\\s+");
        int n = t.length;
        double toolCpu = Double.parseDouble(t[n - 2]) + Double.parseDouble(t[n - 1]);
        System.out.printf("%s alone: %.2f s wall, %.2f s CPU (user %s + sys %s); agent CPU / tool CPU = %.1f %%%n",
            restore, Double.parseDouble(t[n - 3]), toolCpu, t[n - 2], t[n - 1], 100.0 * cpu[2] / 1e9 / toolCpu);
      }
      try (ScratchNamespace ns = ScratchNamespace.create()) {
        RecordingRunner runner = ns.runner;
        IptablesProxier proxier = proxier(runner, backend);
        Timings full = timed(runner, () -> proxier.sync(state));
        System.out.printf("%s full sync: total %d ms = agent %d ms (generation; %d ms CPU) + iptables-restore %d ms"
                + " + other commands %d ms (iptables-save, chain checks); agent/kernel wall = %.1f %%%n",
            proxier.tool().restoreCommand(), ms(full.totalNanos()), ms(full.generateNanos()),
            ms(full.generateCpuNanos()), ms(full.restoreNanos()), ms(full.otherCommandsNanos()),
            100.0 * full.generateNanos() / full.restoreNanos());

        if (backend == IptablesBackend.LEGACY) {
          // One endpoint of one service changes: a partial sync.
          ProxyState changed = state(services, services / 2);
          Timings partial = timed(runner, () -> proxier.sync(changed));
          System.out.printf("one-endpoint change (partial sync): input %,d bytes; total %d ms = agent %d ms"
                  + " (%d ms CPU) + iptables-restore %d ms + other commands %d ms (canary check)%n",
              runner.lastRestoreInput().length(), ms(partial.totalNanos()), ms(partial.generateNanos()),
              ms(partial.generateCpuNanos()), ms(partial.restoreNanos()), ms(partial.otherCommandsNanos()));
          // The same partial input once more through the tool alone, for its CPU time (idempotent).
          Path partialInput = Files.createTempFile("kp-ipt-bench", ".rules");
          Files.writeString(partialInput, runner.lastRestoreInput());
          var again = ns.runner.run(List.of("bash", "-c", "TIMEFORMAT='%R %U %S'; time iptables-legacy-restore"
              + " -w 5 --noflush --counters < " + partialInput));
          Files.delete(partialInput);
          String[] t = again.stderr().trim().split("\\s+");
          int n = t.length;
          System.out.printf("partial input through iptables-legacy-restore alone: %s s wall, %.2f s CPU (user %s +"
              + " sys %s)%n", t[n - 3], Double.parseDouble(t[n - 2]) + Double.parseDouble(t[n - 1]), t[n - 2], t[n - 1]);
          // The idle check every syncPeriod (canaries, jump rules, top-level rule counts): median of 5.
          long[] check = new long[5];
          for (int i = 0; i < check.length; i++) {
            long start = System.nanoTime();
            if (proxier.rulesDisturbed()) {
              throw new IllegalStateException("the benchmark's own rules look disturbed");
            }
            check[i] = System.nanoTime() - start;
          }
          java.util.Arrays.sort(check);
          System.out.printf("idle rules check (mangle canary + iptables-save of nat and filter): median of 5 %d ms,"
              + " max %d ms%n", ms(check[2]), ms(check[4]));
          System.gc();
          System.out.printf("JVM RSS after the sync: %s (heap used after GC %d MiB)%n", rss(),
              (Runtime.getRuntime().totalMemory() - Runtime.getRuntime().freeMemory()) >> 20);
        }
      }
    }
  }

  /**
   * Where the time of one sync went: the agent's own work (generating the input: the wall time
   * outside commands, and the calling thread's CPU time) versus the tools (iptables-restore; the
   * save and chain-check commands).
   */
  private record Timings(
      long generateNanos, long generateCpuNanos, long restoreNanos, long otherCommandsNanos, long totalNanos) {}

  private interface Sync {
    void run() throws Exception;
  }

  private static final java.lang.management.ThreadMXBean THREADS =
      java.lang.management.ManagementFactory.getThreadMXBean();

  private static Timings timed(RecordingRunner runner, Sync sync) throws Exception {
    runner.resetTimes();
    long cpu = THREADS.getCurrentThreadCpuTime();
    long start = System.nanoTime();
    sync.run();
    long total = System.nanoTime() - start;
    long restore = runner.restoreNanos();
    long other = runner.otherCommandsNanos();
    return new Timings(total - restore - other, THREADS.getCurrentThreadCpuTime() - cpu, restore, other, total);
  }

  private static IptablesProxier proxier(RecordingRunner runner, IptablesBackend backend) throws Exception {
    Path sysctls = Files.createTempDirectory("kp-ipt-sysctl");
    Files.createDirectories(sysctls.resolve("net/ipv4/conf/all"));
    ProxierSettings settings = new ProxierSettings(IpFamily.IPv4, "node-a", List.of("192.168.200.10"), List.of(),
        false, 14, true, new LocalTrafficDetector("ClusterCIDR", "10.244.0.0/16"), Duration.ofHours(1),
        Duration.ofSeconds(1), null);
    return new IptablesProxier(settings, runner, new dev.kubeproxy.metrics.ProxyMetrics(), new Sysctls(sysctls),
        List::of, backend);
  }

  private static RulesetOptions options() {
    return new RulesetOptions(IpFamily.IPv4, "0x00004000", false, true,
        new LocalTrafficDetector("ClusterCIDR", "10.244.0.0/16"), true, false, true, List.of(),
        List.of("192.168.200.10"));
  }

  /**
   * services ClusterIP Services with 10 ready endpoints each (one on this node); changedService
   * (if >= 0) gets a different last endpoint and is marked changed.
   */
  static ProxyState state(int services, int changedService) {
    Map<ServicePortName, ServicePort> ports = new HashMap<>();
    Map<ServicePortName, List<Endpoint>> endpoints = new HashMap<>();
    Set<NamespacedName> changed = new java.util.HashSet<>();
    for (int s = 0; s < services; s++) {
      NamespacedName svc = new NamespacedName("bench", "svc-" + s);
      ServicePortName name = new ServicePortName(svc, "http", "TCP");
      ports.put(name, new ServicePort(name, "10.96." + (s >> 8) + "." + (s & 0xff), 80, "TCP", 0, List.of(),
          List.of(), List.of(), false, 0, false, false, 0, ""));
      List<Endpoint> eps = new ArrayList<>(ENDPOINTS);
      for (int e = 0; e < ENDPOINTS; e++) {
        int n = s * ENDPOINTS + e + (s == changedService && e == ENDPOINTS - 1 ? 200_000 : 0);
        eps.add(new Endpoint("10." + (128 + (n >> 16)) + "." + ((n >> 8) & 0xff) + "." + (n & 0xff), 8080, e == 0,
            true, true, false, null));
      }
      eps.sort(java.util.Comparator.comparing(Endpoint::endpoint));
      endpoints.put(name, eps);
      if (s == changedService) {
        changed.add(svc);
      }
    }
    return new ProxyState(ports, endpoints, changed, Map.of(), List.of(), Map.of());
  }

  /** The input in the order the proxier hands it to iptables-restore. */
  private static CharSequence sentForm(Ruleset ruleset) {
    return ruleset.sent().input();
  }

  private static long time(Runnable r) {
    long start = System.nanoTime();
    r.run();
    return System.nanoTime() - start;
  }

  private static long ms(long nanos) {
    return nanos / 1_000_000;
  }

  private static String rss() throws Exception {
    for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
      if (line.startsWith("VmRSS:")) {
        return line.substring(6).trim();
      }
    }
    return "unknown";
  }
}
