package dev.kubeproxy.health;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kubeproxy.testutil.Await;
import dev.kubeproxy.testutil.FreePorts;
import dev.kubeproxy.testutil.tier.EndToEnd;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 15.7: floods of idle connections on the healthz port, the metrics port and a health-check
 * node port of the packaged agent (--manifests, --dry-run: no rules written anywhere), with the
 * agent limited to 2,048 file descriptors. Before the connection guard, the flood used every
 * descriptor: healthz stopped answering and a changed manifest was never read. Now healthz, metrics
 * and the health check answer under the flood, the agent's descriptors stay bounded, and a new
 * Service reaches the printed rules about as fast as without the flood. Loopback only; at most
 * 3,000 client sockets, opened at about 500 a second (the pile-up is the problem, not the rate:
 * a burst faster than the event loop closes connections holds more descriptors for a moment), all
 * closed at the end.
 */
@EndToEnd
class HealthPortsFloodIT {
  private static final int FD_LIMIT = 2048;
  private static final int FLOOD_PER_PORT = 1000;
  private static final Duration PROBE = Duration.ofSeconds(3);

  @TempDir Path tmp;

  @Test
  void idleConnectionFloodsLeaveHealthzAndRuleChangesWorking() throws Exception {
    Path dir = Files.createDirectory(tmp.resolve("manifests"));
    int healthCheckPort = FreePorts.loopback();
    try (Stream<Path> files = Files.list(Path.of("conf/examples"))) {
      for (Path f : files.toList()) {
        String text = Files.readString(f).replace("healthCheckNodePort: 32000", "healthCheckNodePort: " + healthCheckPort);
        Files.writeString(dir.resolve(f.getFileName()), text);
      }
    }
    int healthz = FreePorts.loopback();
    int metricsPort = FreePorts.loopback();
    List<Socket> flood = new ArrayList<>();
    try (AgentProcess agent = new AgentProcess("ulimit -n " + FD_LIMIT + " &&", List.of("--manifests", dir.toString(),
        "--hostname-override", "node-1", "--dry-run", "--healthz-bind-address", "127.0.0.1:" + healthz,
        "--metrics-bind-address", "127.0.0.1:" + metricsPort))) {
      assertTrue(agent.awaitLine(0, "-d 10.96.0.10 --dport 80", Duration.ofSeconds(120)), "no rules printed:\n" + agent.tail());
      dev.kubeproxy.testutil.Await.until("the health-check port answers", 30_000,
          () -> agent.get(healthCheckPort, "/", PROBE) == 200);
      long before = addServiceAndWait(agent, dir, 61);
      assertEquals(200, agent.get(metricsPort, "/metrics", PROBE)); // the first scrape runs cold

      for (int port : List.of(healthz, metricsPort, healthCheckPort)) {
        flood.addAll(openIdle(port, FLOOD_PER_PORT));
      }
      assertTrue(flood.size() >= 3 * 900, "the flood opened only " + flood.size() + " connections");

      assertEquals(200, agent.get(healthz, "/healthz", PROBE), "healthz under the flood:\n" + agent.tail());
      assertEquals(200, agent.get(healthz, "/livez", PROBE));
      assertEquals(200, agent.get(metricsPort, "/metrics", PROBE));
      assertEquals(200, agent.get(healthCheckPort, "/", PROBE));
      int fds = agent.openFileDescriptors();
      // the limits: 128 healthz + 128 metrics + 256 health-check connections, plus the agent's own
      assertTrue(fds < 1000, "the agent holds " + fds + " file descriptors");

      long during = addServiceAndWait(agent, dir, 62);
      System.out.printf("rule change: %d ms without the flood, %d ms under it (%d idle connections); agent fds %d%n",
          before, during, flood.size(), fds);
      assertTrue(during <= before + 1000, "under the flood a change took " + during + " ms, " + before + " ms without");
      assertTrue(agent.alive());
    } finally {
      for (Socket s : flood) {
        try {
          s.close();
        } catch (IOException ignored) {
          // closed by the agent already
        }
      }
    }
  }

  /** Connects up to {@code count} idle sockets, 2 ms apart; stops early once connecting keeps timing out (the port is saturated). */
  private static List<Socket> openIdle(int port, int count) throws InterruptedException {
    List<Socket> sockets = new ArrayList<>();
    int timeouts = 0;
    for (int i = 0; i < count && timeouts < 3; i++) {
      Socket s = new Socket();
      try {
        s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1000);
        sockets.add(s);
        timeouts = 0;
        Thread.sleep(2);
      } catch (IOException e) {
        timeouts++;
        try {
          s.close();
        } catch (IOException ignored) {
          // nothing to close
        }
      }
    }
    return sockets;
  }

  /** Writes a new Service with one endpoint; milliseconds until its rule is printed (fails after 60 s). */
  private static long addServiceAndWait(AgentProcess agent, Path dir, int n) throws Exception {
    int mark = agent.mark();
    long start = System.nanoTime();
    Files.writeString(dir.resolve("9" + n + "-added.yaml"), """
        apiVersion: v1
        kind: Service
        metadata: {name: added-%1$d, namespace: default}
        spec:
          clusterIP: 10.96.0.%1$d
          clusterIPs: [10.96.0.%1$d]
          ports: [{name: http, port: 80%1$d, targetPort: 80, protocol: TCP}]
        ---
        apiVersion: discovery.k8s.io/v1
        kind: EndpointSlice
        metadata: {name: added-%1$d-1, namespace: default, labels: {kubernetes.io/service-name: added-%1$d}}
        addressType: IPv4
        ports: [{name: http, port: 80, protocol: TCP}]
        endpoints:
        - addresses: [10.244.1.%1$d]
          conditions: {ready: true}
          nodeName: node-1
        """.formatted(n));
    assertTrue(agent.awaitLine(mark, "-d 10.96.0." + n + " --dport 80" + n, Duration.ofSeconds(60)),
        "service " + n + " not printed:\n" + agent.tail());
    return (System.nanoTime() - start) / 1_000_000;
  }
}
