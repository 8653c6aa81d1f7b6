package dev.kubeproxy.proxy.nftables;

import dev.kubeproxy.metrics.ProxyMetrics;
import dev.kubeproxy.platform.CommandRunner;
import dev.kubeproxy.proxy.Endpoint;
import dev.kubeproxy.proxy.IpFamily;
import dev.kubeproxy.proxy.LocalTrafficDetector;
import dev.kubeproxy.proxy.NamespacedName;
import dev.kubeproxy.proxy.ProxierSettings;
import dev.kubeproxy.proxy.ProxyState;
import dev.kubeproxy.proxy.ServicePort;
import dev.kubeproxy.proxy.ServicePortName;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * Figures for the nftables backend (prints, asserts nothing). For each size: a full sync of
 * N Services × 10 endpoints into a scratch network namespace (generation time, transaction size,
 * nft time, agent-to-kernel ratio), then one-endpoint changes (transaction size and time from the
 * model update to nft returning). Needs root and nft; writes only into the namespace it creates.
 *
 * <pre>
 * mvn -B -o -q test-compile dependency:build-classpath -Dmdep.outputFile=target/cp.txt
 * java -cp target/classes:target/test-classes:$(cat target/cp.txt) \
 *     dev.kubeproxy.proxy.nftables.NftablesBenchmark 1000 10000
 * </pre>
 * (Run as root; at 10,000 Services the whole run takes about two minutes, most of it the first full
 * load and the listings of the periodic resyncs. The warm generation time at 1,000 Services is
 * mostly young-GC pauses while the JVM's heap is still small: 114-126 ms with the default heap,
 * 40 ms with -Xms1g, for 26-30 ms of CPU.)
 */
public final class NftablesBenchmark {
  private static final int ENDPOINTS = 10;
  private static final int CHANGES = 7;

  /** Wraps the real nft and measures the time spent in it. */
  static final class TimedNftables implements Nftables {
    final Nftables delegate;
    final IpFamily family;
    long runNanos;
    long listNanos;
    long runCpuMillis;
    int lastBytes;
    int lastCommands;

    TimedNftables(Nftables delegate, IpFamily family) {
      this.delegate = delegate;
      this.family = family;
    }

    void reset() {
      runNanos = 0;
      listNanos = 0;
      runCpuMillis = 0;
    }

    @Override
    public void run(Transaction tx) throws NftablesException {
      lastBytes = tx.render(family).length();
      lastCommands = tx.size();
      long t = System.nanoTime();
      long cpu = childrenCpuMillis();
      delegate.run(tx);
      runNanos += System.nanoTime() - t;
      runCpuMillis += childrenCpuMillis() - cpu;
    }

    @Override
    public TableContents list() throws NftablesException {
      long t = System.nanoTime();
      TableContents c = delegate.list();
      listNanos += System.nanoTime() - t;
      return c;
    }

    @Override
    public KernelTable listTable() throws NftablesException {
      long t = System.nanoTime();
      KernelTable c = delegate.listTable();
      listNanos += System.nanoTime() - t;
      return c;
    }
  }

  /** Discards transactions (generation-only runs to warm up and time the agent's own work). */
  static final class DiscardNftables implements Nftables {
    int bytes;

    @Override
    public void run(Transaction tx) {
      bytes = tx.render(IpFamily.IPv4).length();
    }

    @Override
    public TableContents list() {
      return TableContents.absent();
    }

    @Override
    public KernelTable listTable() {
      return KernelTable.absent();
    }
  }

  /** CPU time (user + system) of finished child processes, from /proc/self/stat (ticks of 10 ms). */
  static long childrenCpuMillis() {
    try {
      String stat = java.nio.file.Files.readString(java.nio.file.Path.of("/proc/self/stat"));
      String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
      return (Long.parseLong(f[13]) + Long.parseLong(f[14])) * 10;
    } catch (Exception e) {
      return 0;
    }
  }

  static long threadCpuMillis() {
    return java.lang.management.ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime() / 1_000_000;
  }

  public static void main(String[] args) throws Exception {
    int[] sizes = args.length == 0 ? new int[] {1000, 10000} : Arrays.stream(args).mapToInt(Integer::parseInt).toArray();
    ProxierSettings settings = new ProxierSettings(IpFamily.IPv4, "node-a", List.of("192.168.200.1"),
        List.of("192.168.200.1/32"), false, 14, false, new LocalTrafficDetector("ClusterCIDR", "10.244.0.0/16"),
        Duration.ofHours(1), Duration.ofSeconds(1), null);
    System.out.printf("nftables benchmark: %s, %d cores, Java %s%n", nftVersion(),
        Runtime.getRuntime().availableProcessors(), System.getProperty("java.version"));
    for (int n : sizes) {
      run(settings, n);
    }
  }

  private static void run(ProxierSettings settings, int services) throws Exception {
    Map<ServicePortName, ServicePort> svcs = new HashMap<>();
    Map<ServicePortName, List<Endpoint>> eps = new HashMap<>();
    List<ServicePortName> names = new ArrayList<>();
    for (int i = 0; i < services; i++) {
      ServicePortName name = new ServicePortName(new NamespacedName("bench", "svc-" + i), "http", "TCP");
      names.add(name);
      int nodePort = i < 2000 ? 30000 + i : 0;
      svcs.put(name, new ServicePort(name, "10.96." + (i / 250) + "." + (i % 250 + 1), 80, "TCP", nodePort,
          List.of(), List.of(), List.of(), false, 0, false, false, 0, ""));
      List<Endpoint> list = new ArrayList<>();
      for (int e = 0; e < ENDPOINTS; e++) {
        int pod = i * ENDPOINTS + e;
        list.add(new Endpoint("10.244." + (pod / 250) % 256 + "." + (pod % 250 + 1), 8080, e == 0, true, true, false,
            Set.of()));
      }
      list.sort((a, b) -> a.endpoint().compareTo(b.endpoint()));
      eps.put(name, List.copyOf(list));
    }
    ProxyState state = new ProxyState(Map.copyOf(svcs), Map.copyOf(eps), Set.of(), Map.of(), List.of("10.96.0.0/16"),
        Map.of());

    // The agent's own work for a full sync, warmed up: median of generation-only runs.
    long[] gen = new long[5];
    long[] genCpu = new long[5];
    DiscardNftables discard = new DiscardNftables();
    for (int r = 0; r < gen.length + 3; r++) {
      NftablesProxier p = new NftablesProxier(settings, new CommandRunner(), discard, new ProxyMetrics(),
          Clock.systemUTC(), List::of);
      long t = System.nanoTime();
      long c0 = threadCpuMillis();
      p.sync(state);
      if (r >= 3) {
        gen[r - 3] = System.nanoTime() - t;
        genCpu[r - 3] = threadCpuMillis() - c0;
      }
    }
    Arrays.sort(gen);
    Arrays.sort(genCpu);

    String ns = "kp-nftr-bench-" + UUID.randomUUID().toString().substring(0, 6);
    CommandRunner root = new CommandRunner();
    if (!root.run(List.of("ip", "netns", "add", ns)).ok()) {
      throw new IllegalStateException("cannot create namespace " + ns + " (root needed)");
    }
    try {
      CommandRunner inNs = CommandRunner.inNetns(ns);
      TimedNftables nft = new TimedNftables(new NftCommand(IpFamily.IPv4, inNs), IpFamily.IPv4);
      NftablesProxier p = new NftablesProxier(settings, inNs, nft, new ProxyMetrics(), Clock.systemUTC(), List::of);
      long t = System.nanoTime();
      p.sync(state);
      long total = System.nanoTime() - t;
      long nftNanos = nft.runNanos + nft.listNanos;
      System.out.printf("%n== %,d Services x %d endpoints (%,d service chains)%n", services, ENDPOINTS,
          Integer.parseInt(count(inNs, "nft list chains ip | grep -c 'chain service-[A-Z2-7]*-'")));
      System.out.printf("full sync: agent generation %,d ms (warm median; this run's non-nft time %,d ms),"
          + " transaction %,d commands / %,.1f MiB, nft -f %,d ms (+ listing %,d ms)%n",
          gen[gen.length / 2] / 1_000_000, (total - nftNanos) / 1_000_000, nft.lastCommands,
          nft.lastBytes / 1048576.0, nft.runNanos / 1_000_000, nft.listNanos / 1_000_000);
      System.out.printf("agent-to-kernel ratio (full sync): %.1f %% by wall time (warm generation / nft -f);"
          + " by CPU time %.1f %% (agent %,d ms CPU / nft %,d ms CPU)%n",
          100.0 * gen[gen.length / 2] / nft.runNanos, 100.0 * genCpu[genCpu.length / 2] / Math.max(1, nft.runCpuMillis),
          genCpu[genCpu.length / 2], nft.runCpuMillis);

      // One-endpoint changes: from the model update (a new state snapshot) to nft returning.
      long[] change = new long[CHANGES];
      long[] changeNft = new long[CHANGES];
      long[] changeNftCpu = new long[CHANGES];
      long[] changeAgentCpu = new long[CHANGES];
      int[] sizes = new int[CHANGES];
      Map<ServicePortName, List<Endpoint>> current = new HashMap<>(eps);
      for (int c = 0; c < CHANGES; c++) {
        ServicePortName name = names.get((c * 7919) % names.size());
        long start = System.nanoTime();
        long c0 = threadCpuMillis();
        List<Endpoint> list = new ArrayList<>(current.get(name));
        list.set(list.size() - 1, new Endpoint("10.250." + c + ".1", 8080, false, true, true, false, Set.of()));
        list.sort((a, b) -> a.endpoint().compareTo(b.endpoint()));
        current.put(name, List.copyOf(list));
        ProxyState next = new ProxyState(state.services(), Map.copyOf(current), Set.of(name.service()), Map.of(),
            state.serviceCIDRs(), Map.of());
        nft.reset();
        p.sync(next);
        change[c] = System.nanoTime() - start;
        changeNft[c] = nft.runNanos;
        changeAgentCpu[c] = threadCpuMillis() - c0;
        changeNftCpu[c] = nft.runCpuMillis;
        sizes[c] = nft.lastBytes;
      }
      long[] sorted = change.clone();
      Arrays.sort(sorted);
      System.out.printf("one-endpoint change: transaction %,d commands / %,d bytes, event-to-applied median %.1f ms"
          + " (min %.1f, max %.1f over %d changes)%n", nft.lastCommands, sizes[CHANGES - 1],
          sorted[CHANGES / 2] / 1e6, sorted[0] / 1e6, sorted[CHANGES - 1] / 1e6, CHANGES);
      long[] agent = new long[CHANGES];
      for (int c = 0; c < CHANGES; c++) {
        agent[c] = change[c] - changeNft[c];
      }
      Arrays.sort(agent);
      Arrays.sort(changeNft);
      Arrays.sort(changeNftCpu);
      Arrays.sort(changeAgentCpu);
      System.out.printf("  of which the agent (model snapshot, diff, rendering) median %.1f ms, nft -f median %.1f ms%n",
          agent[CHANGES / 2] / 1e6, changeNft[CHANGES / 2] / 1e6);
      System.out.printf("  CPU time: agent median %d ms, nft median %d ms (wall time above includes waiting for a"
          + " CPU on a loaded machine)%n", changeAgentCpu[CHANGES / 2], changeNftCpu[CHANGES / 2]);

      // The periodic full resync on a populated table.
      p.requestFullSync();
      nft.reset();
      t = System.nanoTime();
      p.sync(new ProxyState(state.services(), Map.copyOf(current), Set.of(), Map.of(), state.serviceCIDRs(), Map.of()));
      System.out.printf("periodic full resync of the populated table (reconcile, nothing changed): %,d ms"
          + " (listing %,d ms, nft -f %,d ms, transaction %,d commands)%n",
          (System.nanoTime() - t) / 1_000_000, nft.listNanos / 1_000_000, nft.runNanos / 1_000_000, nft.lastCommands);

      // The same after drift: one service chain flushed by hand.
      String flushed = count(inNs, "nft list chains ip | grep -m1 -o 'service-[A-Z2-7]*-bench/[^ ]*'");
      count(inNs, "nft flush chain ip kube-proxy '" + flushed + "'");
      p.requestFullSync();
      nft.reset();
      t = System.nanoTime();
      p.sync(new ProxyState(state.services(), Map.copyOf(current), Set.of(), Map.of(), state.serviceCIDRs(), Map.of()));
      System.out.printf("periodic full resync after one chain was flushed by hand: %,d ms"
          + " (listing %,d ms, nft -f %,d ms, transaction %,d commands; restored: %s)%n",
          (System.nanoTime() - t) / 1_000_000, nft.listNanos / 1_000_000, nft.runNanos / 1_000_000, nft.lastCommands,
          !count(inNs, "nft list chain ip kube-proxy '" + flushed + "' | grep -c dnat").equals("0"));
    } finally {
      root.run(List.of("ip", "netns", "del", ns));
    }
  }

  private static String count(CommandRunner runner, String script) throws Exception {
    return runner.run(List.of("sh", "-c", script)).stdout().strip();
  }

  private static String nftVersion() {
    try {
      return new CommandRunner().run(List.of("nft", "--version")).stdout().strip();
    } catch (Exception e) {
      return "nft not found";
    }
  }
}
