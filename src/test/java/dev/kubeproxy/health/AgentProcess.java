package dev.kubeproxy.health;

import dev.kubeproxy.testutil.FreePorts;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The packaged agent (target/kube-proxy.jar) as a child process for the health-port ITs: its
 * output kept line by line, plain HTTP/1.1 GETs to its ports, and a kill at the end.
 */
final class AgentProcess implements AutoCloseable {
  private final Process process;
  private final List<String> lines = new ArrayList<>();
  private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
      .connectTimeout(Duration.ofSeconds(3)).build();

  /** Starts {@code java -jar target/kube-proxy.jar ARGS} under a shell that first runs {@code shellPrefix} (e.g. a ulimit). */
  AgentProcess(String shellPrefix, List<String> args) throws IOException {
    // -Dkubeproxy.jar=... runs another build (e.g. to see a test fail without a fix)
    String jar = System.getProperty("kubeproxy.jar", "target/kube-proxy.jar");
    StringBuilder cmd = new StringBuilder(shellPrefix).append(" exec java -jar '").append(jar).append('\'');
    for (String a : args) {
      cmd.append(" '").append(a.replace("'", "'\\''")).append('\'');
    }
    process = new ProcessBuilder("sh", "-c", cmd.toString()).redirectErrorStream(true).start();
    Thread reader = new Thread(() -> {
      try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
        String line;
        while ((line = r.readLine()) != null) {
          synchronized (lines) {
            lines.add(line);
            lines.notifyAll();
          }
        }
      } catch (IOException ignored) {
        // the process ended
      }
    });
    reader.setDaemon(true);
    reader.start();
  }

  long pid() {
    return process.pid();
  }

  boolean alive() {
    return process.isAlive();
  }

  /** The number of lines printed so far: a mark for {@link #awaitLine}. */
  int mark() {
    synchronized (lines) {
      return lines.size();
    }
  }

  /** Waits for a line containing {@code text} printed after {@code mark}; true when seen in time. */
  boolean awaitLine(int mark, String text, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    synchronized (lines) {
      int next = mark;
      while (true) {
        for (; next < lines.size(); next++) {
          if (lines.get(next).contains(text)) {
            return true;
          }
        }
        long left = deadline - System.nanoTime();
        if (left <= 0 || !process.isAlive()) {
          return false;
        }
        lines.wait(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
      }
    }
  }

  /** The last lines printed, for failure messages. */
  String tail() {
    synchronized (lines) {
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
    }
  }

  /** GET http://127.0.0.1:PORT/PATH; the status code, or -1 when it fails or takes longer than {@code timeout}. */
  int get(int port, String path, Duration timeout) {
    try {
      HttpRequest req = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).timeout(timeout).GET().build();
      return http.send(req, HttpResponse.BodyHandlers.discarding()).statusCode();
    } catch (IOException e) {
      return -1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return -1;
    }
  }

  /** Open file descriptors of the agent process. */
  int openFileDescriptors() throws IOException {
    try (var s = java.nio.file.Files.list(java.nio.file.Path.of("/proc/" + pid() + "/fd"))) {
      return (int) s.count();
    }
  }

  @Override
  public void close() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(10, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      process.waitFor(10, TimeUnit.SECONDS);
    }
  }
}
