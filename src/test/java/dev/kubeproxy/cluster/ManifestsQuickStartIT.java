package dev.kubeproxy.cluster;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kubeproxy.testutil.FreePorts;
import dev.kubeproxy.testutil.tier.EndToEnd;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README quick start with the packaged jar: --manifests on a copy of conf/examples with
 * --dry-run prints rules for the example services, and a service file added while it runs
 * shows up in the next printed ruleset. Writes no rules (dry run).
 */
@EndToEnd
class ManifestsQuickStartIT {
  private static final java.util.concurrent.atomic.AtomicReference<Process> AGENT = new java.util.concurrent.atomic.AtomicReference<>();
  @TempDir Path tmp;

  @Test
  void examplesThenAnAddedFile() throws Exception {
    Path dir = Files.createDirectory(tmp.resolve("manifests"));
    try (Stream<Path> files = Files.list(Path.of("conf/examples"))) {
      for (Path f : files.toList()) {
        Files.copy(f, dir.resolve(f.getFileName()));
      }
    }
    Process agent = new ProcessBuilder("java", "-jar", "target/kube-proxy.jar", "--manifests", dir.toString(),
        "--hostname-override", "node-1", "--dry-run", "--healthz-bind-address", "127.0.0.1:" + FreePorts.loopback(),
        "--metrics-bind-address", "127.0.0.1:" + FreePorts.loopback()).redirectErrorStream(true).start();
    AGENT.set(agent);
    BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    Thread reader = new Thread(() -> {
      try (BufferedReader r = new BufferedReader(new InputStreamReader(agent.getInputStream(), StandardCharsets.UTF_8))) {
        r.lines().forEach(lines::add);
      } catch (Exception ignored) {
        // process ended
      }
    });
    reader.setDaemon(true);
    reader.start();
    StringBuilder seen = new StringBuilder();
    try {
      assertTrue(waitFor(lines, seen, List.of("-d 10.96.0.10 --dport 80", "-d fd00:10:96::50 --dport 80",
          "\"Starting\"")), "example rules not printed:\n" + seen);
      Files.writeString(dir.resolve("60-added.yaml"), """
          apiVersion: v1
          kind: Service
          metadata: {name: added, namespace: default}
          spec:
            clusterIP: 10.96.0.60
            clusterIPs: [10.96.0.60]
            ports: [{name: http, port: 8060, targetPort: 80, protocol: TCP}]
          ---
          apiVersion: discovery.k8s.io/v1
          kind: EndpointSlice
          metadata: {name: added-1, namespace: default, labels: {kubernetes.io/service-name: added}}
          addressType: IPv4
          ports: [{name: http, port: 80, protocol: TCP}]
          endpoints:
          - addresses: [10.244.1.60]
            conditions: {ready: true}
            nodeName: node-1
          """);
      assertTrue(waitFor(lines, seen, List.of("-d 10.96.0.60 --dport 8060")), "added service not printed:\n" + seen);
    } finally {
      agent.destroy();
      if (!agent.waitFor(10, TimeUnit.SECONDS)) {
        agent.destroyForcibly();
      }
    }
  }

  private static boolean waitFor(BlockingQueue<String> lines, StringBuilder seen, List<String> wanted) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    java.util.Set<String> missing = new java.util.HashSet<>(wanted);
    boolean agentAlive = true;
    while (!missing.isEmpty() && System.nanoTime() < deadline) {
      agentAlive = AGENT.get() != null && AGENT.get().isAlive();
      String line = lines.poll(1, TimeUnit.SECONDS);
      if (line == null && lines.isEmpty() && !agentAlive) {
        break;
      }
      if (line != null) {
        seen.append(line).append('\n');
        missing.removeIf(line::contains);
      }
    }
    return missing.isEmpty();
  }
}
