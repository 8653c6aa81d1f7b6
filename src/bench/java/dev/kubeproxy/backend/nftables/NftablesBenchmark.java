package dev.kubeproxy.backend.nftables;

import dev.kubeproxy.backend.nftables.objects.Nftables;
import dev.kubeproxy.backend.nftables.objects.NftablesException;
import dev.kubeproxy.backend.nftables.objects.Transaction;

import dev.kubeproxy.backend.nftables.CountingNetlink;
import dev.kubeproxy.backend.nftables.Fixtures;
import dev.kubeproxy.backend.nftables.NftCommand;
import dev.kubeproxy.backend.nftables.NftablesProxier;

import dev.kubeproxy.metrics.ProxyMetrics;
import dev.kubeproxy.host.CommandRunner;
import dev.kubeproxy.host.ProcessCommandRunner;
import dev.kubeproxy.model.Endpoint;
import dev.kubeproxy.net.IpFamily;
import dev.kubeproxy.model.LocalTrafficDetector;
import dev.kubeproxy.model.NamespacedName;
import dev.kubeproxy.model.ProxierSettings;
import dev.kubeproxy.model.ProxyState;
import dev.kubeproxy.model.ServicePort;
import dev.kubeproxy.model.ServicePortName;
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
 * N Services × 10 endpoints into a scratch network namespace (generation and rendering time,
 * transaction size, nft time, agent-to-kernel ratio), then one-endpoint changes of three kinds
 * (transaction size and time from the model update to nft returning), then the periodic resync.
 * Needs root and nft; writes only into the namespace it creates.
 *
 * <pre>
 * mvn -B -o -q test-compile dependency:build-classpath -Dmdep.outputFile=target/cp.txt
 * java -XX:+UseSerialGC -cp target/classes:target/test-classes:$(cat target/cp.txt) \
 *     dev.kubeproxy.backend.nftables.NftablesBenchmark 1000 10000
 * </pre>
 * (Run as root on an otherwise idle machine, with the collector the image uses; with the JVM's
 * default G1 on two cores the agent's wall time includes its concurrent GC threads. At 10,000
 * Services the whole run takes about three minutes, most of it the first full load and the
 * read-backs of the resyncs.)
 */
public final class NftablesBenchmark {
  private static final int ENDPOINTS = 10;
  private static final int CHANGES_PER_KIND = 15;
  private static final int WARMUP_SYNCS = 30;
  private static final int WARMUP_CHANGES = 300;
  private static final int FULL_SYNC_RUNS = 5;
  private static final int RESYNC_RUNS = 5;

  /** Times the agent's rendering of a transaction and nft's run of it apart. */
  static final class TimedNftables implements Nftables {
    final NftCommand delegate;
    /** Runs "nft -f -" on the rendered text, so that rendering and nft are timed apart. */
    final CommandRunner runner;
    final IpFamily family;
    long renderNanos;
    long runNanos;
    long listNanos;
    long runCpuMillis;
    int lastBytes;
    int lastCommands;

    TimedNftables(NftCommand delegate, CommandRunner runner, IpFamily family) {
      this.delegate = delegate;
      this.runner = runner;
      this.family = family;
    }

    void reset() {
      renderNanos = 0;
      runNanos = 0;
      listNanos = 0;
      runCpuMillis = 0;
    }

    @Override
    public void run(Transaction tx) throws NftablesException {
      long t = System.nanoTime();
      String input = tx.render(family, delegate.objectComments());
      renderNanos += System.nanoTime() - t;
      lastBytes = input.length();
      lastCommands = tx.size();
      t = System.nanoTime();
      long cpu = childrenCpuMillis();
      CommandRunner.Result applied;
      try {
        applied = runner.run(List.of("nft", "-f", "-"), input);
      } catch (java.io.IOException e) {
        throw new NftablesException("cannot run nft: " + e.getMessage(), e);
      }
      if (!applied.ok()) {
        throw new NftablesException("nft -f - failed: " + applied.stderr(), null, false);
      }
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

  }

  /** Renders and discards transactions (generation-only runs to warm up and time the agent's own work). */
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

  }

  /** The kinds of one-endpoint change: same count (elements only) or one more or fewer (chain rewritten). */
  enum ChangeKind { REPLACED, ADDED, REMOVED }

  /** The model the changes apply to: services, their current endpoints, and fresh pod IPs. */
  static final class Workload {
    final ProxyState initial;
    final List<ServicePortName> names;
    final Map<ServicePortName, List<Endpoint>> current;
    private int nextPod;

    Workload(ProxyState initial, List<ServicePortName> names) {
      this.initial = initial;
      this.names = names;
      this.current = new HashMap<>(initial.endpoints());
    }

    /** The state after one endpoint of the n-th picked service changed as the kind says. */
    ProxyState change(ChangeKind kind, int n) {
      ServicePortName name = names.get((n * 7919 + kind.ordinal() * 104729) % names.size());
      List<Endpoint> list = new ArrayList<>(current.get(name));
      int pod = nextPod++;
      Endpoint fresh = new Endpoint("10.250." + (pod / 250) % 256 + "." + (pod % 250 + 1), 8080, false, true, true,
          false, Set.of());
      switch (kind) {
        case REPLACED -> list.set(list.size() - 1, fresh);
        case ADDED -> list.add(fresh);
        case REMOVED -> list.remove(list.size() - 1);
      }
      list.sort((a, b) -> a.endpoint().compareTo(b.endpoint()));
      current.put(name, List.copyOf(list));
      return now(Set.of(name.service()));
    }

    ProxyState now(Set<NamespacedName> changed) {
      return new ProxyState(initial.services(), Map.copyOf(current), changed, Map.of(), initial.serviceCIDRs(),
          Map.of());
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

  /** Times one kind of one-endpoint change; prints size, event-to-applied time and its split. */
  private static void changes(NftablesProxier p, TimedNftables nft, CountingNetlink netlink, Workload model,
      ChangeKind kind) throws Exception {
    long[] total = new long[CHANGES_PER_KIND];
    long[] kernel = new long[CHANGES_PER_KIND];
    long[] cpu = new long[CHANGES_PER_KIND];
    java.lang.management.ThreadMXBean threads = java.lang.management.ManagementFactory.getThreadMXBean();
    long batchesBefore = netlink == null ? 0 : netlink.batches();
    Transaction tx = null;
    for (int c = 0; c < CHANGES_PER_KIND; c++) {
      nft.reset();
      long netlinkBefore = netlink == null ? 0 : netlink.nanos();
      long cpu0 = threads.getCurrentThreadCpuTime();
      long start = System.nanoTime();
      p.sync(model.change(kind, c));
      total[c] = System.nanoTime() - start;
      cpu[c] = threads.getCurrentThreadCpuTime() - cpu0;
      kernel[c] = nft.runNanos + (netlink == null ? 0 : netlink.nanos() - netlinkBefore);
      tx = p.lastTransaction();
    }
    long[] agent = new long[CHANGES_PER_KIND];
    for (int c = 0; c < CHANGES_PER_KIND; c++) {
      agent[c] = total[c] - kernel[c];
    }
    Arrays.sort(total);
    Arrays.sort(kernel);
    Arrays.sort(agent);
    Arrays.sort(cpu);
    String path = netlink == null ? "nft -f"
        : "netlink (" + (netlink.batches() - batchesBefore) + " of " + CHANGES_PER_KIND + " changes)";
    System.out.printf("target one endpoint %s via %s: %d commands (%,d bytes as nft text); event to applied median"
        + " %.1f ms, max %.1f ms (agent median %.1f ms, kernel/nft median %.1f ms; CPU of the syncing thread, kernel"
        + " included for netlink, median %.1f ms; load %s)%n",
        kind.name().toLowerCase(java.util.Locale.ROOT), path, tx.size(), tx.render(IpFamily.IPv4).length(),
        total[CHANGES_PER_KIND / 2] / 1e6, total[CHANGES_PER_KIND - 1] / 1e6, agent[CHANGES_PER_KIND / 2] / 1e6,
        kernel[CHANGES_PER_KIND / 2] / 1e6, cpu[CHANGES_PER_KIND / 2] / 1e6, load());
  }

  static long threadCpuMillis() {
    return java.lang.management.ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime() / 1_000_000;
  }

  /** Bytes this thread has allocated so far (-1 where the JVM cannot tell). */
  static long threadAllocatedBytes() {
    return CountingNetlink.threadAllocatedBytes();
  }

  /** Collections so far and the time they took (all threads stop for them). */
  static long[] collections() {
    long[] c = new long[2];
    for (var gc : java.lang.management.ManagementFactory.getGarbageCollectorMXBeans()) {
      c[0] += Math.max(0, gc.getCollectionCount());
      c[1] += Math.max(0, gc.getCollectionTime());
    }
    return c;
  }

  public static void main(String[] args) throws Exception {
    int[] sizes = args.length == 0 ? new int[] {1000, 10000} : Arrays.stream(args).mapToInt(Integer::parseInt).toArray();
    ProxierSettings settings = new ProxierSettings(IpFamily.IPv4, "node-a", List.of("192.168.200.1"),
        List.of("192.168.200.1/32"), false, 14, false, new LocalTrafficDetector("ClusterCIDR", "10.244.0.0/16"),
        Duration.ofHours(1), Duration.ofSeconds(1), null);
    System.out.printf("nftables benchmark: %s, %d cores, Java %s, max heap %,d MiB%n", nftVersion(),
        Runtime.getRuntime().availableProcessors(), System.getProperty("java.version"),
        Runtime.getRuntime().maxMemory() >> 20);
    for (int n : sizes) {
      run(settings, n);
    }
  }

  static Workload workload(int services) {
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
    return new Workload(new ProxyState(Map.copyOf(svcs), Map.copyOf(eps), Set.of(), Map.of(),
        List.of("10.96.0.0/16"), Map.of()), names);
  }

  private static void run(ProxierSettings settings, int services) throws Exception {
    Workload model = workload(services);
    ProxyState state = model.initial;

    // The agent's own work for a full sync (building and rendering the transaction): the first
    // run in this JVM (cold: interpreted while the JIT compiles), then the median of runs after
    // the JIT has compiled the generator (a running agent repeats it at every periodic resync).
    long[] gen = new long[9];
    long[] genCpu = new long[9];
    long coldGen = 0;
    DiscardNftables discard = new DiscardNftables();
    for (int r = 0; r < gen.length + WARMUP_SYNCS; r++) {
      NftablesProxier p = new NftablesProxier(settings, new ProcessCommandRunner(), discard, new ProxyMetrics(),
          Clock.systemUTC(), List::of);
      if (r >= WARMUP_SYNCS) {
        System.gc(); // not the garbage of the runs before (a running agent syncs fully once per period)
      }
      long t = System.nanoTime();
      long c0 = threadCpuMillis();
      p.sync(state);
      if (r == 0) {
        coldGen = System.nanoTime() - t;
      } else if (r >= WARMUP_SYNCS) {
        gen[r - WARMUP_SYNCS] = System.nanoTime() - t;
        genCpu[r - WARMUP_SYNCS] = threadCpuMillis() - c0;
      }
    }
    Arrays.sort(gen);
    Arrays.sort(genCpu);
    long warmGen = gen[gen.length / 2];

    // Warm up the partial-sync path the same way (a running agent has made such changes before).
    Workload warmup = workload(services);
    NftablesProxier warm = new NftablesProxier(settings, new ProcessCommandRunner(), discard, new ProxyMetrics(),
        Clock.systemUTC(), List::of);
    warm.sync(warmup.initial);
    for (int c = 0; c < WARMUP_CHANGES; c++) {
      warm.sync(warmup.change(ChangeKind.values()[c % 3], c));
    }

    String ns = "kp-nftr-bench-" + UUID.randomUUID().toString().substring(0, 6);
    CommandRunner root = new ProcessCommandRunner();
    if (!root.run(List.of("ip", "netns", "add", ns)).ok()) {
      throw new IllegalStateException("cannot create namespace " + ns + " (root needed)");
    }
    try {
      CommandRunner inNs = CommandRunner.inNetns(ns);
      TimedNftables nft = new TimedNftables(new NftCommand(IpFamily.IPv4, inNs), inNs, IpFamily.IPv4);
      Fixtures.TestClock clock = new Fixtures.TestClock(); // moved by hand to reach the sync period
      NftablesProxier p;
      // The full sync as the agent runs it: one netlink batch (nft -f only as the fallback), into
      // an empty table: this JVM's first one (the encoder not yet compiled: a fresh agent's first
      // sync is colder still), then the median of FULL_SYNC_RUNS more (each a fresh proxier's
      // load, the table deleted in between; a running agent rewrites after a refused reconcile).
      CountingNetlink netlink = CountingNetlink.open(IpFamily.IPv4, ns);
      long[] fullNanos = new long[FULL_SYNC_RUNS + 1];
      long[] fullCpu = new long[fullNanos.length];
      long[] fullEncode = new long[fullNanos.length];
      long[] fullKernel = new long[fullNanos.length];
      for (int r = 0; r < fullNanos.length; r++) {
        if (r > 0) {
          count(inNs, "nft delete table ip kube-proxy");
        }
        p = new NftablesProxier(settings, inNs, nft, new ProxyMetrics(), clock, List::of);
        p.useNetlink(netlink);
        long sentBefore = netlink.nanos();
        long encodeBefore = netlink.encodeNanos();
        System.gc();
        long cpu = threadCpuMillis();
        long t = System.nanoTime();
        p.sync(state);
        fullNanos[r] = System.nanoTime() - t;
        fullCpu[r] = threadCpuMillis() - cpu;
        fullEncode[r] = netlink.encodeNanos() - encodeBefore;
        fullKernel[r] = netlink.nanos() - sentBefore - fullEncode[r];
      }
      System.out.printf("%n== %,d Services x %d endpoints%n", services, ENDPOINTS);
      System.out.printf("full sync %,d x %d over netlink, this JVM's first: %,d ms (agent before the batch %,d ms,"
          + " encoding %,d ms, kernel %,d ms; CPU of the syncing thread, kernel included, %,d ms; load %s)%n", services,
          ENDPOINTS, fullNanos[0] / 1_000_000, (fullNanos[0] - fullEncode[0] - fullKernel[0]) / 1_000_000,
          fullEncode[0] / 1_000_000, fullKernel[0] / 1_000_000, fullCpu[0], load());
      int mid = 1 + FULL_SYNC_RUNS / 2;
      long[][] parts = {fullNanos, fullCpu, fullEncode, fullKernel};
      long[] medians = new long[parts.length];
      for (int i = 0; i < parts.length; i++) {
        long[] runs = Arrays.copyOfRange(parts[i], 1, parts[i].length);
        Arrays.sort(runs);
        medians[i] = runs[runs.length / 2];
      }
      System.out.printf("target full sync %,d x %d over netlink, start of sync to kernel answer, median of %d: %,d ms"
          + " (agent before the batch %,d ms, encoding %,d ms, kernel %,d ms, each a median; CPU of the syncing thread,"
          + " kernel included, %,d ms; load %s)%n", services, ENDPOINTS, FULL_SYNC_RUNS, medians[0] / 1_000_000,
          (medians[0] - medians[2] - medians[3]) / 1_000_000, medians[2] / 1_000_000, medians[3] / 1_000_000,
          medians[1], load());
      long fullTotal;
      long t;
      count(inNs, "nft delete table ip kube-proxy");
      p = new NftablesProxier(settings, inNs, nft, new ProxyMetrics(), clock, List::of);
      nft.reset();
      System.gc();
      t = System.nanoTime();
      p.sync(state);
      fullTotal = System.nanoTime() - t;
      long agent = fullTotal - nft.runNanos - nft.listNanos;
      System.out.printf("(%,d service chains)%n",
          Integer.parseInt(count(inNs, "nft list chains ip | grep -c 'chain service-[A-Z2-7]*-'")));
      System.out.printf("full sync %,d x %d through nft -f (the fallback), start of sync to kernel answer: %,d ms (nft -f %,d ms wall,"
          + " %,d ms CPU; agent %,d ms; load %s)%n", services, ENDPOINTS, fullTotal / 1_000_000, nft.runNanos / 1_000_000,
          nft.runCpuMillis, (fullTotal - nft.runNanos) / 1_000_000, load());
      System.out.printf("full sync: transaction %,d commands / %,.1f MiB; nft -f %,d ms (%,d ms CPU),"
          + " reading which chains exist %,d ms%n", nft.lastCommands, nft.lastBytes / 1048576.0,
          nft.runNanos / 1_000_000, nft.runCpuMillis, nft.listNanos / 1_000_000);
      System.out.printf("  agent (build and render the transaction): this sync %,d ms (rendering %,d ms);"
          + " warm median %,d ms (%,d ms CPU); first sync in a fresh JVM %,d ms%n", agent / 1_000_000,
          nft.renderNanos / 1_000_000, warmGen / 1_000_000, genCpu[genCpu.length / 2], coldGen / 1_000_000);
      System.out.printf("  agent-to-kernel ratio: this sync %.1f %%, warm %.1f %% by wall time, %.1f %% by CPU;"
          + " a fresh JVM's first sync %.1f %%%n", 100.0 * agent / nft.runNanos, 100.0 * warmGen / nft.runNanos,
          100.0 * genCpu[genCpu.length / 2] / Math.max(1, nft.runCpuMillis), 100.0 * coldGen / nft.runNanos);

      // One-endpoint changes: from the model update (a new state snapshot) to the kernel's answer,
      // first as the agent runs (netlink for partial syncs), then with nft -f for comparison.
      p.useNetlink(netlink);
      for (int c = 0; c < WARMUP_CHANGES / 3; c++) {
        p.sync(model.change(ChangeKind.values()[c % 3], 1000 + c));
      }
      for (boolean viaNetlink : new boolean[] {true, false}) {
        p.useNetlink(viaNetlink ? netlink : null);
        for (ChangeKind kind : ChangeKind.values()) {
          changes(p, nft, viaNetlink ? netlink : null, model, kind);
        }
      }

      // What an operator's own nft commands cost on this table (nft 1.0.6 reads every interval
      // set's elements before it adds or deletes an element anywhere in the table).
      for (String cmd : List.of("nft list ruleset > /dev/null", "nft list table ip kube-proxy > /dev/null",
          "nft add element ip kube-proxy cluster-ips '{ 10.96.255.254 }'",
          "nft delete element ip kube-proxy cluster-ips '{ 10.96.255.254 }'")) {
        long cpu = childrenCpuMillis();
        t = System.nanoTime();
        count(inNs, cmd);
        System.out.printf("operator's command on the populated table: %s: %,d ms (%,d ms CPU)%n", cmd,
            (System.nanoTime() - t) / 1_000_000, childrenCpuMillis() - cpu);
      }

      // The full resync on a populated table: read back and compared (the chains that partial
      // syncs wrote are rewritten once), then the same with nothing left to change, RESYNC_RUNS
      // times (the first runs of this path are still being compiled). The table is read on a
      // thread of its own while the syncing thread builds and compares the desired one.
      p.useNetlink(netlink);
      long[] unchanged = new long[RESYNC_RUNS];
      for (int run = -1; run < RESYNC_RUNS; run++) {
        p.requestFullSync();
        nft.reset();
        netlink.resetReads();
        long sent = netlink.nanos();
        long[] gc = collections();
        t = System.nanoTime();
        long cpu = threadCpuMillis();
        long allocated = threadAllocatedBytes();
        p.sync(model.now(Set.of()));
        long elapsed = System.nanoTime() - t;
        long syncAllocated = threadAllocatedBytes() - allocated;
        long[] gcAfter = collections();
        if (run >= 0) {
          unchanged[run] = elapsed;
        }
        System.out.printf("full resync of the populated table, read back over netlink (%s): %,d ms (reading"
            + " %,d ms, sending %,d ms, transaction %,d commands; CPU of the syncing thread %,d ms, of the reading"
            + " thread %,d ms, %,d ms of it in the kernel's dumps; allocated by the syncing thread %,d MB, by the reading"
            + " thread %,d MB; %d collections, %,d ms; load %s)%n", run < 0 ? "after the changes above" : "nothing changed",
            elapsed / 1_000_000, netlink.readNanos() / 1_000_000, (netlink.nanos() - sent + nft.runNanos) / 1_000_000,
            p.lastTransaction().size(), threadCpuMillis() - cpu, netlink.readCpuNanos() / 1_000_000,
            netlink.readKernelNanos() / 1_000_000,
            syncAllocated >> 20, netlink.readAllocatedBytes() >> 20, gcAfter[0] - gc[0],
            gcAfter[1] - gc[1], load());
      }
      Arrays.sort(unchanged);
      System.out.printf("target full resync of the populated table, read back over netlink, nothing changed, median of"
          + " %d: %,d ms%n", RESYNC_RUNS, unchanged[RESYNC_RUNS / 2] / 1_000_000);
      // The periodic resync while nobody else commits: no read-back (nf_tables' generation number).
      clock.advance(settings.syncPeriod().plusSeconds(1));
      nft.reset();
      netlink.resetReads();
      t = System.nanoTime();
      p.sync(model.now(Set.of()));
      System.out.printf("periodic resync, nobody else committed since: %.1f ms (read-backs %d)%n",
          (System.nanoTime() - t) / 1e6, netlink.reads());

      // The same after drift: one service chain flushed by hand.
      String flushed = count(inNs, "nft list chains ip | grep -m1 -o 'service-[A-Z2-7]*-bench/[^ ]*'");
      count(inNs, "nft flush chain ip kube-proxy '" + flushed + "'");
      p.requestFullSync();
      nft.reset();
      netlink.resetReads();
      t = System.nanoTime();
      p.sync(model.now(Set.of()));
      System.out.printf("periodic full resync after one chain was flushed by hand: %,d ms"
          + " (read-back %,d ms, transaction %,d commands; restored: %s)%n",
          (System.nanoTime() - t) / 1_000_000, netlink.readNanos() / 1_000_000, p.lastTransaction().size(),
          !count(inNs, "nft list chain ip kube-proxy '" + flushed + "' | grep -c dnat").equals("0"));
    } finally {
      root.run(List.of("ip", "netns", "del", ns));
    }
  }

  private static String count(CommandRunner runner, String script) throws Exception {
    return runner.run(List.of("sh", "-c", script)).stdout().strip();
  }

  private static String load() {
    try {
      return java.nio.file.Files.readString(java.nio.file.Path.of("/proc/loadavg")).split(" ")[0];
    } catch (java.io.IOException e) {
      return "?";
    }
  }

  private static String nftVersion() {
    try {
      return new ProcessCommandRunner().run(List.of("nft", "--version")).stdout().strip();
    } catch (Exception e) {
      return "nft not found";
    }
  }
}
