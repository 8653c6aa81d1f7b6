package dev.kubeproxy.cluster;

import dev.kubeproxy.logging.Log;
import dev.kubeproxy.AgentOptions;
import dev.kubeproxy.config.KubeProxyConfiguration;
import dev.kubeproxy.proxy.IpFamily;
import io.kubernetes.client.common.KubernetesObject;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.V1Node;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Stream;

/**
 * Finds this node's name, IPs and podCIDRs before the proxier is built (server.md §9 steps 3, 5–7,
 * 10.1, 11 and 13): GET the Node with upstream's backoff (a failure is not fatal), detectNodeIPs,
 * the "primary" nodePortAddresses expansion (written back into the configuration, as upstream
 * does, so /configz shows it), the NodeCIDR wait for podCIDRs, checkBadConfig and checkBadIPConfig.
 * In --manifests mode the Node comes from the directory. Blocking work runs on workers; the
 * retries wait on timers.
 */
public final class NodeInfoResolver {

  /**
   * How long the lookups wait.
   *
   * @param backoffSteps   tries of the Node GET
   * @param backoffInitial the first wait between two tries, doubled each time (jitter 0.2)
   * @param podCidrTimeout how long NodeCIDR mode waits for the Node's podCIDRs
   * @param podCidrPoll    the wait between two looks for the podCIDRs
   */
  public record Timing(int backoffSteps, Duration backoffInitial, Duration podCidrTimeout, Duration podCidrPoll) {
    /** Upstream's: wait.Backoff{Steps: 6, Duration: 1s, Factor: 2, Jitter: 0.2}; podCIDRs within 5 minutes. */
    public static final Timing UPSTREAM = new Timing(6, Duration.ofSeconds(1), Duration.ofMinutes(5), Duration.ofSeconds(1));
  }

  private NodeInfoResolver() {}

  public static Future<NodeInfo> resolve(Vertx vertx, AgentOptions options) {
    return resolve(vertx, options, Timing.UPSTREAM);
  }

  public static Future<NodeInfo> resolve(Vertx vertx, AgentOptions options, Timing timing) {
    String name = options.hostname() == null ? "" : options.hostname().trim().toLowerCase();
    if (name.isEmpty()) {
      return Future.failedFuture("empty hostname is invalid");
    }
    boolean manifests = options.manifestsDir() != null && !options.manifestsDir().isEmpty();
    Future<Callable<V1Node>> fetcher = manifests
        ? Future.succeededFuture(() -> nodeFromManifests(Path.of(options.manifestsDir()), name))
        : vertx.executeBlocking(() -> ApiClients.create(options)).map(client -> () -> getNode(client, name));
    return fetcher.compose(fetch -> nodeIPsWithBackoff(vertx, fetch, name, manifests ? 1 : timing.backoffSteps(),
            timing.backoffInitial())
        .compose(found -> finish(vertx, options, name, fetch, found, timing)));
  }

  /** What the node lookup found: its IPs (empty when unknown) and the Node object (or null). */
  private record Found(List<String> ips, V1Node node) {}

  /**
   * GET the Node; failures carry a message naming the server and the cause. Decoded here rather
   * than by client-java's call, which refuses a Node with a field newer than the client.
   */
  private static V1Node getNode(ApiClient client, String name) throws Exception {
    try (okhttp3.Response response = execute(new CoreV1Api(client).readNode(name).buildCall(null))) {
      String body = response.body() == null ? "" : response.body().string();
      if (!response.isSuccessful()) {
        throw new ApiException(response.code(), response.headers().toMultimap(), body);
      }
      com.google.gson.JsonElement json = com.google.gson.JsonParser.parseString(body);
      UnknownFields.prune(json, V1Node.class);
      return client.getJSON().getGson().fromJson(json, V1Node.class);
    } catch (ApiException e) {
      throw new Exception(e.getCode() == 404 ? "nodes \"" + name + "\" not found"
          : ApiClients.describe(client.getBasePath(), e), e);
    }
  }

  private static okhttp3.Response execute(okhttp3.Call call) throws ApiException {
    try {
      return call.execute();
    } catch (java.io.IOException e) {
      throw new ApiException(e); // as client-java's own execute reports a connection failure
    }
  }

  private static V1Node nodeFromManifests(Path dir, String name) throws Exception {
    if (!Files.isDirectory(dir)) {
      return null;
    }
    List<Path> files;
    try (Stream<Path> s = Files.list(dir)) {
      files = s.filter(ManifestReader::isManifest).filter(Files::isRegularFile).sorted().toList();
    }
    V1Node found = null;
    for (Path f : files) {
      try {
        // only the Node documents are decoded: the Services and EndpointSlices are the source's, later
        for (KubernetesObject o : ManifestReader.read(f, java.util.Set.of("Node"))) {
          if (o instanceof V1Node n && name.equals(n.getMetadata().getName())) {
            found = n;
          }
        }
      } catch (ManifestReader.ManifestException e) {
        Log.error("Skipping a bad manifest file", "err", e.getMessage());
      }
    }
    return found;
  }

  private static Future<Found> nodeIPsWithBackoff(
      Vertx vertx, Callable<V1Node> fetch, String name, int steps, Duration initial) {
    Promise<Found> result = Promise.promise();
    attempt(vertx, fetch, name, 1, steps, initial.toMillis(), null, result);
    return result.future();
  }

  private static void attempt(Vertx vertx, Callable<V1Node> fetch, String name, int step, int steps, long delayMs,
                              V1Node lastNode, Promise<Found> result) {
    vertx.executeBlocking(fetch::call, false).onComplete(ar -> {
      V1Node node = ar.succeeded() ? ar.result() : lastNode;
      if (ar.failed()) {
        Log.error("Failed to retrieve node info", "err", ar.cause().getMessage());
      } else if (node == null) {
        Log.error("Failed to retrieve node info", "err", "no Node " + name + " in the manifests directory");
      } else {
        try {
          List<String> ips = NodeAddresses.nodeHostIPs(node);
          Log.info("Successfully retrieved node IP(s)", "IPs", ips);
          result.complete(new Found(ips, node));
          return;
        } catch (IllegalArgumentException e) {
          Log.error("Failed to retrieve node IPs", "err", e.getMessage());
        }
      }
      if (step >= steps) {
        result.complete(new Found(List.of(), node));
        return;
      }
      long jittered = delayMs + (long) (ThreadLocalRandom.current().nextDouble() * 0.2 * delayMs);
      vertx.setTimer(jittered, t -> attempt(vertx, fetch, name, step + 1, steps, delayMs * 2, node, result));
    });
  }

  private static Future<NodeInfo> finish(
      Vertx vertx, AgentOptions options, String name, Callable<V1Node> fetch, Found found, Timing timing) {
    KubeProxyConfiguration cfg = options.config();
    NodeAddresses.DetectedIPs detected = NodeAddresses.detectNodeIPs(found.ips, cfg.bindAddress);
    if (detected.primaryIsLoopback()) {
      Log.info("Can't determine this node's IP, assuming loopback; if this is incorrect, please set the --bind-address flag");
    }
    List<String> expanded = NodeAddresses.expandPrimary(cfg.nodePortAddresses, detected);
    if (expanded != cfg.nodePortAddresses) {
      cfg.nodePortAddresses = new ArrayList<>(expanded);
    }
    boolean nodeCidr = "NodeCIDR".equals(cfg.detectLocalMode);
    Future<V1Node> nodeForCidrs = nodeCidr ? waitForPodCIDRs(vertx, fetch, name, timing) : Future.succeededFuture(found.node);
    return nodeForCidrs.compose(node -> {
      List<String> podCIDRs = node == null ? List.of() : NodeHandlers.podCIDRsOf(node);
      if (nodeCidr) {
        Log.info("NodeInfo", "podCIDRs", podCIDRs);
      }
      List<String> checkedCidrs = nodeCidr ? podCIDRs : List.of();
      ConfigChecks.Result bad = ConfigChecks.checkBadConfig(cfg, checkedCidrs, detected.primaryFamily());
      if (!bad.messages().isEmpty()) {
        Log.error("Kube-proxy configuration may be incomplete or incorrect", "err", bad.aggregated());
      }
      ConfigChecks.Result badIp = ConfigChecks.checkBadIPConfig(cfg, checkedCidrs, detected.primaryFamily(),
          dualStackSupported(cfg));
      if (badIp.fatal()) {
        return Future.failedFuture("kube-proxy configuration is incorrect: " + badIp.aggregated());
      }
      if (!badIp.messages().isEmpty()) {
        Log.error("Kube-proxy configuration may be incomplete or incorrect", "err", badIp.aggregated());
      }
      Map<String, String> labels = node == null || node.getMetadata().getLabels() == null ? Map.of() : node.getMetadata().getLabels();
      return Future.succeededFuture(new NodeInfo(name, detected.ordered(), podCIDRs, labels));
    });
  }

  /**
   * Dual-stack support as platformCheckSupported decides it: nftables mode assumes both
   * families; iptables (and ipvs) need both iptables and ip6tables.
   */
  static boolean dualStackSupported(KubeProxyConfiguration cfg) {
    if ("nftables".equals(cfg.effectiveMode())) {
      return true;
    }
    return onPath("iptables") && onPath("ip6tables");
  }

  private static boolean onPath(String command) {
    String path = System.getenv().getOrDefault("PATH", "/usr/sbin:/usr/bin:/sbin:/bin");
    for (String dir : path.split(File.pathSeparator)) {
      if (Files.isExecutable(Path.of(dir, command))) {
        return true;
      }
    }
    return Files.isExecutable(Path.of("/usr/sbin", command)) || Files.isExecutable(Path.of("/sbin", command));
  }

  /** NodeCIDR mode: wait until the Node exists, is not being deleted and has podCIDRs (5 minutes at most). */
  private static Future<V1Node> waitForPodCIDRs(Vertx vertx, Callable<V1Node> fetch, String name, Timing timing) {
    Log.info("Watching for node, awaiting podCIDR allocation", "hostname", name);
    Promise<V1Node> result = Promise.promise();
    long deadline = System.nanoTime() + timing.podCidrTimeout().toNanos();
    pollPodCIDRs(vertx, fetch, deadline, timing.podCidrPoll(), result);
    return result.future();
  }

  private static void pollPodCIDRs(
      Vertx vertx, Callable<V1Node> fetch, long deadline, Duration poll, Promise<V1Node> result) {
    vertx.executeBlocking(fetch::call, false).onComplete(ar -> {
      V1Node n = ar.succeeded() ? ar.result() : null;
      if (n != null && n.getMetadata().getDeletionTimestamp() == null && n.getSpec() != null
          && n.getSpec().getPodCIDR() != null && !n.getSpec().getPodCIDR().isEmpty()
          && !NodeHandlers.podCIDRsOf(n).isEmpty()) {
        result.complete(n);
      } else if (System.nanoTime() > deadline) {
        result.fail("timeout waiting for PodCIDR allocation to configure detect-local-mode NodeCIDR: timed out waiting for the condition");
      } else {
        vertx.setTimer(poll.toMillis(), t -> pollPodCIDRs(vertx, fetch, deadline, poll, result));
      }
    });
  }
}
