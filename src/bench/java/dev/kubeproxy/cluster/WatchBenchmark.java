package dev.kubeproxy.cluster;

import dev.kubeproxy.messages.ClusterEvent;

import dev.kubeproxy.config.AgentOptions;
import dev.kubeproxy.messages.EventBusAddresses;
import dev.kubeproxy.testapi.TestApiServer;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Benchmark (prints figures, asserts nothing): the real ClusterWatchVerticle against the test API
 * server, (1) the initial sync of 10,000 Services and 10,000 EndpointSlices with 10 endpoints each
 * (100,000 endpoints): time from deploy to every SYNCED, and the heap it holds afterwards;
 * (2) watch latency from an API write (an HTTP PATCH) to the event-bus message, p50 and p99 over
 * 1,000 changes.
 *
 * <pre>
 * mvn -B -o -q test-compile dependency:build-classpath -Dmdep.outputFile=target/test-cp.txt
 * java -Xmx2g -cp target/classes:target/test-classes:$(cat target/test-cp.txt) dev.kubeproxy.cluster.WatchBenchmark [services] [changes]
 * </pre>
 */
public final class WatchBenchmark {
  public static void main(String[] args) throws Exception {
    int services = args.length > 0 ? Integer.parseInt(args[0]) : 10_000;
    int changes = args.length > 1 ? Integer.parseInt(args[1]) : 1_000;
    Vertx vertx = Vertx.vertx();
    dev.kubeproxy.messages.EventBusCodecs.register(vertx);
    TestApiServer api = new TestApiServer(vertx, 1_000_000);
    get(api.start(0));
    for (int i = 0; i < services; i++) {
      api.upsert(service(i));
      api.upsert(slice(i));
    }
    Path dir = Files.createTempDirectory("kp-cluster-bench");
    AgentOptions options = Fixtures.options(api.writeKubeconfig(dir).toString(), "node-1");
    options.config().clientConnection.qps = -1;

    AtomicLong delivered = new AtomicLong();
    Map<String, Long> arrivals = new ConcurrentHashMap<>();
    vertx.eventBus().<ClusterEvent<?>>consumer(EventBusAddresses.ENDPOINT_SLICES, m -> delivered.incrementAndGet());
    vertx.eventBus().<ClusterEvent<?>>consumer(EventBusAddresses.SERVICES, m -> {
      delivered.incrementAndGet();
      dev.kubeproxy.model.objects.Service s = (dev.kubeproxy.model.objects.Service) m.body().latest();
      Map<String, String> labels = s.metadata().labels();
      if (labels.containsKey("bench-change")) {
        arrivals.put(labels.get("bench-change"), System.nanoTime());
      }
    });

    long heapBefore = usedHeapAfterGc();
    com.sun.management.OperatingSystemMXBean os =
        (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    long cpu0 = os.getProcessCpuTime();
    ClusterWatchVerticle verticle = new ClusterWatchVerticle(options);
    long t0 = System.nanoTime();
    Map<String, Long> syncedAt = new ConcurrentHashMap<>();
    vertx.eventBus().<ClusterEvent.Kind>consumer(EventBusAddresses.SYNCED,
        m -> syncedAt.put(m.body().name(), (System.nanoTime() - t0) / 1_000_000));
    get(vertx.deployVerticle(verticle));
    long deployMs = (System.nanoTime() - t0) / 1_000_000;
    get(verticle.synced());
    long syncMs = (System.nanoTime() - t0) / 1_000_000;
    long cpuMs = (os.getProcessCpuTime() - cpu0) / 1_000_000;
    long agentCpuMs = agentThreadsCpuMs();
    System.out.printf("machine: %d CPUs, load average %.1f; process CPU time during the sync (agent side and test API server): %d ms%n",
        os.getAvailableProcessors(), os.getSystemLoadAverage(), cpuMs);
    System.out.printf("    of which the agent's reflector, informer-handler and HTTP client threads (JIT and GC not included): %d ms%n",
        agentCpuMs);
    System.out.printf("deployed (API client built, informers started) after %d ms; SYNCED per kind after ms: %s%n",
        deployMs, new java.util.TreeMap<>(syncedAt));
    long heapAfter = usedHeapAfterGc();
    System.out.printf("initial sync: %d Services + %d EndpointSlices (%d endpoints): %d ms to SYNCED, %d messages, "
            + "heap held by the watch %.1f MiB (%.0f bytes per endpoint)%n",
        services, services, services * 10, syncMs, delivered.get(), (heapAfter - heapBefore) / 1048576.0,
        (heapAfter - heapBefore) / (double) (services * 10));

    HttpClient http = HttpClient.newHttpClient();
    long[] latencies = new long[changes];
    for (int i = 0; i < changes; i++) {
      String key = Integer.toString(i);
      String patch = new JsonObject().put("metadata", new JsonObject()
          .put("labels", new JsonObject().put("bench-change", key))).encode();
      long start = System.nanoTime();
      HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(api.url()
              + "/api/v1/namespaces/bench/services/svc-" + (i % services)))
          .header("Content-Type", "application/merge-patch+json")
          .method("PATCH", HttpRequest.BodyPublishers.ofString(patch)).build(), HttpResponse.BodyHandlers.ofString());
      if (r.statusCode() != 200) {
        throw new IllegalStateException("PATCH failed: " + r.statusCode() + " " + r.body());
      }
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (!arrivals.containsKey(key)) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("change " + key + " never arrived");
        }
        Thread.onSpinWait();
      }
      latencies[i] = arrivals.get(key) - start;
    }
    Arrays.sort(latencies);
    System.out.printf("watch latency (API write to event-bus message) over %d changes: p50 %.2f ms, p99 %.2f ms, max %.2f ms%n",
        changes, latencies[changes / 2] / 1e6, latencies[(int) (changes * 0.99)] / 1e6, latencies[changes - 1] / 1e6);
    get(vertx.close());
  }

  /** CPU time of the threads that do the agent's side of the sync: reflectors (list + decode), informer handlers, OkHttp. */
  private static long agentThreadsCpuMs() {
    java.lang.management.ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    long total = 0;
    java.util.List<String> top = new java.util.ArrayList<>();
    for (java.lang.management.ThreadInfo t : threads.getThreadInfo(threads.getAllThreadIds())) {
      if (t != null && Boolean.getBoolean("bench.threads")) {
        top.add(String.format("%8d ms %s", threads.getThreadCpuTime(t.getThreadId()) / 1_000_000, t.getThreadName()));
      }
      if (t != null && (t.getThreadName().startsWith("informer-") || t.getThreadName().startsWith("OkHttp")
          || t.getThreadName().startsWith("controller-reflector-"))) {
        total += Math.max(0, threads.getThreadCpuTime(t.getThreadId()));
      }
    }
    top.stream().sorted(java.util.Comparator.reverseOrder()).limit(12).forEach(System.out::println);
    return total / 1_000_000;
  }

  private static long usedHeapAfterGc() throws InterruptedException {
    for (int i = 0; i < 3; i++) {
      System.gc();
      Thread.sleep(200);
    }
    return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
  }

  private static JsonObject service(int i) {
    return new JsonObject().put("apiVersion", "v1").put("kind", "Service")
        .put("metadata", new JsonObject().put("namespace", "bench").put("name", "svc-" + i))
        .put("spec", new JsonObject().put("type", "ClusterIP")
            .put("clusterIP", "10.96." + (i / 250) + "." + (i % 250 + 1))
            .put("clusterIPs", new JsonArray().add("10.96." + (i / 250) + "." + (i % 250 + 1)))
            .put("ports", new JsonArray().add(new JsonObject().put("name", "http").put("port", 80)
                .put("targetPort", 8080).put("protocol", "TCP"))));
  }

  private static JsonObject slice(int i) {
    JsonArray endpoints = new JsonArray();
    for (int e = 0; e < 10; e++) {
      int n = i * 10 + e;
      endpoints.add(new JsonObject().put("addresses", new JsonArray().add("10." + (244 + n / 65536 % 8) + "." + (n / 256 % 256) + "." + (n % 256)))
          .put("conditions", new JsonObject().put("ready", true).put("serving", true).put("terminating", false))
          .put("nodeName", "node-" + (e % 3 + 1)).put("zone", "zone-" + (e % 3)));
    }
    return new JsonObject().put("apiVersion", "discovery.k8s.io/v1").put("kind", "EndpointSlice")
        .put("metadata", new JsonObject().put("namespace", "bench").put("name", "svc-" + i + "-abcde")
            .put("labels", new JsonObject().put("kubernetes.io/service-name", "svc-" + i)))
        .put("addressType", "IPv4").put("endpoints", endpoints)
        .put("ports", new JsonArray().add(new JsonObject().put("name", "http").put("port", 8080).put("protocol", "TCP")));
  }

  private static <T> T get(Future<T> f) throws Exception {
    return f.toCompletionStage().toCompletableFuture().get(10, TimeUnit.MINUTES);
  }
}
