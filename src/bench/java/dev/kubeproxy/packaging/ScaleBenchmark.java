package dev.kubeproxy.packaging;

import dev.kubeproxy.packaging.FootprintBenchmark.Netns;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The large-cluster benchmark: the packaged agent started as the image starts it ({@code
 * bin/kube-proxy}, the container's memory limit as {@code -XX:MaxRAM}) in a scratch network
 * namespace over generated {@code --manifests} of N Services × E endpoints, per mode; prints
 * start → first sync applied, the first sync's own duration (the agent's histogram) beside the
 * kernel tool alone on the same rules in another scratch namespace (iptables only: what the agent
 * programmed, through iptables-legacy-restore), RSS and live heap after the first sync and after
 * a churn, and the churn's latencies.
 *
 * <p>The churn: 20 Services, each in a file of its own, get all their endpoints replaced one
 * Service after the other, {@code --rate} changes a second for {@code --churn-seconds}, each
 * EndpointSlice carrying {@code endpoints.kubernetes.io/last-change-trigger-time}; a Service with
 * its slice is created and the previous one deleted every second. Printed: the agent's
 * kubeproxy_network_programming_duration_seconds over the churn (p50/p99 as bucket bounds), and
 * from outside the time until a change's new endpoint chain is in the kernel (one change at a
 * time is followed, polled every 10 ms with the mode's own tool, so that figure includes up to
 * one tool run of latency).
 *
 * <pre>
 * mvn -B -q package -DskipTests
 * java -cp target/test-classes dev.kubeproxy.packaging.ScaleBenchmark [--modes nftables,iptables]
 *     [--memory-limit 512m] [--churn-seconds 60] [--rate 20] [--jar target/kube-proxy.jar]
 *     [--jvm-opts '-XX:NativeMemoryTracking=summary'] [--breakdown true] 5006x50 44125x1 100000x1
 * </pre>
 */
public final class ScaleBenchmark {
  private static final Pattern SAMPLE = Pattern.compile("(?m)^([a-z_]+)(\\{[^}]*\\})? ([-+0-9.eE]+|NaN|\\+Inf)$");
  private static final String NODE = "node-1";
  private static final int PER_FILE = 100;
  private static final int CHURNED = 20;

  private final List<String> modes;
  private final String memoryLimit;
  private final int churnSeconds;
  private final int rate;
  private final Path jar;
  private final Path launcher;
  private final String jvmOpts;
  private final boolean breakdown;

  private ScaleBenchmark(Map<String, String> opts) {
    modes = List.of(opts.getOrDefault("modes", "nftables,iptables").split(","));
    memoryLimit = opts.getOrDefault("memory-limit", "512m");
    churnSeconds = Integer.parseInt(opts.getOrDefault("churn-seconds", "60"));
    rate = Integer.parseInt(opts.getOrDefault("rate", "20"));
    jar = Path.of(opts.getOrDefault("jar", "target/kube-proxy.jar")).toAbsolutePath();
    launcher = Path.of(opts.getOrDefault("launcher", "bin/kube-proxy")).toAbsolutePath();
    jvmOpts = opts.getOrDefault("jvm-opts", "");
    breakdown = Boolean.parseBoolean(opts.getOrDefault("breakdown", "false"));
  }

  public static void main(String[] args) throws Exception {
    Map<String, String> opts = new java.util.HashMap<>();
    List<int[]> shapes = new ArrayList<>();
    for (int i = 0; i < args.length; i++) {
      if (args[i].startsWith("--")) {
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
      shapes = List.of(new int[] {5006, 50}, new int[] {44125, 1});
    }
    if (!"root".equals(System.getProperty("user.name"))) {
      System.err.println("the scale benchmark needs root (network namespaces)");
      System.exit(2);
    }
    ScaleBenchmark bench = new ScaleBenchmark(opts);
    System.out.printf("scale benchmark: launcher %s, jar %s, memory limit %s, churn %d s at %d changes/s%n",
        bench.launcher, bench.jar, bench.memoryLimit, bench.churnSeconds, bench.rate);
    for (int[] shape : shapes) {
      for (String mode : bench.modes) {
        Path dir = Files.createTempDirectory("kp-scale-");
        try {
          bench.run(mode, new Cluster(dir, shape[0], shape[1]));
        } catch (IllegalStateException e) {
          // an agent that runs out of memory at one shape is a figure of that shape, not the end of the run
          System.out.println("  FAILED: " + e.getMessage());
        } finally {
          dev.kubeproxy.testutil.TempTrees.deleteTree(dir);
        }
      }
    }
  }

  private void run(String mode, Cluster cluster) throws Exception {
    cluster.writeAll();
    System.out.printf("%n%s, %,d Services × %d endpoints (load %s)%n", mode, cluster.services, cluster.endpoints,
        load());
    try (Netns ns = Netns.create(); Netns replay = Netns.create()) {
      Path log = Files.createTempFile("kp-scale-", ".log");
      ProcessBuilder pb = new ProcessBuilder("ip", "netns", "exec", ns.name, launcher.toString(), "--manifests",
          cluster.dir.toString(), "--hostname-override", NODE, "--proxy-mode", mode, "--conntrack-max-per-core=0")
          .redirectErrorStream(true).redirectOutput(log.toFile());
      pb.environment().put("KUBE_PROXY_JAR", jar.toString());
      pb.environment().put("JAVA_OPTS", ("-XX:MaxRAM=" + memoryLimit + " " + jvmOpts).trim());
      long startMillis = System.currentTimeMillis();
      Process agent = pb.start();
      try {
        Map<String, Double> m = awaitSyncs(ns, agent, log);
        double synced = m.get("kubeproxy_sync_proxy_rules_last_timestamp_seconds") - startMillis / 1000.0;
        print("start → first sync applied (s)", synced);
        print("  first sync itself, IPv4 (s)", m.get("kubeproxy_sync_proxy_rules_duration_seconds_sum{ip_family=\"IPv4\"}"));
        if (mode.equals("iptables")) {
          print("  iptables-legacy-restore alone, same rules (s)", toolAlone(ns, replay));
        }
        memory("after the first sync", agent.pid());
        if (breakdown) {
          MemoryBreakdown.print(agent.pid());
        }
        if (churnSeconds > 0) {
          churn(mode, cluster, ns, agent);
          memory("after the churn", agent.pid());
        }
      } finally {
        agent.destroy();
        if (!agent.waitFor(20, TimeUnit.SECONDS)) {
          agent.destroyForcibly().waitFor();
        }
        System.out.println("  agent log: " + log + "; load " + load());
      }
    }
  }

  private static Map<String, Double> awaitSyncs(Netns ns, Process agent, Path log) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(20);
    while (System.nanoTime() < deadline) {
      if (!agent.isAlive()) {
        List<String> lines = Files.readAllLines(log);
        throw new IllegalStateException("the agent exited " + agent.exitValue() + ":\n"
            + String.join("\n", lines.subList(Math.max(0, lines.size() - 10), lines.size())));
      }
      Map<String, Double> m = metrics(ns);
      if (m.getOrDefault("kubeproxy_sync_proxy_rules_duration_seconds_count", 0.0) >= 2) {
        return m;
      }
      Thread.sleep(250);
    }
    throw new IllegalStateException("no first sync within 20 minutes; see " + log);
  }

  /** Every sample by name with its labels, plus per-name sums (timestamps: the latest). */
  private static Map<String, Double> metrics(Netns ns) throws IOException, InterruptedException {
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
    return out;
  }

  /** What the agent programmed, dumped and loaded by the restore tool alone into a fresh namespace. */
  private static double toolAlone(Netns from, Netns to) throws Exception {
    String dump = from.exec("iptables-legacy-save").stdout().replaceAll(" -m nfacct --nfacct-name +\\S+", "");
    return to.timedWithInput(dump, "iptables-legacy-restore");
  }

  private static void memory(String when, long pid) throws Exception {
    long rss = 0;
    for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
      if (line.startsWith("VmRSS:")) {
        rss = Long.parseLong(line.split("\\s+")[1]);
      }
    }
    Path exe = Path.of("/proc/" + pid + "/exe").toRealPath();
    String jcmd = exe.resolveSibling("jcmd").toString();
    FootprintBenchmark.run(List.of(jcmd, String.valueOf(pid), "GC.run"), null);
    String info = FootprintBenchmark.run(List.of(jcmd, String.valueOf(pid), "GC.heap_info"), null).stdout();
    Matcher mm = Pattern.compile("(?i)(generation|DefNew|Tenured|heap)\\s+total \\d+K, used (\\d+)K").matcher(info);
    long kb = 0;
    while (mm.find()) {
      kb += Long.parseLong(mm.group(2));
    }
    System.out.printf(Locale.ROOT, "  RSS / live heap %s: %.1f / %.1f MB%n", when, rss / 1024.0, kb / 1024.0);
  }

  private void churn(String mode, Cluster cluster, Netns ns, Process agent) throws Exception {
    Map<String, Double> before = metrics(ns);
    List<Double> outside = Collections.synchronizedList(new ArrayList<>());
    long[] followed = {-1, 0}; // generation followed, its write time (nanos)
    String[] expect = {null};
    Thread watcher = new Thread(() -> {
      while (!Thread.currentThread().isInterrupted()) {
        try {
          String chain;
          long t0;
          synchronized (followed) {
            chain = expect[0];
            t0 = followed[1];
          }
          if (chain == null) {
            Thread.sleep(10);
            continue;
          }
          if (visible(mode, ns, chain)) {
            outside.add((System.nanoTime() - t0) / 1e6);
            synchronized (followed) {
              expect[0] = null;
            }
          } else {
            Thread.sleep(10);
          }
        } catch (InterruptedException e) {
          return;
        } catch (IOException e) {
          throw new IllegalStateException(e);
        }
      }
    });
    watcher.start();
    long start = System.nanoTime();
    long periodNanos = TimeUnit.SECONDS.toNanos(1) / rate;
    int changes = 0;
    int created = 0;
    try {
      for (long next = start; next < start + TimeUnit.SECONDS.toNanos(churnSeconds); next += periodNanos) {
        long wait = next - System.nanoTime();
        if (wait > 0) {
          TimeUnit.NANOSECONDS.sleep(wait);
        }
        int generation = ++changes;
        String newChain = cluster.replaceEndpoints(generation, mode);
        synchronized (followed) {
          if (expect[0] == null) {
            expect[0] = newChain;
            followed[1] = System.nanoTime();
          }
        }
        if (changes % rate == 0) {
          cluster.createAndDeleteService(created++);
        }
        if (!agent.isAlive()) {
          throw new IllegalStateException("the agent exited " + agent.exitValue() + " during the churn");
        }
      }
      Thread.sleep(5000); // the last changes land
    } finally {
      watcher.interrupt();
      watcher.join();
    }
    Map<String, Double> after = metrics(ns);
    System.out.printf("  churn: %d endpoint replacements, %d Services created and deleted in %d s (load %s)%n",
        changes, created, churnSeconds, load());
    printHistogram("  network programming (agent's histogram, s)", before, after,
        "kubeproxy_network_programming_duration_seconds");
    printHistogram("  sync duration during the churn (s)", before, after, "kubeproxy_sync_proxy_rules_duration_seconds");
    List<Double> o = new ArrayList<>(outside);
    Collections.sort(o);
    if (o.isEmpty()) {
      System.out.println("  change visible in the kernel: no change followed");
    } else {
      System.out.printf(Locale.ROOT, "  change visible in the kernel (ms, %d followed): p50 %.0f  p99 %.0f  max %.0f%n",
          o.size(), o.get(o.size() / 2), o.get(Math.min(o.size() - 1, (int) Math.ceil(o.size() * 0.99) - 1)),
          o.get(o.size() - 1));
    }
  }

  /** p50 / p99 / max of a histogram's observations between two scrapes, as the bounds of their buckets. */
  private static void printHistogram(String label, Map<String, Double> before, Map<String, Double> after,
      String name) {
    TreeMap<Double, Double> cumulative = new TreeMap<>();
    Pattern le = Pattern.compile(Pattern.quote(name) + "_bucket\\{.*le=\"([^\"]+)\".*\\}");
    for (Map.Entry<String, Double> e : after.entrySet()) {
      Matcher m = le.matcher(e.getKey());
      if (m.matches()) {
        double bound = m.group(1).equals("+Inf") ? Double.POSITIVE_INFINITY : Double.parseDouble(m.group(1));
        cumulative.merge(bound, e.getValue() - before.getOrDefault(e.getKey(), 0.0), Double::sum);
      }
    }
    double count = after.getOrDefault(name + "_count", 0.0) - before.getOrDefault(name + "_count", 0.0);
    double sum = after.getOrDefault(name + "_sum", 0.0) - before.getOrDefault(name + "_sum", 0.0);
    if (count <= 0) {
      System.out.println(label + ": no observations");
      return;
    }
    System.out.printf(Locale.ROOT, "%s: %.0f observations, mean %.3f, p50 ≤ %s, p99 ≤ %s, max ≤ %s%n", label, count,
        sum / count, quantile(cumulative, count * 0.5), quantile(cumulative, count * 0.99),
        quantile(cumulative, count));
  }

  private static String quantile(TreeMap<Double, Double> cumulative, double rank) {
    for (Map.Entry<Double, Double> e : cumulative.entrySet()) {
      if (e.getValue() >= rank - 1e-9) {
        return e.getKey().isInfinite() ? "+Inf" : String.valueOf(e.getKey());
      }
    }
    return "?";
  }

  /**
   * Whether the change is in the namespace's kernel rules: iptables, the new KUBE-SEP chain exists;
   * nftables ("chain ip"), the Service chain's rule or the endpoint-ranges map it draws from holds
   * the new address.
   */
  private static boolean visible(String mode, Netns ns, String probe) throws IOException, InterruptedException {
    if (mode.equals("iptables")) {
      return ns.exec("iptables-legacy", "-w", "-t", "nat", "-S", probe).exit() == 0;
    }
    String[] chainAndIp = probe.split(" ");
    Pattern ip = Pattern.compile(Pattern.quote(chainAndIp[1]) + "(?![0-9])");
    String chain = ns.exec("nft", "list", "chain", "ip", "kube-proxy", chainAndIp[0]).stdout();
    if (ip.matcher(chain).find()) {
      return true;
    }
    Matcher map = Pattern.compile("endpoint-ranges-[a-z]+-[0-9]+").matcher(chain);
    return map.find() && ip.matcher(ns.exec("nft", "list", "map", "ip", "kube-proxy", map.group()).stdout()).find();
  }

  private static void print(String label, double seconds) {
    System.out.printf(Locale.ROOT, "  %-48s %.2f%n", label, seconds);
  }

  private static String load() {
    try {
      String[] f = Files.readString(Path.of("/proc/loadavg")).split(" ");
      return f[0] + " " + f[1] + " " + f[2];
    } catch (IOException e) {
      return "?";
    }
  }

  /**
   * The generated cluster: Services svc-0.. in files of 100 (each with one EndpointSlice of E
   * ready endpoints on another node), the churned ones first, one file each, so a change rewrites
   * a small file.
   */
  static final class Cluster {
    final Path dir;
    final int services;
    final int endpoints;

    Cluster(Path dir, int services, int endpoints) {
      this.dir = dir;
      this.services = services;
      this.endpoints = endpoints;
    }

    void writeAll() throws IOException {
      write("00-node.json", "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"" + NODE
          + "\",\"labels\":{\"kubernetes.io/hostname\":\"" + NODE + "\"}},\"status\":{\"addresses\":[{\"type\":"
          + "\"InternalIP\",\"address\":\"192.168.200.10\"}]}}\n");
      int churned = Math.min(CHURNED, services);
      for (int i = 0; i < churned; i++) {
        write(String.format("churn-%02d.json", i), list(i, i + 1, 0, null));
      }
      for (int from = churned; from < services; from += PER_FILE) {
        write(String.format("svc-%06d.json", from), list(from, Math.min(services, from + PER_FILE), 0, null));
      }
    }

    /** Change g: the churned Service g mod 20 gets all its endpoints replaced; returns what to look for in the kernel. */
    String replaceEndpoints(int g, String mode) throws IOException {
      int i = g % Math.min(CHURNED, services);
      write(String.format("churn-%02d.json", i), list(i, i + 1, g, Instant.now().toString()));
      String ip = ipv4(address(i, 0, g));
      // nftables: the Service's chain, whose rule or endpoint-ranges map holds the address;
      // iptables: the new endpoint's KUBE-SEP chain, restored in one transaction with its jump
      return mode.equals("nftables")
          ? "service-" + nftHash("bench/svc-" + i + "/tcp/http") + " " + ip
          : "KUBE-SEP-" + iptHash("bench/svc-" + i + ":http" + "tcp" + ip + ":8080");
    }

    /** Service k of the extra ones is created, k - 1 deleted. */
    void createAndDeleteService(int k) throws IOException {
      int i = services + k;
      write(String.format("extra-%06d.json", k), list(i, i + 1, 0, null));
      Files.deleteIfExists(dir.resolve(String.format("extra-%06d.json", k - 1)));
    }

    private String list(int from, int to, int generation, String triggerTime) {
      StringBuilder sb = new StringBuilder("{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[");
      for (int i = from; i < to; i++) {
        if (i > from) {
          sb.append(',');
        }
        String ip = ipv4(0x0A600000 + 10 + i);
        sb.append("{\"apiVersion\":\"v1\",\"kind\":\"Service\",\"metadata\":{\"name\":\"svc-").append(i)
            .append("\",\"namespace\":\"bench\"},\"spec\":{\"type\":\"ClusterIP\",\"clusterIP\":\"").append(ip)
            .append("\",\"clusterIPs\":[\"").append(ip).append("\"],\"ipFamilies\":[\"IPv4\"],\"ports\":[{\"name\":")
            .append("\"http\",\"port\":80,\"targetPort\":8080,\"protocol\":\"TCP\"}]}},");
        sb.append("{\"apiVersion\":\"discovery.k8s.io/v1\",\"kind\":\"EndpointSlice\",\"metadata\":{\"name\":\"svc-")
            .append(i).append("-abcde\",\"namespace\":\"bench\",\"labels\":{\"kubernetes.io/service-name\":\"svc-")
            .append(i).append("\"}");
        if (triggerTime != null) {
          sb.append(",\"annotations\":{\"endpoints.kubernetes.io/last-change-trigger-time\":\"").append(triggerTime)
              .append("\"}");
        }
        sb.append("},\"addressType\":\"IPv4\",\"ports\":[{\"name\":\"http\",\"port\":8080,\"protocol\":\"TCP\"}],"
            + "\"endpoints\":[");
        for (int j = 0; j < endpoints; j++) {
          if (j > 0) {
            sb.append(',');
          }
          sb.append("{\"addresses\":[\"").append(ipv4(address(i, j, generation))).append("\"],\"conditions\":{")
              .append("\"ready\":true,\"serving\":true,\"terminating\":false},\"nodeName\":\"node-2\"}");
        }
        sb.append("]}");
      }
      return sb.append("]}\n").toString();
    }

    /** Endpoint j of Service i in generation g: 10.64.0.0/10 holds the first ones, 10.128.0.0/10 the replacements. */
    private int address(int i, int j, int generation) {
      if (generation == 0) {
        return 0x0A400000 + i * endpoints + j;
      }
      return 0x0A800000 + ((generation * endpoints + j) & 0x3FFFFF);
    }

    private void write(String name, String text) throws IOException {
      // Written beside it and renamed: the agent never reads half a file (dot files are not manifests).
      Path tmp = dir.resolve("." + name + ".tmp");
      Files.writeString(tmp, text);
      Files.move(tmp, dir.resolve(name), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    private static String ipv4(int v) {
      return ((v >>> 24) & 255) + "." + ((v >>> 16) & 255) + "." + ((v >>> 8) & 255) + "." + (v & 255);
    }
  }

  private static final String BASE32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

  /** Upstream's iptables chain hash: the first 16 base32 characters of sha256. */
  static String iptHash(String s) {
    return base32(sha256(s), 16);
  }

  /** Upstream's nftables chain name part: 8 base32 characters of sha256, a dash, the text. */
  static String nftHash(String s) {
    return base32(sha256(s), 8) + "-" + s;
  }

  private static byte[] sha256(String s) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  private static String base32(byte[] digest, int chars) {
    StringBuilder out = new StringBuilder(chars);
    long bits = 0;
    int count = 0;
    for (int i = 0; out.length() < chars; i++) {
      bits = (bits << 8) | (digest[i] & 0xff);
      count += 8;
      while (count >= 5 && out.length() < chars) {
        count -= 5;
        out.append(BASE32.charAt((int) ((bits >> count) & 31)));
      }
    }
    return out.toString();
  }
}
