package dev.kubeproxy.backend.iptables;

import dev.kubeproxy.backend.netfilter.IptablesBackend;
import dev.kubeproxy.backend.netfilter.Sysctls;

import static dev.kubeproxy.backend.iptables.Fixtures.clusterCidr;
import static org.junit.jupiter.api.Assertions.assertFalse;
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
import dev.kubeproxy.backend.nftables.NftablesProxier;
import dev.kubeproxy.testapi.TestApiServer;
import dev.kubeproxy.testutil.tier.Kernel;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Issue 15 items 2 and 5 from the cluster source to the kernel: the real cluster watch (from a
 * --manifests directory or the test API server through client-java's informers) and the real
 * proxier write into a scratch network namespace, given one good Service next to objects an API
 * server would reject (port 70000, affinity timeouts of -5 and 2147483647, 253-character and
 * non-ASCII names, a name built to inject a rule, a port "eighty" that does not decode). The good
 * Service must be programmed, nothing of the bad ones may be.
 */
@Kernel
class BadObjectsKernelTest {
  @TempDir Path tmp;
  private ScratchNamespace ns;
  private Vertx vertx;
  private TestApiServer api;

  @BeforeEach
  void setUp() throws Exception {
    String why = ScratchNamespace.whyUnavailable();
    assumeTrue(why == null, () -> "skipped: " + why);
    assumeTrue(ScratchNamespace.onPath("nft"), "skipped: nft is not installed");
    ns = ScratchNamespace.create();
    vertx = Vertx.vertx();
    dev.kubeproxy.messages.EventBusCodecs.register(vertx);
    ScratchNamespace.fakeSysctls(tmp.resolve("sys"));
  }

  @AfterEach
  void tearDown() throws Exception {
    if (vertx != null) {
      get(vertx.close());
    }
    if (ns != null) {
      ns.close();
    }
  }

  private static <T> T get(Future<T> f) throws Exception {
    return f.toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);
  }

  /** Bad objects, as YAML documents; the injection attempt only where names are not URL path segments. */
  private static List<String> badObjects(boolean withInjection) {
    String svc = "apiVersion: v1\nkind: Service\nmetadata: {namespace: demo, name: %s}\nspec: {clusterIP: %s, ports: [%s]%s}\n";
    String affinity = ", sessionAffinity: ClientIP, sessionAffinityConfig: {clientIP: {timeoutSeconds: %d}}";
    List<String> docs = new java.util.ArrayList<>(List.of(
        String.format(svc, "big", "10.96.0.21", "{name: http, port: 70000}", ""),
        String.format(svc, "sticky-neg", "10.96.0.22", "{name: http, port: 80}", String.format(affinity, -5)),
        String.format(svc, "sticky-max", "10.96.0.23", "{name: http, port: 80}", String.format(affinity, 2147483647)),
        String.format(svc, "l" + "o".repeat(251) + "ng", "10.96.0.24", "{name: http, port: 80}", ""),
        String.format(svc, "caf\u00e9", "10.96.0.25", "{name: http, port: 80}", ""),
        String.format(svc, "eighty", "10.96.0.26", "{name: http, port: eighty}", ""),
        "apiVersion: discovery.k8s.io/v1\nkind: EndpointSlice\nmetadata: {namespace: demo, name: web-bad,"
            + " labels: {kubernetes.io/service-name: web}}\naddressType: IPv4\nendpoints: [{addresses: [10.244.0.77]}]\n"
            + "ports: [{name: http, port: 70000, protocol: TCP}]\n"));
    if (withInjection) {
      docs.add(String.format(svc, "\"inj\\\"\\n-A KUBE-SERVICES -j DROP\\n#\"", "10.96.0.27", "{name: http, port: 80}", ""));
    }
    return docs;
  }

  private static final String GOOD = "apiVersion: v1\nkind: Service\nmetadata: {namespace: demo, name: web}\n"
      + "spec: {clusterIP: 10.96.0.10, ports: [{name: http, port: 80, protocol: TCP}]}\n---\n"
      + "apiVersion: discovery.k8s.io/v1\nkind: EndpointSlice\nmetadata: {namespace: demo, name: web-1,"
      + " labels: {kubernetes.io/service-name: web}}\naddressType: IPv4\nendpoints: [{addresses: [10.244.0.5]}]\n"
      + "ports: [{name: http, port: 8080, protocol: TCP}]\n";

  @ParameterizedTest(name = "{0} from {1}")
  @CsvSource({"iptables, manifests", "iptables, api", "nftables, manifests", "nftables, api"})
  void goodServiceProgrammedNextToBadObjects(String mode, String source) throws Exception {
    KubeProxyConfiguration config = new KubeProxyConfiguration();
    config.mode = mode;
    config.configSyncPeriod = Duration.ZERO;
    config.clientConnection.contentType = "application/json";
    String manifestsDir = null;
    String kubeconfig = "";
    if (source.equals("manifests")) {
      Path dir = Files.createDirectory(tmp.resolve("manifests"));
      Files.writeString(dir.resolve("good.yaml"), GOOD);
      // One file each: a file that does not parse must not hide the others.
      List<String> bad = badObjects(true);
      for (int i = 0; i < bad.size(); i++) {
        Files.writeString(dir.resolve("bad-" + i + ".yaml"), bad.get(i));
      }
      manifestsDir = dir.toString();
    } else {
      api = new TestApiServer(vertx);
      get(api.start(0));
      com.fasterxml.jackson.databind.ObjectMapper yaml =
          new com.fasterxml.jackson.databind.ObjectMapper(new com.fasterxml.jackson.dataformat.yaml.YAMLFactory());
      for (String doc : (GOOD + "---\n" + String.join("---\n", badObjects(false))).split("---\n")) {
        api.upsert(new JsonObject(yaml.readValue(doc, Map.class)));
      }
      kubeconfig = api.writeKubeconfig(tmp).toString();
    }
    config.clientConnection.kubeconfig = kubeconfig;
    AgentOptions options = new AgentOptions(config, null, "node-1", manifestsDir, false, false, false);
    ProxierSettings settings = Fixtures.settings(IpFamily.IPv4, List.of(), clusterCidr("10.244.0.0/16"), false, true, null);
    ProxierVerticle.BackendFactory backends = (o, n, r) -> List.<ProxyBackend>of(mode.equals("iptables")
        ? new IptablesProxier(settings, r, new ProxyMetrics(), new Sysctls(tmp.resolve("sys")), List::of, IptablesBackend.LEGACY)
        : new NftablesProxier(settings, r, new ProxyMetrics(), new dev.kubeproxy.backend.nftables.CommitGenerations()));
    NodeInfo node = new NodeInfo("node-1", List.of("192.168.200.10"), List.of(), Map.of());
    ProxierVerticle proxier = new ProxierVerticle(options, node, backends, ns.runner, new ProxyMetrics());
    get(vertx.deployVerticle(proxier, ProxierVerticle.DEPLOYMENT));
    get(vertx.deployVerticle(new ClusterWatchVerticle(options)));

    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(40);
    String rules = "";
    while (System.nanoTime() < deadline) {
      rules = mode.equals("iptables") ? ns.out("iptables-legacy-save", "-t", "nat")
          : ns.exec("nft", "list", "table", "ip", "kube-proxy").stdout();
      if (rules.contains("10.244.0.5")) {
        break;
      }
      Thread.sleep(200);
    }
    assertTrue(rules.contains("10.96.0.10") && rules.contains("10.244.0.5"), "the good Service is programmed (initialized "
        + proxier.initialized() + ", syncs " + proxier.families().stream().map(f -> f.successfulSyncs() + "/" + f.failedSyncs()).toList()
        + "): " + rules);
    for (String absent : List.of("10.96.0.21", "10.96.0.22", "10.96.0.23", "10.96.0.24", "10.96.0.25", "10.96.0.26",
        "10.96.0.27", "10.244.0.77", "DROP")) {
      assertFalse(rules.contains(absent), absent + " must not be programmed: " + rules);
    }
  }
}
