package dev.kubeproxy.e2e;

import dev.kubeproxy.host.CommandRunner;
import dev.kubeproxy.testutil.Await;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The packaged agent ({@code target/kube-proxy.jar}) running in the node namespace of a
 * {@link Topology}, reading its cluster from a {@link Manifests} directory. Its output goes to
 * a log file next to the topology's other logs, for diagnosis.
 */
public final class KubeProxyAgent implements AutoCloseable {
  public static final int HEALTHZ_PORT = 10256;
  public static final int METRICS_PORT = 10249;
  /**
   * JVM options for the agent under test: the client compiler and the serial collector start a
   * short-lived JVM faster on a small shared machine. They change no behaviour the checks see.
   */
  static final List<String> JVM_OPTIONS = List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC");

  private final Topology topo;
  private final Path jar;
  private final List<String> args;
  private final List<String> pathPrefix;
  private final Path log;
  private Process process;
  private boolean stopped;

  /**
   * @param mode      "iptables" or "nftables"
   * @param families  the cluster's families (cluster CIDRs follow them)
   * @param binDir    a folder put first on the agent's PATH (to pin the iptables variant), or null
   * @param extraArgs further flags for the scenario
   */
  public KubeProxyAgent(Topology topo, Path jar, String mode, Manifests manifests, List<Family> families,
      Path binDir, Path logDir, List<String> extraArgs) {
    this.topo = topo;
    this.jar = jar;
    this.pathPrefix = binDir == null ? List.of() : List.of(binDir.toString());
    this.log = logDir.resolve("agent-" + mode + ".log");
    List<String> a = new ArrayList<>(List.of(
        "--manifests", manifests.dir().toString(),
        "--hostname-override", Manifests.NODE_NAME,
        "--proxy-mode", mode,
        "--cluster-cidr", String.join(",", families.stream().map(Family::clusterCidr).toList()),
        "--healthz-bind-address", "127.0.0.1:" + HEALTHZ_PORT,
        "--metrics-bind-address", "127.0.0.1:" + METRICS_PORT,
        // nf_conntrack_max is a host-wide sysctl, read-only outside the initial namespace: leave
        // it alone, as kind and other nested setups do (upstream fails to start otherwise too).
        "--conntrack-max-per-core", "0",
        "-v=2"));
    a.addAll(extraArgs);
    this.args = List.copyOf(a);
  }

  public Path log() {
    return log;
  }

  public void start() throws IOException {
    Files.writeString(log, "# " + String.join(" ", command(args)) + "\n");
    ProcessBuilder pb = new ProcessBuilder(command(args))
        .redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
    environment(pb);
    process = pb.start();
  }

  public boolean alive() {
    return process != null && process.isAlive();
  }

  /** Waits until /healthz answers 200 (the first sync of every family is done). */
  public void awaitHealthy(Duration timeout) {
    Await.until("the agent's /healthz to answer 200 (agent log: " + log + ")", timeout, () -> {
      if (!alive()) {
        throw new AssertionError("the agent exited with " + process.exitValue() + "; its log " + log
            + " ends with:\n" + tail(40));
      }
      return topo.host("node").http("http://127.0.0.1:" + HEALTHZ_PORT + "/healthz");
    }, a -> a.httpStatus() == 200);
  }

  /** GET on the metrics server from inside the node namespace. */
  public Answer metrics(String path) {
    return topo.host("node").http("http://127.0.0.1:" + METRICS_PORT + path);
  }

  /**
   * Stops the agent with SIGTERM and returns its exit status (-1 when unknown). An agent still
   * running 15 s later gets SIGQUIT first (the JVM prints its threads into the log), then
   * SIGKILL. A JVM that has exited but whose process the kernel is still tearing down (a zombie
   * with a thread in uninterruptible sleep, seen on this loaded VM) counts as stopped: its
   * threads' kernel states go to the log and the test goes on.
   */
  public int stop() {
    if (process == null || stopped) {
      return -1;
    }
    stopped = true;
    long start = System.nanoTime();
    process.destroy();
    try {
      long deadline = start + TimeUnit.SECONDS.toNanos(15);
      while (System.nanoTime() < deadline) {
        if (process.waitFor(100, TimeUnit.MILLISECONDS)) {
          note("# agent exited with " + process.exitValue() + " " + (System.nanoTime() - start) / 1_000_000
              + " ms after SIGTERM");
          return process.exitValue();
        }
        if (zombie(process.pid())) {
          note("# agent JVM exited " + (System.nanoTime() - start) / 1_000_000 + " ms after SIGTERM, but the"
              + " kernel has not released the process yet; its threads:\n" + threadStates(process.pid()));
          return -1;
        }
      }
      note("# agent still running 15 s after SIGTERM; thread dump (SIGQUIT) follows, then SIGKILL");
      new ProcessBuilder("kill", "-QUIT", Long.toString(process.pid())).start().waitFor(5, TimeUnit.SECONDS);
      process.waitFor(2, TimeUnit.SECONDS);
      process.destroyForcibly();
      if (process.waitFor(30, TimeUnit.SECONDS)) {
        note("# agent killed (SIGKILL), status " + process.exitValue());
        return process.exitValue();
      }
      note("# agent survived SIGKILL for 30 s; its threads:\n" + threadStates(process.pid()));
      return -1;
    } catch (InterruptedException | IOException e) {
      process.destroyForcibly();
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      return -1;
    }
  }

  private static boolean zombie(long pid) {
    try {
      return Files.readString(Path.of("/proc", Long.toString(pid), "status")).lines()
          .anyMatch(l -> l.startsWith("State:") && l.contains("Z"));
    } catch (IOException e) {
      return false;
    }
  }

  /** State and kernel wait channel of every thread of a process (for an unkillable agent). */
  private static String threadStates(long pid) {
    StringBuilder sb = new StringBuilder();
    try (var tasks = Files.list(Path.of("/proc", Long.toString(pid), "task"))) {
      for (Path t : tasks.toList()) {
        String status = Files.readString(t.resolve("status"));
        String name = status.lines().filter(l -> l.startsWith("Name:")).findFirst().orElse("");
        String state = status.lines().filter(l -> l.startsWith("State:")).findFirst().orElse("");
        String wchan = Files.readString(t.resolve("wchan"));
        sb.append(t.getFileName()).append(' ').append(name).append(' ').append(state).append(" wchan=")
            .append(wchan).append('\n');
      }
    } catch (IOException e) {
      sb.append("(cannot read /proc/").append(pid).append(": ").append(e).append(")");
    }
    return sb.toString();
  }

  /** Has the running agent print its threads into its log (SIGQUIT), for a failed check's diagnosis. */
  public void threadDump(String why) {
    if (!alive()) {
      return;
    }
    note("# " + why + ": thread dump (SIGQUIT) follows");
    try {
      new ProcessBuilder("kill", "-QUIT", Long.toString(process.pid())).start().waitFor(5, TimeUnit.SECONDS);
      Thread.sleep(500); // the JVM writes the dump asynchronously
    } catch (IOException | InterruptedException e) {
      note("# no thread dump: " + e);
    }
  }

  /** Runs {@code kube-proxy --cleanup} (with the same flags) to completion in the node namespace. */
  public CommandRunner.Result cleanup() throws IOException {
    List<String> a = new ArrayList<>(args);
    a.add("--cleanup");
    note("# " + String.join(" ", command(a)));
    long start = System.nanoTime();
    ProcessBuilder pb = new ProcessBuilder(command(a)).redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
    environment(pb);
    Process p = pb.start();
    try {
      if (!p.waitFor(60, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new IOException("kube-proxy --cleanup did not finish within 60s");
      }
      note("# --cleanup exited with " + p.exitValue() + " after " + (System.nanoTime() - start) / 1_000_000 + " ms");
      return new CommandRunner.Result(p.exitValue(), tail(30), "");
    } catch (InterruptedException e) {
      p.destroyForcibly();
      Thread.currentThread().interrupt();
      throw new IOException("interrupted", e);
    }
  }

  /** PATH pin of the iptables variant, and the node's own xtables lock. */
  private void environment(ProcessBuilder pb) {
    pathPrefix.forEach(p -> pb.environment().put("PATH",
        p + ":" + pb.environment().getOrDefault("PATH", "/usr/sbin:/usr/bin:/sbin:/bin")));
    pb.environment().put("XTABLES_LOCKFILE", topo.xtablesLock().toString());
  }

  /** Appends a line of the test's own to the agent log (timings, commands). */
  private void note(String line) {
    try {
      Files.writeString(log, line + "\n", java.nio.file.StandardOpenOption.APPEND);
    } catch (IOException e) {
      // the log is diagnosis only
    }
  }

  /** The last lines of the agent's log, for failure messages. */
  public String tail(int lines) {
    try {
      List<String> all = Files.readAllLines(log);
      return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
    } catch (IOException e) {
      return "(no log: " + e + ")";
    }
  }

  @Override
  public void close() {
    if (alive() && !stopped) {
      stop();
    }
  }

  private List<String> command(List<String> agentArgs) {
    List<String> cmd = new ArrayList<>(List.of("ip", "netns", "exec", topo.node().name(),
        Path.of(System.getProperty("java.home"), "bin", "java").toString()));
    cmd.addAll(JVM_OPTIONS);
    cmd.addAll(List.of("-jar", jar.toString()));
    cmd.addAll(agentArgs);
    return cmd;
  }
}
