package dev.kubeproxy.monitoring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.kubeproxy.e2e.Requirements;
import dev.kubeproxy.host.CommandRunner;
import dev.kubeproxy.host.ProcessCommandRunner;
import dev.kubeproxy.testutil.tier.EndToEnd;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Grafana dashboard and the alerting rules in docker/monitoring read only metrics the agent
 * exports: each query's metric names are checked against the /metrics of the packaged agent,
 * running for real (iptables and nftables mode, in a scratch network namespace, on the example
 * cluster of conf/examples), and once more with --dry-run in a memory cgroup of the test's own:
 * `ip netns exec` remounts /sys, which hides the cgroup files from an agent inside a namespace.
 */
@EndToEnd
class MonitoringIT {
  private static final Path DASHBOARD = Path.of("docker", "monitoring", "kube-proxy-dashboard.json");
  private static final Path ALERTS = Path.of("docker", "monitoring", "kube-proxy-alerts.yaml");
  private static final Path EXAMPLES = Path.of("conf", "examples").toAbsolutePath();
  /** Recorded by Prometheus itself for every scrape target. */
  private static final Set<String> FROM_PROMETHEUS = Set.of("up");
  private static final Pattern LABEL_VALUES = Pattern.compile("label_values\\(\\s*([a-zA-Z_:][a-zA-Z0-9_:]*)");
  private static final Pattern SAMPLE = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)[{ ]");

  @TempDir
  Path dir;

  @Test
  void dashboardAndAlertsUseOnlyExportedMetrics() throws Exception {
    Requirements.assumeNetnsCapable();
    Path jar = Requirements.assumeAgentJar();
    Set<String> exported = new TreeSet<>();
    for (String mode : List.of("iptables", "nftables")) {
      exported.addAll(namesOf(inNamespace(jar, mode)));
    }
    exported.addAll(namesOf(dryRunInCgroup(jar)));
    Set<String> missing = new TreeSet<>();
    for (String name : dashboardNames()) {
      if (!exported.contains(name)) {
        missing.add("dashboard: " + name);
      }
    }
    for (String name : alertNames()) {
      if (!exported.contains(name) && !FROM_PROMETHEUS.contains(name)) {
        missing.add("alerts: " + name);
      }
    }
    assertEquals(Set.of(), missing, "names not in the agent's /metrics (it exports " + exported + ")");
  }

  /** Every metric name the dashboard's panels and variables query. */
  static Set<String> dashboardNames() throws IOException {
    JsonNode dashboard = new ObjectMapper().readTree(DASHBOARD.toFile());
    Set<String> names = new TreeSet<>();
    for (JsonNode expr : dashboard.findValues("expr")) {
      names.addAll(PromQlNames.of(expr.asText()));
    }
    for (JsonNode definition : dashboard.findValues("definition")) {
      Matcher m = LABEL_VALUES.matcher(definition.asText());
      while (m.find()) {
        names.add(m.group(1));
      }
    }
    assertTrue(names.size() > 20, "the dashboard queries too little: " + names);
    return names;
  }

  static Set<String> alertNames() throws IOException {
    JsonNode rules = new ObjectMapper(new YAMLFactory()).readTree(ALERTS.toFile());
    Set<String> names = new TreeSet<>();
    for (JsonNode expr : rules.findValues("expr")) {
      names.addAll(PromQlNames.of(expr.asText()));
    }
    return names;
  }

  @Test
  void theMemoryLimitGaugeShowsTheCgroupLimit() throws Exception {
    Requirements.assumeNetnsCapable();
    String metrics = dryRunInCgroup(Requirements.assumeAgentJar());
    assertTrue(metrics.contains("\nprocess_memory_limit_bytes " + (double) LIMIT + "\n"), metrics);
    assertTrue(metrics.contains("\nprocess_resident_memory_bytes "), metrics);
  }

  private static final long LIMIT = 1L << 30;

  /**
   * /metrics of an agent in a scratch namespace that has done a full sync, then a partial one for a
   * new Service whose EndpointSlice carries a change-trigger time (so the per-family histograms
   * have observations), and has answered /healthz and /livez.
   */
  private String inNamespace(Path jar, String mode) throws Exception {
    String ns = "kp-mon-" + UUID.randomUUID().toString().substring(0, 8);
    Path manifests = Files.createDirectories(dir.resolve("manifests-" + mode));
    try (var examples = Files.list(EXAMPLES)) {
      for (Path f : examples.toList()) {
        Files.copy(f, manifests.resolve(f.getFileName()));
      }
    }
    CommandRunner run = new ProcessCommandRunner();
    must(run.run(List.of("ip", "netns", "add", ns)));
    Process agent = null;
    Path log = dir.resolve("agent-" + mode + ".log");
    try {
      must(run.run(List.of("ip", "-n", ns, "link", "set", "lo", "up")));
      agent = new ProcessBuilder(agentCommand(jar, manifests, List.of("ip", "netns", "exec", ns), "--proxy-mode", mode,
          "--conntrack-max-per-core", "0", "--healthz-bind-address", "127.0.0.1:10256",
          "--metrics-bind-address", "127.0.0.1:10249"))
          .redirectErrorStream(true).redirectOutput(log.toFile()).start();
      List<String> fetch = new ArrayList<>(List.of("ip", "netns", "exec", ns));
      fetch.addAll(fetchCommand("http://127.0.0.1:10256/healthz", "http://127.0.0.1:10256/livez",
          "http://127.0.0.1:10249/metrics"));
      awaitMetrics(agent, log, fetch, "kubeproxy_sync_proxy_rules_last_timestamp_seconds{");
      Files.writeString(manifests.resolve("90-monitoring-change.yaml"), changedService(Instant.now()));
      return awaitMetrics(agent, log, fetch, "kubeproxy_network_programming_duration_seconds_count{");
    } finally {
      stop(agent);
      run.run(List.of("ip", "netns", "delete", ns));
    }
  }

  /**
   * A Service and its EndpointSlice as the EndpointSlice controller writes them after a change at
   * trigger, in RFC 3339 with nanoseconds as that controller formats it: a time cut to the second
   * can fall before the agent's start and is then, as upstream, not observed.
   */
  private static String changedService(Instant trigger) {
    return String.join("\n",
        "apiVersion: v1", "kind: Service", "metadata: {name: monitoring-change, namespace: default}",
        "spec: {type: ClusterIP, clusterIP: 10.96.0.99, clusterIPs: [10.96.0.99], ipFamilies: [IPv4],",
        "  ports: [{name: http, port: 80, targetPort: 8080, protocol: TCP}]}",
        "---", "apiVersion: discovery.k8s.io/v1", "kind: EndpointSlice",
        "metadata:", "  name: monitoring-change-abcde", "  namespace: default",
        "  labels: {kubernetes.io/service-name: monitoring-change}",
        "  annotations: {endpoints.kubernetes.io/last-change-trigger-time: \"" + trigger + "\"}",
        "addressType: IPv4", "ports: [{name: http, port: 8080, protocol: TCP}]",
        "endpoints:", "- addresses: [10.244.1.9]", "  conditions: {ready: true, serving: true, terminating: false}",
        "  nodeName: node-1", "");
  }

  /** /metrics of a --dry-run agent on loopback ports, inside a memory cgroup limited to {@link #LIMIT}. */
  private String dryRunInCgroup(Path jar) throws Exception {
    MemoryCgroup cgroup = MemoryCgroup.create("kp-mon-" + UUID.randomUUID().toString().substring(0, 8), LIMIT);
    assumeTrue(cgroup != null, "this machine does not let the test make a memory cgroup");
    Process agent = null;
    Path log = dir.resolve("agent-dry-run.log");
    try {
      int healthz = freePort();
      int metrics = freePort();
      agent = new ProcessBuilder(agentCommand(jar, EXAMPLES, cgroup.enterAndExec(), "--dry-run",
          "--healthz-bind-address", "127.0.0.1:" + healthz, "--metrics-bind-address", "127.0.0.1:" + metrics))
          .redirectErrorStream(true).redirectOutput(log.toFile()).start();
      return awaitMetrics(agent, log, fetchCommand("http://127.0.0.1:" + healthz + "/healthz",
          "http://127.0.0.1:" + healthz + "/livez", "http://127.0.0.1:" + metrics + "/metrics"), "process_memory_limit_bytes");
    } finally {
      stop(agent);
      cgroup.close();
    }
  }

  private static List<String> agentCommand(Path jar, Path manifests, List<String> prefix, String... args) {
    List<String> command = new ArrayList<>(prefix);
    command.addAll(List.of("java", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-jar", jar.toString(),
        "--manifests", manifests.toString(), "--hostname-override", "node-1"));
    command.addAll(List.of(args));
    return command;
  }

  /** Asks until /healthz answers 200, /metrics has counted that answer and shows `expected`; returns the whole output. */
  private static String awaitMetrics(Process agent, Path log, List<String> fetch, String expected) throws Exception {
    CommandRunner run = new ProcessCommandRunner();
    for (int i = 0; i < 120; i++) {
      assertTrue(agent.isAlive(), "the agent exited:\n" + Files.readString(log));
      String out = run.run(fetch).stdout();
      if (out.startsWith(Fetch.MARK + "200 ") && out.contains("kubeproxy_proxy_healthz_total{code=\"200\"}")
          && out.contains(expected)) {
        return out;
      }
      Thread.sleep(500);
    }
    throw new AssertionError("the agent never became healthy with " + expected + " in /metrics:\n" + Files.readString(log));
  }

  private static Set<String> namesOf(String metrics) {
    Set<String> names = new TreeSet<>();
    for (String line : metrics.split("\n")) {
      if (line.startsWith("# TYPE ")) {
        names.add(line.split(" ")[2]);
      }
      Matcher m = SAMPLE.matcher(line);
      if (m.find()) {
        names.add(m.group(1));
      }
    }
    return names;
  }

  private static void stop(Process agent) throws InterruptedException {
    if (agent != null) {
      agent.destroyForcibly().waitFor(15, TimeUnit.SECONDS);
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  private static List<String> fetchCommand(String... urls) {
    List<String> cmd = new ArrayList<>(List.of("java", "-XX:TieredStopAtLevel=1",
        "-cp", Path.of("target", "test-classes").toAbsolutePath().toString(), Fetch.class.getName()));
    cmd.addAll(List.of(urls));
    return cmd;
  }

  private static void must(CommandRunner.Result r) {
    assertTrue(r.ok(), r.toString());
  }
}
