package dev.kubeproxy.health;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kubeproxy.testutil.FreePorts;
import dev.kubeproxy.testutil.tier.EndToEnd;
import io.kubernetes.client.openapi.models.V1Container;
import io.kubernetes.client.openapi.models.V1DaemonSet;
import io.kubernetes.client.openapi.models.V1Probe;
import io.kubernetes.client.util.Yaml;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Issue 15.8: docker/kube-proxy.yaml's liveness probe, played the way the kubelet plays it, against
 * the packaged agent whose API server is unreachable. The node lookup alone then takes about 36 s
 * (six tries with backoff); before /livez was served from the start, the port opened only after it
 * and the probe (15 s delay, 3 × 10 s) restarted the agent at about 35 s, in a loop. Each probe
 * must now answer 200 within the probe's timeout, from the first one through the whole window in
 * which failureThreshold failures would restart the container; /healthz meanwhile answers 503 (the
 * node is not known yet). Runs --dry-run: no rules written.
 */
@EndToEnd
class LivenessProbeIT {
  private static final Path MANIFEST = Path.of("docker/kube-proxy.yaml");

  private static V1Probe livenessProbe() throws Exception {
    for (Object o : Yaml.loadAll(Files.readString(MANIFEST))) {
      if (o instanceof V1DaemonSet ds) {
        for (V1Container c : ds.getSpec().getTemplate().getSpec().getContainers()) {
          if ("kube-proxy".equals(c.getName())) {
            return c.getLivenessProbe();
          }
        }
      }
    }
    throw new AssertionError("no kube-proxy container in " + MANIFEST);
  }

  @Test
  void theDaemonSetsLivenessProbePassesWhileTheApiIsUnreachable() throws Exception {
    V1Probe probe = livenessProbe();
    assertNotNull(probe.getHttpGet(), "an httpGet liveness probe");
    assertEquals("10256", probe.getHttpGet().getPort().toString(), "the probe targets the default healthz port");
    String path = probe.getHttpGet().getPath();
    int delay = probe.getInitialDelaySeconds() == null ? 0 : probe.getInitialDelaySeconds();
    int period = probe.getPeriodSeconds() == null ? 10 : probe.getPeriodSeconds();
    int timeout = probe.getTimeoutSeconds() == null ? 1 : probe.getTimeoutSeconds();
    int threshold = probe.getFailureThreshold() == null ? 3 : probe.getFailureThreshold();

    int healthz = FreePorts.loopback();
    int unreachableApi = FreePorts.loopback(); // nothing listens there: every API call is refused
    long start = System.nanoTime();
    try (AgentProcess agent = new AgentProcess("", List.of("--master", "http://127.0.0.1:" + unreachableApi,
        "--hostname-override", "node-1", "--dry-run", "--healthz-bind-address", "127.0.0.1:" + healthz,
        "--metrics-bind-address", "127.0.0.1:" + FreePorts.loopback()))) {
      List<String> results = new ArrayList<>();
      // the kubelet: first probe after initialDelaySeconds, then every periodSeconds; failureThreshold
      // failures in a row restart the container. Probe through one period past that window.
      for (int k = 0; k <= threshold; k++) {
        long due = start + Duration.ofSeconds(delay + (long) k * period).toNanos();
        long wait = due - System.nanoTime();
        if (wait > 0) {
          Thread.sleep(wait / 1_000_000);
        }
        int code = agent.get(healthz, path, Duration.ofSeconds(timeout));
        long at = (System.nanoTime() - start) / 1_000_000;
        results.add("t=" + at + "ms " + path + " -> " + code);
        if (k == 0) {
          // the scenario: the first probe comes while the agent is still looking for its Node
          assertFalse(agent.awaitLine(0, "Successfully retrieved node IP(s)", Duration.ZERO), "the API was reachable");
          // ... so /healthz says the node is not known yet (upstream v1.33: no Node, not eligible)
          assertEquals(503, agent.get(healthz, "/healthz", Duration.ofSeconds(timeout)));
        }
      }
      System.out.println("liveness probes: " + results);
      assertTrue(results.stream().allMatch(r -> r.endsWith("-> 200")), "probes: " + results + "\n" + agent.tail());
      assertTrue(agent.awaitLine(0, "Failed to retrieve node info", Duration.ZERO), "the node lookup never failed:\n" + agent.tail());
      assertTrue(agent.alive(), "the agent exited:\n" + agent.tail());
    }
  }
}
