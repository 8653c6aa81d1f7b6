package dev.kubeproxy.backend.iptables;

import dev.kubeproxy.backend.netfilter.IptablesBackend;
import dev.kubeproxy.backend.netfilter.Sysctls;

import static dev.kubeproxy.backend.iptables.Fixtures.clusterCidr;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.kubeproxy.config.AgentOptions;
import dev.kubeproxy.cluster.ClusterWatchVerticle;
import dev.kubeproxy.messages.NodeInfo;
import dev.kubeproxy.config.KubeProxyConfiguration;
import dev.kubeproxy.metrics.ProxyMetrics;
import dev.kubeproxy.net.IpFamily;
import dev.kubeproxy.model.ProxierSettings;
import dev.kubeproxy.runtime.ProxierVerticle;
import dev.kubeproxy.model.ProxyBackend;
import dev.kubeproxy.testutil.tier.Kernel;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 15 item 3 end to end: the real cluster watch (a --manifests directory) and proxier program
 * a scratch namespace with a syncPeriod of 2 s; while nothing changes, other programs flush nat,
 * flush filter, flush and delete every chain, delete the canaries. Each time the rules must be
 * back, exactly as before, within one syncPeriod (plus the time a sync takes on a busy machine).
 */
@Kernel
class FlushRepairKernelTest {
  private static final Duration SYNC_PERIOD = Duration.ofSeconds(2);
  @TempDir Path tmp;
  private ScratchNamespace ns;
  private Vertx vertx;

  @BeforeEach
  void setUp() throws Exception {
    String why = ScratchNamespace.whyUnavailable();
    assumeTrue(why == null, () -> "skipped: " + why);
    ns = ScratchNamespace.create();
    vertx = Vertx.vertx();
    dev.kubeproxy.messages.EventBusCodecs.register(vertx);
    ScratchNamespace.fakeSysctls(tmp.resolve("sys"));
  }

  @AfterEach
  void tearDown() throws Exception {
    if (vertx != null) {
      vertx.close().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    }
    if (ns != null) {
      ns.close();
    }
  }

  private static <T> T get(Future<T> f) throws Exception {
    return f.toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);
  }

  private String rules() throws Exception {
    StringBuilder out = new StringBuilder();
    for (String table : List.of("nat", "filter", "mangle")) {
      for (String line : ns.out("iptables-legacy-save", "-t", table).split("\n")) {
        if (!line.startsWith("#")) {
          out.append(line.replaceAll("\\[\\d+:\\d+\\]", "")).append('\n');
        }
      }
    }
    return out.toString();
  }

  @Test
  void flushesAreRepairedWithinOneSyncPeriodWhileIdle() throws Exception {
    Path dir = Files.createDirectory(tmp.resolve("manifests"));
    StringBuilder objects = new StringBuilder();
    for (int i = 1; i <= 20; i++) {
      objects.append("apiVersion: v1\nkind: Service\nmetadata: {namespace: demo, name: web-").append(i).append("}\n")
          .append("spec: {type: NodePort, clusterIP: 10.96.1.").append(i).append(", ports: [{name: http, port: 80,")
          .append(" nodePort: ").append(30000 + i).append("}]}\n---\n")
          .append("apiVersion: discovery.k8s.io/v1\nkind: EndpointSlice\nmetadata: {namespace: demo, name: web-")
          .append(i).append("-a, labels: {kubernetes.io/service-name: web-").append(i).append("}}\naddressType: IPv4\n")
          .append("endpoints: [{addresses: [10.244.1.").append(i).append("]}]\nports: [{name: http, port: 8080}]\n---\n");
    }
    Files.writeString(dir.resolve("services.yaml"), objects.toString());
    KubeProxyConfiguration config = new KubeProxyConfiguration();
    config.mode = "iptables";
    config.iptables.syncPeriod = SYNC_PERIOD;
    config.iptables.minSyncPeriod = Duration.ZERO;
    AgentOptions options = new AgentOptions(config, null, "node-1", dir.toString(), false, false, false);
    ProxierSettings settings = Fixtures.settings(IpFamily.IPv4, List.of(), clusterCidr("10.244.0.0/16"), false, true, null);
    ProxierVerticle.BackendFactory backends = (o, n, r) -> List.<ProxyBackend>of(
        new IptablesProxier(settings, r, new ProxyMetrics(), new Sysctls(tmp.resolve("sys")), List::of, IptablesBackend.LEGACY));
    NodeInfo node = new NodeInfo("node-1", List.of("192.168.200.10"), List.of(), Map.of());
    get(vertx.deployVerticle(new ProxierVerticle(options, node, backends, ns.runner, new ProxyMetrics()), ProxierVerticle.DEPLOYMENT));
    get(vertx.deployVerticle(new ClusterWatchVerticle(options)));
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(40);
    while (!rules().contains("10.244.1.20:8080") && System.nanoTime() < deadline) {
      Thread.sleep(100);
    }
    Thread.sleep(1000);
    String programmed = rules();
    assertTrue(programmed.contains("10.244.1.20:8080"), programmed);

    List<String> disturbances = List.of("-t nat -F", "-t filter -F", "-F;-X;-t nat -F;-t nat -X;-t mangle -F;-t mangle -X",
        "-t mangle -X KUBE-PROXY-CANARY", "-t nat -F KUBE-SERVICES", "-t filter -F KUBE-FORWARD");
    List<String> took = new ArrayList<>();
    for (String disturbance : disturbances) {
      for (String command : disturbance.split(";")) {
        List<String> argv = new ArrayList<>(List.of("iptables-legacy"));
        argv.addAll(List.of(command.split(" ")));
        ns.out(argv.toArray(String[]::new));
      }
      long start = System.nanoTime();
      // One syncPeriod until the check, plus the full sync it asks for (generous on a shared machine).
      long limit = start + SYNC_PERIOD.toNanos() + TimeUnit.SECONDS.toNanos(8);
      String now = rules();
      while (!now.equals(programmed) && System.nanoTime() < limit) {
        Thread.sleep(100);
        now = rules();
      }
      assertEquals(programmed, now, "rules repaired after " + disturbance);
      took.add(disturbance + ": " + (System.nanoTime() - start) / 1_000_000 + " ms");
    }
    System.out.println("Repaired after: " + took);
  }
}
