package dev.kubeproxy.runtime;

import dev.kubeproxy.backend.nftables.CommitGenerations;
import dev.kubeproxy.backend.nftables.NftablesProxier;
import dev.kubeproxy.host.ProcessCommandRunner;
import dev.kubeproxy.messages.EventBusCodecs;
import dev.kubeproxy.metrics.ProxyMetrics;
import dev.kubeproxy.model.LocalTrafficDetector;
import dev.kubeproxy.model.ModelBenchmark;
import dev.kubeproxy.model.ModelGates;
import dev.kubeproxy.model.ProxierSettings;
import dev.kubeproxy.model.TestObjects;
import dev.kubeproxy.model.objects.Service;
import dev.kubeproxy.net.IpFamily;
import io.vertx.core.Vertx;
import java.io.OutputStream;
import java.io.PrintStream;
import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * The agent's own work in one partial nftables sync of a large cluster, in process (prints,
 * asserts nothing): a {@link FamilyProxier} over a dry-run {@link NftablesProxier} (transactions
 * rendered to nowhere: no kernel time), N Services of one port with one EndpointSlice of E
 * endpoints each, synced fully once; then rounds of the scale benchmark's churn (20 slice
 * replacements and a Service created and the previous one deleted) each followed by one
 * {@code syncOnce}, timed as the agent's sync-duration histogram times it and as a whole (with the
 * reporting after it).
 *
 * <pre>
 * mvn -B -o -q package -DskipTests &amp;&amp; mvn -B -o -q test-compile
 * java -Xmx1g -cp target/kube-proxy.jar:target/test-classes dev.kubeproxy.runtime.PartialSyncBenchmark [services] [endpoints] [rounds]
 * </pre>
 * Defaults: {@value #DEFAULT_SERVICES} Services × {@value #DEFAULT_ENDPOINTS} endpoint, {@value #DEFAULT_ROUNDS} rounds.
 */
public final class PartialSyncBenchmark {
  private static final int SLICES_PER_ROUND = 20;
  static final int DEFAULT_SERVICES = 44_125;
  static final int DEFAULT_ENDPOINTS = 1;
  static final int DEFAULT_ROUNDS = 60;

  public static void main(String[] args) throws Exception {
    int services = args.length > 0 ? Integer.parseInt(args[0]) : DEFAULT_SERVICES;
    int perService = args.length > 1 ? Integer.parseInt(args[1]) : DEFAULT_ENDPOINTS;
    int rounds = args.length > 2 ? Integer.parseInt(args[2]) : DEFAULT_ROUNDS;
    Vertx vertx = Vertx.vertx();
    try {
      EventBusCodecs.register(vertx);
      ProxyMetrics metrics = new ProxyMetrics();
      ProxierSettings ps = new ProxierSettings(IpFamily.IPv4, "node-0", List.of("192.168.200.1"),
          List.of("192.168.200.1/32"), false, 14, false, new LocalTrafficDetector("ClusterCIDR", "10.244.0.0/16"),
          Duration.ofHours(1), Duration.ofSeconds(1), new PrintStream(OutputStream.nullOutputStream()));
      NftablesProxier backend = new NftablesProxier(ps, new ProcessCommandRunner(), metrics, new CommitGenerations(),
          false);
      FamilyProxier.Settings settings = new FamilyProxier.Settings("node-0", Map.of(), Duration.ofSeconds(30),
          Duration.ofSeconds(1), Duration.ofSeconds(30), new ModelGates(true, true, true, true));
      FamilyProxier proxier = new FamilyProxier(vertx, backend, settings, metrics, Clock.systemUTC(), null,
          new IdleTimer());
      for (int i = 0; i < services; i++) {
        proxier.onServiceUpdate(null, service(i));
        proxier.onEndpointSliceUpdate(ModelBenchmark.slice("bench", i, perService, 0), false);
      }
      proxier.initialListsDelivered();
      long t = System.nanoTime();
      proxier.syncOnce();
      System.out.printf("%,d services x %,d endpoints: first sync %d ms%n", services, perService,
          (System.nanoTime() - t) / 1_000_000);
      long[] whole = new long[rounds];
      int generation = 0;
      int created = 0;
      Service previous = null;
      for (int r = 0; r < rounds; r++) {
        for (int k = 0; k < SLICES_PER_ROUND; k++) {
          generation++;
          proxier.onEndpointSliceUpdate(ModelBenchmark.slice("bench", generation % 20, perService, generation), false);
        }
        Service extra = service(services + created++);
        proxier.onServiceUpdate(null, extra);
        if (previous != null) {
          proxier.onServiceUpdate(previous, null);
        }
        previous = extra;
        long s = System.nanoTime();
        proxier.syncOnce();
        whole[r] = System.nanoTime() - s;
      }
      long[] warm = Arrays.copyOfRange(whole, rounds / 3, rounds);
      Arrays.sort(warm);
      System.out.printf("partial syncs (after %d warm-up rounds): p50 %.1f ms, p90 %.1f ms, max %.1f ms%n",
          rounds / 3, warm[warm.length / 2] / 1e6, warm[warm.length * 9 / 10] / 1e6, warm[warm.length - 1] / 1e6);
    } finally {
      vertx.close().toCompletionStage().toCompletableFuture().get();
    }
  }

  private static Service service(int i) {
    String ip = "10." + (96 + i / 65536) + "." + (i / 256 % 256) + "." + (i % 256);
    return TestObjects.service("bench", "svc-" + i, ip, TestObjects.port("http", 80, "TCP"));
  }


  /** The runner never runs by itself here: each sync is called. */
  private static final class IdleTimer implements RunnerTimer {
    @Override
    public long nowMillis() {
      return System.nanoTime() / 1_000_000;
    }

    @Override
    public long schedule(long delayMillis, Runnable task) {
      return 0;
    }

    @Override
    public void cancel(long id) {}
  }
}
