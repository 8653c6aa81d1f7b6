package dev.kubeproxy.model;

import dev.kubeproxy.net.IpFamily;
import dev.kubeproxy.runtime.ProxierVerticle;

import dev.kubeproxy.config.AgentOptions;
import dev.kubeproxy.messages.EventBusAddresses;
import dev.kubeproxy.messages.ClusterEvent;
import dev.kubeproxy.messages.NodeInfo;
import dev.kubeproxy.config.KubeProxyConfiguration;
import dev.kubeproxy.metrics.ProxyMetrics;
import dev.kubeproxy.host.CommandRunner;
import dev.kubeproxy.host.ProcessCommandRunner;
import dev.kubeproxy.model.objects.EndpointSlice;
import dev.kubeproxy.model.objects.Service;
import io.vertx.core.Vertx;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Prints figures for the backend-neutral model (a benchmark, not a test: it asserts nothing).
 *
 * <p>For N Services with one port and one EndpointSlice of E endpoints each: time to feed every
 * object into the change trackers, to check them out into the live maps, to snapshot a
 * ProxyState, the retained heap; then a one-endpoint change (tracker update + checkout +
 * snapshot, median of 21); then the whole path through ProxierVerticle over the event bus (all
 * objects published, then SYNCED, until a no-op backend receives the complete state).
 *
 * <pre>
 * mvn -B -o -q package -DskipTests &amp;&amp; mvn -B -o -q test-compile
 * java -cp target/kube-proxy.jar:target/test-classes dev.kubeproxy.model.ModelBenchmark [services] [endpointsPerService]
 * </pre>
 * Defaults: {@value #DEFAULT_SERVICES} Services × {@value #DEFAULT_ENDPOINTS} endpoints.
 */
public final class ModelBenchmark {
  static final int DEFAULT_SERVICES = 10_000;
  static final int DEFAULT_ENDPOINTS = 10;

  public static void main(String[] args) throws Exception {
    int services = args.length > 0 ? Integer.parseInt(args[0]) : DEFAULT_SERVICES;
    int perService = args.length > 1 ? Integer.parseInt(args[1]) : DEFAULT_ENDPOINTS;
    System.out.printf("model benchmark: %,d services x %,d endpoints = %,d endpoints%n", services, perService,
        (long) services * perService);
    List<Service> svcs = new ArrayList<>(services);
    List<EndpointSlice> slices = new ArrayList<>(services);
    for (int i = 0; i < services; i++) {
      svcs.add(service(i));
      slices.add(slice("ns-" + (i % 100), i, perService, 0));
    }

    for (int round = 1; round <= 3; round++) {
      System.gc();
      long heapBefore = usedHeap();
      ProxyMetrics metrics = new ProxyMetrics();
      ServiceChangeTracker st = new ServiceChangeTracker(IpFamily.IPv4, true, metrics);
      EndpointsChangeTracker et = new EndpointsChangeTracker(IpFamily.IPv4, "node-0", true, metrics,
          Clock.systemUTC(), (s, ip) -> {});
      ServicePortMap sm = new ServicePortMap();
      EndpointsMap em = new EndpointsMap();
      long t0 = System.nanoTime();
      long cpu0 = cpu();
      for (Service s : svcs) {
        st.update(null, s);
      }
      for (EndpointSlice s : slices) {
        et.update(s, false);
      }
      long t1 = System.nanoTime();
      long cpu1 = cpu();
      sm.update(st);
      em.update(et);
      long t2 = System.nanoTime();
      long cpu2 = cpu();
      Map<ServicePortName, ServicePort> snapS = sm.snapshot();
      Map<ServicePortName, List<Endpoint>> snapE = em.snapshot();
      long t3 = System.nanoTime();
      long cpu3 = cpu();
      System.gc();
      long retained = usedHeap() - heapBefore;
      System.out.printf("round %d initial (wall / thread CPU): trackers %d / %d ms, checkout %d / %d ms, snapshot %d / %d ms"
              + " (%,d ports, %,d endpoint lists); retained heap %d MiB%n", round, ms(t1 - t0), ms(cpu1 - cpu0),
          ms(t2 - t1), ms(cpu2 - cpu1), ms(t3 - t2), ms(cpu3 - cpu2), snapS.size(), snapE.size(), retained >> 20);

      long[] change = new long[21];
      long[] snap = new long[21];
      long[] changeCpu = new long[21];
      for (int k = 0; k < change.length; k++) {
        EndpointSlice next = slice("ns-" + (k % services % 100), k % services, perService, k + 1);
        long c0 = System.nanoTime();
        long cc0 = cpu();
        et.update(next, false);
        sm.update(st);
        EndpointsMap.UpdateResult r = em.update(et);
        long c1 = System.nanoTime();
        sm.snapshot();
        em.snapshot();
        change[k] = System.nanoTime() - c0;
        changeCpu[k] = cpu() - cc0;
        snap[k] = System.nanoTime() - c1;
        if (r.updatedServices().size() != 1) {
          throw new IllegalStateException("expected one updated service, got " + r.updatedServices());
        }
      }
      Arrays.sort(change);
      Arrays.sort(snap);
      Arrays.sort(changeCpu);
      System.out.printf("round %d one-endpoint change: median %.2f ms wall (of which snapshot %.2f ms), %.2f ms thread"
          + " CPU, max %.2f ms wall%n", round, change[10] / 1e6, snap[10] / 1e6, changeCpu[10] / 1e6,
          change[change.length - 1] / 1e6);
    }

    Vertx vertx = Vertx.vertx();
    try {
      dev.kubeproxy.messages.EventBusCodecs.register(vertx);
      for (int round = 1; round <= 3; round++) {
        CompletableFuture<Long> done = new CompletableFuture<>();
        long[] start = new long[1];
        ProxyBackend backend = new ProxyBackend() {
          @Override
          public IpFamily family() {
            return IpFamily.IPv4;
          }

          @Override
          public SyncResult sync(ProxyState state) {
            if (state.services().size() == services && state.endpoints().size() == services) {
              done.complete(System.nanoTime() - start[0]);
            }
            return new SyncResult(true, Map.of(), 0, 0);
          }

          @Override
          public void privilegedInit() {}

          @Override
          public void cleanup() {}
        };
        KubeProxyConfiguration config = new KubeProxyConfiguration();
        config.mode = "nftables";
        config.nftables.syncPeriod = Duration.ofSeconds(30);
        config.nftables.minSyncPeriod = Duration.ofSeconds(1);
        AgentOptions options = new AgentOptions(config, null, "node-0", null, true, false, false);
        ProxierVerticle verticle = new ProxierVerticle(options, new NodeInfo("node-0", List.of("192.168.200.1"),
            List.of(), Map.of()), (o, n, r) -> List.of(backend), new ProcessCommandRunner(), new ProxyMetrics());
        String id = vertx.deployVerticle(verticle, ProxierVerticle.DEPLOYMENT).toCompletionStage().toCompletableFuture().get();
        start[0] = System.nanoTime();
        for (Service s : svcs) {
          vertx.eventBus().publish(EventBusAddresses.SERVICES, new ClusterEvent<>(ClusterEvent.Kind.SERVICE,
              ClusterEvent.Type.UPSERT, s.metadata().key(), null, s));
        }
        for (EndpointSlice s : slices) {
          vertx.eventBus().publish(EventBusAddresses.ENDPOINT_SLICES, new ClusterEvent<>(
              ClusterEvent.Kind.ENDPOINT_SLICE, ClusterEvent.Type.UPSERT,
              s.metadata().key(), null, s));
        }
        vertx.eventBus().publish(EventBusAddresses.SYNCED, ClusterEvent.Kind.SERVICE);
        vertx.eventBus().publish(EventBusAddresses.SYNCED, ClusterEvent.Kind.ENDPOINT_SLICE);
        vertx.eventBus().publish(EventBusAddresses.SYNCED, ClusterEvent.Kind.NODE);
        vertx.eventBus().publish(EventBusAddresses.SYNCED, ClusterEvent.Kind.SERVICE_CIDR);
        long took = done.get(5, TimeUnit.MINUTES);
        System.out.printf("round %d event bus -> ProxierVerticle -> backend, initial state: %d ms%n", round, ms(took));
        vertx.undeploy(id).toCompletionStage().toCompletableFuture().get();
      }
    } finally {
      vertx.close().toCompletionStage().toCompletableFuture().get();
    }
  }

  private static Service service(int i) {
    String ip = "10.96." + (i / 250) + "." + (i % 250 + 1);
    return TestObjects.service("ns-" + (i % 100), "svc-" + i, ip, TestObjects.port("http", 80, "TCP"));
  }

  /** Service i's one slice in namespace ns: its endpoints numbered from i × endpoints + generation. */
  public static EndpointSlice slice(String ns, int i, int endpoints, int generation) {
    EndpointSlice.Endpoint[] eps = new EndpointSlice.Endpoint[endpoints];
    for (int e = 0; e < endpoints; e++) {
      int n = i * endpoints + e + generation;
      eps[e] = TestObjects.ep("10." + (128 + n / 65536 % 64) + "." + (n / 256 % 256) + "." + (n % 256),
          "node-" + (n % 50));
    }
    return TestObjects.slice(ns, "svc-" + i + "-abcde", "svc-" + i, "IPv4",
        List.of(TestObjects.slicePort("http", 8080, "TCP")), eps);
  }

  private static long cpu() {
    return java.lang.management.ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime();
  }

  private static long usedHeap() {
    Runtime rt = Runtime.getRuntime();
    return rt.totalMemory() - rt.freeMemory();
  }

  private static long ms(long nanos) {
    return nanos / 1_000_000;
  }
}
