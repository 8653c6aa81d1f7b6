package dev.kubeproxy.packaging;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kubeproxy.e2e.Answer;
import dev.kubeproxy.e2e.Backend;
import dev.kubeproxy.e2e.Family;
import dev.kubeproxy.e2e.Manifests;
import dev.kubeproxy.e2e.Requirements;
import dev.kubeproxy.e2e.ServiceDef;
import dev.kubeproxy.e2e.Topology;
import dev.kubeproxy.testutil.Await;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The container image built from docker/Dockerfile (by .ci/image-build: on a local stand-in for its
 * public runtime base, with the jar this Maven run packaged handed in for its build stage, whose
 * consistency DockerfileTest holds) and run the way docker/kube-proxy.yaml's DaemonSet runs it,
 * read from that file ({@link DaemonSetContainer}): privileged, under its memory limit, with its command,
 * environment and mounts, in the node namespace of an end-to-end {@link Topology} (its hostNetwork),
 * over a --manifests directory in place of the API server. In each mode: the rules are programmed
 * in that namespace and a pod reaches a Service's endpoints through them; the probes and the
 * metrics answer where the manifest says; the heap is bounded by the limit; the class-data sharing
 * archive is mapped; SIGTERM stops the agent within the grace period with status 0 and leaves the
 * rules, as upstream does. In iptables mode a hint chain written with iptables-legacy beforehand
 * makes the image (whose default iptables is the nft one) choose legacy, as on a node whose
 * kubelet uses legacy.
 */
@Tag("image")
class ImageIT {
  private static final String IMAGE = "localhost/kube-proxy-java:it";
  private static final String MANIFESTS_IN_CONTAINER = "/etc/kube-proxy/manifests";
  private static final Family F = Family.V4;

  private static Path containersConf;
  private static Topology topo;
  private static Manifests manifests;
  private static DaemonSetContainer ds;
  private static Path work;
  private static final ServiceDef WEB = new ServiceDef("web", 10).tcpOnly()
      .endpoints(Backend.POD_A, Backend.POD_B, Backend.RPOD);

  @BeforeAll
  static void buildTheImageAndTheNode() throws Exception {
    assumeTrue(Requirements.isRoot(), "needs root to run privileged containers in test network namespaces");
    assumeTrue(Requirements.onPath("podman"), "needs podman (.ci/run installs podman, runc, mmdebstrap and the rest)");
    assumeTrue(Requirements.onPath("mmdebstrap"), "needs mmdebstrap for the local base image");
    Requirements.assumeNetnsCapable();
    assumeTrue(Requirements.onPath("iptables-legacy"), "needs iptables-legacy to write the legacy hint chain");
    ds = DaemonSetContainer.read();

    Path logs = Files.createDirectories(Path.of("target", "image-logs").toAbsolutePath());
    long start = System.nanoTime();
    Process build = new ProcessBuilder(".ci/image-build", IMAGE)
        .redirectError(logs.resolve("build.log").toFile()).start();
    String out = new String(build.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
    assertTrue(build.waitFor(15, TimeUnit.MINUTES), "the image build finished");
    assertEquals(0, build.exitValue(), "the image build; see " + logs.resolve("build.log"));
    containersConf = Path.of(out.substring(out.lastIndexOf('\n') + 1));
    long size = Long.parseLong(podman("image", "inspect", "--format", "{{.Size}}", IMAGE).trim());
    System.out.printf("image %s: built in %d s, %d MB%n", IMAGE,
        TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start), size / 1_000_000);

    topo = Topology.create("image");
    work = topo.classDir("image");
    manifests = new Manifests(work.resolve("manifests"), List.of(F));
    manifests.put(WEB);
  }

  @AfterAll
  static void tearDown() {
    if (topo != null) {
      topo.close();
    }
  }

  @Test
  void iptablesModeOnTheBackendTheNodesHintChainNames() throws Exception {
    topo.resetNode();
    // kubelet's hint, written with the backend that is not the image's default (Debian's: nft)
    topo.node().must("iptables-legacy", "-w", "5", "-t", "mangle", "-N", "KUBE-IPTABLES-HINT");
    Agent agent = Agent.start("iptables");
    try {
      String legacy = Await.until("the web Service's rules in iptables-legacy's nat table", Duration.ofSeconds(60),
          () -> agent.aliveOrFail(() -> topo.node().output("iptables-legacy-save", "-t", "nat")),
          s -> s.contains(WEB.clusterIp(F)));
      assertTrue(legacy.contains(":KUBE-SERVICES"), legacy);
      String nft = topo.node().output("iptables-nft-save", "-t", "nat");
      assertFalse(nft.contains("KUBE-SERVICES"), "nothing written with the other backend: " + nft);
      agent.checkRunning();
      agent.stopAndCheck();
      assertTrue(topo.node().output("iptables-legacy-save", "-t", "nat").contains(WEB.clusterIp(F)),
          "the rules stay after SIGTERM, as upstream leaves them");
    } finally {
      agent.remove();
    }
  }

  @Test
  void nftablesMode() throws Exception {
    topo.resetNode();
    Agent agent = Agent.start("nftables");
    try {
      Await.until("the web Service in nftables table ip kube-proxy", Duration.ofSeconds(60),
          () -> agent.aliveOrFail(() -> topo.node().output("nft", "list", "table", "ip", "kube-proxy")),
          s -> s.contains(WEB.clusterIp(F)));
      agent.checkRunning();
      agent.stopAndCheck();
      assertTrue(topo.node().output("nft", "list", "table", "ip", "kube-proxy").contains(WEB.clusterIp(F)),
          "the rules stay after SIGTERM, as upstream leaves them");
    } finally {
      agent.remove();
    }
  }

  /** One container of the DaemonSet's, in one proxy mode. */
  private static final class Agent {
    final String name;
    final String mode;

    private Agent(String name, String mode) {
      this.name = name;
      this.mode = mode;
    }

    static Agent start(String mode) throws IOException, InterruptedException {
      String name = "kp-image-it-" + mode + "-" + UUID.randomUUID().toString().substring(0, 6);
      List<String> cmd = new ArrayList<>(List.of("run", "--detach"));
      cmd.addAll(ds.podmanRun(name, IMAGE, "/run/netns/" + topo.node().name(), Manifests.NODE_NAME, F.nodeIp(),
          work.resolve("config-" + mode), config -> edit(config, mode),
          Map.of("/run/xtables.lock", topo.xtablesLock()),
          // the Services in place of the API server's, beside the DaemonSet's own volumes
          List.of("--volume", manifests.dir() + ":" + MANIFESTS_IN_CONTAINER + ":ro"),
          List.of("--manifests=" + MANIFESTS_IN_CONTAINER)));
      Files.writeString(work.resolve("podman-run-" + mode + ".txt"), String.join("\n", cmd) + "\n");
      podman(cmd.toArray(String[]::new));
      return new Agent(name, mode);
    }

    /**
     * The operator's edits of the ConfigMap: the mode, and no nf_conntrack_max (a host-wide sysctl,
     * read-only outside the host's first namespace; a real node's kube-proxy runs in that one).
     */
    private static ObjectNode edit(ObjectNode config, String mode) {
      config.put("mode", mode);
      ((ObjectNode) config.get("conntrack")).put("maxPerCore", 0);
      return config;
    }

    <T> T aliveOrFail(java.util.function.Supplier<T> probe) {
      String state = state();
      if (!state.startsWith("running")) {
        throw new AssertionError("the container is " + state + "; its log ends with:\n" + tail());
      }
      return probe.get();
    }

    String state() {
      return podman("inspect", "--format", "{{.State.Status}} {{.State.ExitCode}}", name).trim();
    }

    String log() {
      return podman("logs", name);
    }

    String tail() {
      List<String> lines = log().lines().toList();
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
    }

    long pid() {
      return Long.parseLong(podman("inspect", "--format", "{{.State.Pid}}", name).trim());
    }

    /** What must hold while it runs: traffic, probes, metrics, heap, CDS, the JVM as PID 1. */
    void checkRunning() throws IOException {
      var node = topo.host("node");
      String healthz = "http://127.0.0.1:" + ds.port("healthz") + "/healthz";
      Answer health = Await.until(mode + ": /healthz 200 on the port named healthz", Duration.ofSeconds(60),
          () -> aliveOrFail(() -> node.http(healthz)), a -> a.httpStatus() == 200);
      assertTrue(health.raw().contains("lastUpdated"), health.raw());
      Answer livez = node.http("http://127.0.0.1:" + ds.livenessPort() + ds.livenessPath());
      assertEquals(200, livez.httpStatus(), "the liveness probe's port and path: " + livez);

      // a pod on this node reaches the Service's endpoints, on this node and on the other
      Set<String> reached = new HashSet<>();
      Await.until(mode + ": pod-c -> " + WEB.clusterIp(F) + " reaches pod-a, pod-b and rpod", Duration.ofSeconds(30), () -> {
        Answer a = topo.host("pod-c").tcp(WEB.clusterIp(F), ServiceDef.TCP);
        if (a.ok()) {
          reached.add(a.backend());
        }
        return reached;
      }, r -> r.containsAll(Set.of("pod-a", "pod-b", "rpod")));

      // metrics on the ConfigMap's metricsBindAddress
      String metricsAddress = ds.config().get("metricsBindAddress").asText();
      Answer metrics = node.http("http://" + metricsAddress + "/metrics");
      assertEquals(200, metrics.httpStatus(), metrics.toString());
      long limit = ds.memoryLimitBytes();
      Matcher limitMetric = Pattern.compile("process_memory_limit_bytes ([0-9][0-9.eE+]*)").matcher(metrics.raw());
      assertTrue(limitMetric.find() && Double.parseDouble(limitMetric.group(1)) == limit,
          "the cgroup's limit is the DaemonSet's " + limit + ": " + processLines(metrics.raw()));
      assertTrue(metrics.raw().contains("kubeproxy_sync_proxy_rules_duration_seconds_count"), "the proxier's meters");

      // the heap's bound follows the limit (the launcher's share of it, less one survivor space)
      Matcher heap = Pattern.compile("maxHeapBytes=(\\d+)").matcher(log());
      assertTrue(heap.find(), "the agent logs its heap bound: " + tail());
      long maxHeap = Long.parseLong(heap.group(1));
      assertTrue(maxHeap <= 0.6 * limit && maxHeap >= 0.5 * limit,
          "max heap " + maxHeap + " against the limit " + limit);
      System.out.printf("%s: max heap %d MB under a %d MiB limit%n", mode, maxHeap / 1_000_000, limit >> 20);

      // the JVM itself is the container's first process (the launcher execs it), with the archive mapped
      long pid = pid();
      assertEquals("java", Files.readString(Path.of("/proc", Long.toString(pid), "comm")).trim(),
          "the container's first process is the JVM, which handles SIGTERM");
      String maps = Files.readString(Path.of("/proc", Long.toString(pid), "maps"));
      assertTrue(maps.contains("/kube-proxy.jsa"), "the class-data sharing archive is mapped, not skipped");
    }

    /** SIGTERM as the kubelet sends it (SIGKILL after the grace period); the agent exits 0 before that. */
    void stopAndCheck() {
      long grace = ds.terminationGraceSeconds();
      long start = System.nanoTime();
      podman("stop", "--time=" + grace, name);
      long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
      String state = state();
      System.out.printf("%s: stopped %d ms after SIGTERM (%s)%n", mode, ms, state);
      assertEquals("exited 0", state, "exit status after SIGTERM; log:\n" + tail());
      assertTrue(ms < grace * 1000, "stopped within the grace period of " + grace + " s: " + ms + " ms");
    }

    void remove() {
      try {
        Files.writeString(work.resolve("container-" + mode + ".log"), log());
      } catch (IOException | RuntimeException e) {
        // the log is diagnosis only
      }
      podmanResult("rm", "--force", name);
    }
  }

  /** The process_* samples of a scrape (one line in an Answer), for a failure message. */
  private static String processLines(String scrape) {
    Matcher m = Pattern.compile("process_\\w+(\\{[^}]*\\})? \\S+").matcher(scrape);
    List<String> found = new ArrayList<>();
    while (m.find()) {
      found.add(m.group());
    }
    return String.join(", ", found);
  }

  private static String podman(String... args) {
    Result r = podmanResult(args);
    if (r.status != 0) {
      throw new IllegalStateException("podman " + String.join(" ", args) + " exited " + r.status + ": " + r.output);
    }
    return r.output;
  }

  private record Result(int status, String output) {}

  private static Result podmanResult(String... args) {
    List<String> cmd = new ArrayList<>(List.of("podman"));
    cmd.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
    if (containersConf != null) {
      pb.environment().put("CONTAINERS_CONF", containersConf.toString());
    }
    try {
      Process p = pb.start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!p.waitFor(2, TimeUnit.MINUTES)) {
        p.destroyForcibly();
        return new Result(-1, out + " (timed out)");
      }
      return new Result(p.exitValue(), out);
    } catch (IOException e) {
      return new Result(-1, e.toString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new Result(-1, e.toString());
    }
  }
}
