package dev.kubeproxy.cluster;

import dev.kubeproxy.messages.NodeInfo;

import dev.kubeproxy.logging.Log;
import dev.kubeproxy.config.AgentOptions;
import dev.kubeproxy.config.KubeProxyConfiguration;
import dev.kubeproxy.config.ProxyMode;
import dev.kubeproxy.net.IpFamily;
import dev.kubeproxy.model.objects.Node;
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

/**
 * Finds this node's name, IPs and podCIDRs before the proxier is built (cmd/kube-proxy/app/server.go
 * newProxyServer, getNodeIPs, detectNodeIPs; server_linux.go platformSetup, waitForPodCIDR): GET
 * the Node with upstream's backoff (a failure is not fatal), detectNodeIPs,
 * the "primary" nodePortAddresses expansion (written back into the configuration, as upstream
 * does, so /configz shows it), the NodeCIDR wait for podCIDRs, checkBadConfig and checkBadIPConfig.
 * The Node comes from the {@link ClusterSource} (the API or the --manifests directory). Blocking
 * work runs on workers; the retries wait on timers.
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

  /** Opens the cluster source itself (tests); the agent passes the one its cluster watch uses. */
  public static Future<NodeInfo> resolve(Vertx vertx, AgentOptions options) {
    return resolve(vertx, options, Timing.UPSTREAM);
  }

  /** As {@link #resolve(Vertx, AgentOptions)}, with other waits (tests). */
  public static Future<NodeInfo> resolve(Vertx vertx, AgentOptions options, Timing timing) {
    return ClusterSource.open(vertx, options).compose(source -> resolve(vertx, options, source, timing));
  }

  public static Future<NodeInfo> resolve(Vertx vertx, AgentOptions options, ClusterSource source) {
    return resolve(vertx, options, source, Timing.UPSTREAM);
  }

  public static Future<NodeInfo> resolve(Vertx vertx, AgentOptions options, ClusterSource source, Timing timing) {
    String name = options.hostname() == null ? "" : options.hostname().trim().toLowerCase();
    if (name.isEmpty()) {
      return Future.failedFuture("empty hostname is invalid");
    }
    Callable<Node> fetch = () -> source.node(name);
    return nodeIPsWithBackoff(vertx, fetch, name, source.retryNodeLookup() ? timing.backoffSteps() : 1,
            timing.backoffInitial())
        .compose(found -> finish(vertx, options, name, fetch, found, timing));
  }

  /** What the node lookup found: its IPs (empty when unknown) and the Node object (or null). */
  private record Found(List<String> ips, Node node) {}

  private static Future<Found> nodeIPsWithBackoff(
      Vertx vertx, Callable<Node> fetch, String name, int steps, Duration initial) {
    Promise<Found> result = Promise.promise();
    attempt(vertx, fetch, name, 1, steps, initial.toMillis(), null, result);
    return result.future();
  }

  private static void attempt(Vertx vertx, Callable<Node> fetch, String name, int step, int steps, long delayMs,
                              Node lastNode, Promise<Found> result) {
    vertx.executeBlocking(fetch::call, false).onComplete(ar -> {
      Node node = ar.succeeded() ? ar.result() : lastNode;
      if (ar.failed()) {
        Log.error("Failed to retrieve node info", "err", ar.cause().getMessage());
      } else if (node == null) {
        Log.error("Failed to retrieve node info", "err", "no Node " + name + " in the manifests directory");
      } else {
        try {
          List<String> ips = NodeIpSelection.nodeHostIPs(node);
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
      Vertx vertx, AgentOptions options, String name, Callable<Node> fetch, Found found, Timing timing) {
    KubeProxyConfiguration cfg = options.config();
    NodeIpSelection.DetectedIPs detected = NodeIpSelection.detectNodeIPs(found.ips, cfg.bindAddress);
    if (detected.primaryIsLoopback()) {
      Log.info("Can't determine this node's IP, assuming loopback; if this is incorrect, please set the --bind-address flag");
    }
    List<String> expanded = NodeIpSelection.expandKeywords(cfg.nodePortAddresses, detected);
    if (expanded != cfg.nodePortAddresses) {
      cfg.nodePortAddresses = new ArrayList<>(expanded);
    }
    boolean nodeCidr = "NodeCIDR".equals(cfg.detectLocalMode);
    Future<Node> nodeForCidrs = nodeCidr ? waitForPodCIDRs(vertx, fetch, name, timing) : Future.succeededFuture(found.node);
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
      Map<String, String> labels = node == null ? Map.of() : node.metadata().labels();
      return Future.succeededFuture(new NodeInfo(name, detected.ordered(), podCIDRs, labels, found.ips));
    });
  }

  /**
   * Dual-stack support as platformCheckSupported decides it: nftables mode assumes both
   * families; iptables (and ipvs) need both iptables and ip6tables.
   */
  static boolean dualStackSupported(KubeProxyConfiguration cfg) {
    if (cfg.proxyMode() == ProxyMode.NFTABLES) {
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
  private static Future<Node> waitForPodCIDRs(Vertx vertx, Callable<Node> fetch, String name, Timing timing) {
    Log.info("Watching for node, awaiting podCIDR allocation", "hostname", name);
    Promise<Node> result = Promise.promise();
    long deadline = System.nanoTime() + timing.podCidrTimeout().toNanos();
    pollPodCIDRs(vertx, fetch, deadline, timing.podCidrPoll(), result);
    return result.future();
  }

  private static void pollPodCIDRs(
      Vertx vertx, Callable<Node> fetch, long deadline, Duration poll, Promise<Node> result) {
    vertx.executeBlocking(fetch::call, false).onComplete(ar -> {
      Node n = ar.succeeded() ? ar.result() : null;
      if (n != null && n.metadata().deletionTimestamp() == null && n.podCIDR() != null && !n.podCIDR().isEmpty()
          && !n.podCIDRs().isEmpty()) {
        result.complete(n);
      } else if (System.nanoTime() > deadline) {
        result.fail("timeout waiting for PodCIDR allocation to configure detect-local-mode NodeCIDR: timed out waiting for the condition");
      } else {
        vertx.setTimer(poll.toMillis(), t -> pollPodCIDRs(vertx, fetch, deadline, poll, result));
      }
    });
  }
}
