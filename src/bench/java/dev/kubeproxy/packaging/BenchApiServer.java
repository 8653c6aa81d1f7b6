package dev.kubeproxy.packaging;

import dev.kubeproxy.testapi.TestApiServer;
import io.vertx.core.Vertx;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/**
 * The scale benchmark's API server: the project's test API server holding a generated cluster,
 * started by the benchmark inside the agent's scratch network namespace (so it listens on that
 * namespace's loopback and the namespace needs no link out), and changed by commands on stdin,
 * one line each, answered "ok" once the change is stored and sent to the watches:
 *
 * <pre>
 * slice I G TIME   Service I's slice gets its endpoints of generation G, triggered at TIME
 * create I         Service I is created with its slice
 * delete I         Service I and its slice are deleted
 * </pre>
 *
 * Arguments: SERVICES ENDPOINTS. Prints "listening PORT" once the cluster is stored, served, warm
 * and the process quiet.
 *
 * <p>Warm: before it says so, the server answers the agent's own lists a few times, so that its
 * compiler has done its work. A real API server is long running and on other machines; a cold one
 * here would spend the node's two cores compiling while the agent starts.
 */
public final class BenchApiServer {
  /** The label selector the agent lists Services and EndpointSlices with (upstream's server.go). */
  private static final String AGENT_LABEL_SELECTOR =
      "!service.kubernetes.io/service-proxy-name,!service.kubernetes.io/headless";
  private static final int WARM_ROUNDS = 3;

  private BenchApiServer() {}

  public static void main(String[] args) throws Exception {
    if (args.length != 2) {
      throw new IllegalArgumentException("usage: BenchApiServer SERVICES ENDPOINTS_PER_SERVICE");
    }
    BenchCluster cluster = new BenchCluster(Integer.parseInt(args[0]), Integer.parseInt(args[1]));
    Vertx vertx = Vertx.vertx();
    TestApiServer api = new TestApiServer(vertx);
    api.upsert(cluster.node());
    for (int i = 0; i < cluster.services; i++) {
      api.upsert(cluster.service(i));
      api.upsert(cluster.slice(i, 0, null));
    }
    int port = api.start(0).toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);
    warm(port);
    settle();
    System.out.println("listening " + port);
    System.out.flush();
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    for (String line; (line = in.readLine()) != null; ) {
      String[] f = line.trim().split(" ");
      switch (f[0]) {
        case "slice" -> api.upsert(cluster.slice(Integer.parseInt(f[1]), Integer.parseInt(f[2]), f[3]));
        case "create" -> {
          int i = Integer.parseInt(f[1]);
          api.upsert(cluster.service(i));
          api.upsert(cluster.slice(i, 0, null));
        }
        case "delete" -> {
          int i = Integer.parseInt(f[1]);
          api.delete("EndpointSlice", "bench", "svc-" + i + "-abcde");
          api.delete("Service", "bench", "svc-" + i);
        }
        default -> throw new IllegalArgumentException("unknown command (slice, create, delete): " + line);
      }
      System.out.println("ok");
      System.out.flush();
    }
    vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  /** The agent's two large lists (as its informers ask for them), answered {@value #WARM_ROUNDS} times and dropped. */
  private static void warm(int port) throws IOException, InterruptedException {
    String selector = URLEncoder.encode(AGENT_LABEL_SELECTOR, StandardCharsets.UTF_8);
    HttpClient client = HttpClient.newHttpClient();
    for (int round = 0; round < WARM_ROUNDS; round++) {
      for (String path : List.of("/api/v1/services", "/apis/discovery.k8s.io/v1/endpointslices")) {
        HttpResponse<Void> answer = client.send(HttpRequest.newBuilder(
            URI.create("http://127.0.0.1:" + port + path + "?labelSelector=" + selector + "&resourceVersion=0")).build(),
            HttpResponse.BodyHandlers.discarding());
        if (answer.statusCode() != 200) {
          throw new IllegalStateException("warming the API server: " + path + " answered " + answer.statusCode());
        }
      }
    }
  }

  /**
   * Waits until this process is quiet (under 5 % of a core over half a second, at most 30 s): the
   * compiler's queue and the collector's work that the warm rounds left would otherwise run on the
   * node's cores while the agent starts, which a remote API server's never do.
   */
  private static void settle() throws InterruptedException {
    com.sun.management.OperatingSystemMXBean os =
        (com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory.getOperatingSystemMXBean();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    long before = os.getProcessCpuTime();
    while (System.nanoTime() < deadline) {
      Thread.sleep(500);
      long now = os.getProcessCpuTime();
      if (now - before < TimeUnit.MILLISECONDS.toNanos(25)) {
        return;
      }
      before = now;
    }
  }

  /** The benchmark's side: the server started in a namespace, its port, and the commands sent to it. */
  static final class Handle implements AutoCloseable {
    private final Process process;
    private final BufferedReader out;
    private final Writer in;
    final int port;

    Handle(Netns ns, BenchCluster cluster, Path log) throws IOException {
      String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
      // A heap of its own: the store holds every object as a JSON tree and as its text. One GC thread and
      // the quick compiler only leave the cores to the agent: the optimizing one went on compiling while it listed.
      process = new ProcessBuilder(List.of("ip", "netns", "exec", ns.name, java, "-Xmx4g", "-XX:TieredStopAtLevel=1", "-XX:+UseParallelGC",
          "-XX:ParallelGCThreads=1", "-cp", System.getProperty("java.class.path"), BenchApiServer.class.getName(),
          String.valueOf(cluster.services), String.valueOf(cluster.endpoints)))
          .redirectError(log.toFile()).start();
      out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
      in = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
      String first = out.readLine();
      if (first == null || !first.startsWith("listening ")) {
        process.destroyForcibly();
        throw new IllegalStateException("the benchmark's API server did not start: " + first + "; see " + log);
      }
      port = Integer.parseInt(first.substring("listening ".length()));
    }

    /** The server's process (ip netns exec runs the JVM in its own place). */
    long pid() {
      return process.pid();
    }

    /** Sends one command and waits until the server has stored it. */
    void send(String command) throws IOException {
      in.write(command + "\n");
      in.flush();
      String answer = out.readLine();
      if (!"ok".equals(answer)) {
        throw new IllegalStateException("the benchmark's API server answered " + answer + " to " + command);
      }
    }

    /** A kubeconfig for the agent in the same namespace: plain HTTP to the loopback, no credentials. */
    Path kubeconfig(Path dir) throws IOException {
      Path file = dir.resolve("kubeconfig");
      Files.writeString(file, "apiVersion: v1\nkind: Config\nclusters:\n- name: bench\n  cluster:\n    server: "
          + "http://127.0.0.1:" + port + "\ncontexts:\n- name: bench\n  context:\n    cluster: bench\n    user: bench\n"
          + "current-context: bench\nusers:\n- name: bench\n  user: {}\n");
      return file;
    }

    @Override
    public void close() throws InterruptedException {
      process.destroy();
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor();
      }
    }
  }
}
