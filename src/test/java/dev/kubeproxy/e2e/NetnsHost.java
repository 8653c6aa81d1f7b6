package dev.kubeproxy.e2e;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * One {@link EchoMain} process running inside a test network namespace: it serves the echo
 * ports (when it stands for a pod) and sends probes from that namespace on request.
 */
public final class NetnsHost implements AutoCloseable {
  /** Probe timeout: short, so that a dropped packet costs little; refusals come back at once. */
  public static final int PROBE_TIMEOUT_MS = 1500;

  private final String name;
  private final String netns;
  private final Path logFile;
  private final Process process;
  private final Writer commands;
  private final BlockingQueue<String> answers = new LinkedBlockingQueue<>();

  private NetnsHost(String name, Process process, String netns, Path logFile) {
    this.netns = netns;
    this.logFile = logFile;
    this.name = name;
    this.process = process;
    this.commands = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
    Thread reader = new Thread(() -> {
      try (BufferedReader r = new BufferedReader(
          new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
        String line;
        while ((line = r.readLine()) != null) {
          answers.add(line);
        }
      } catch (IOException e) {
        // the process ended; pending probes time out below
      }
    }, "netns-host-" + name);
    reader.setDaemon(true);
    reader.start();
  }

  /** Starts the echo process named {@code name} in namespace {@code netns}; see {@link #awaitReady}. */
  static NetnsHost start(String netns, String name, List<Integer> tcpPorts, List<Integer> udpPorts,
      Path logFile) throws IOException {
    List<String> cmd = new ArrayList<>(List.of("ip", "netns", "exec", netns,
        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xmx32m", "-Xss512k", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xshare:auto",
        "-cp", classpathOfThisPackage(), EchoMain.class.getName(),
        "--name", name, "--lifetime-seconds", "1200"));
    if (!tcpPorts.isEmpty()) {
      cmd.addAll(List.of("--tcp", join(tcpPorts)));
    }
    if (!udpPorts.isEmpty()) {
      cmd.addAll(List.of("--udp", join(udpPorts)));
    }
    Process p = new ProcessBuilder(cmd)
        .redirectError(ProcessBuilder.Redirect.appendTo(logFile.toFile()))
        .start();
    return new NetnsHost(name, p, netns, logFile);
  }

  /** Waits for the process to report that its servers listen. */
  void awaitReady() throws IOException {
    String first = next(60_000);
    if (first == null || !first.equals("ready " + name)) {
      close();
      throw new IOException("echo process " + name + " in " + netns + " did not start (got " + first
          + "); see " + logFile);
    }
  }

  public String name() {
    return name;
  }

  public Answer tcp(String ip, int port) {
    return Answer.parse(send("tcp " + ip + " " + port + " " + PROBE_TIMEOUT_MS, PROBE_TIMEOUT_MS));
  }

  public Answer tcp(String ip, int port, int timeoutMs) {
    return Answer.parse(send("tcp " + ip + " " + port + " " + timeoutMs, timeoutMs));
  }

  /** A UDP probe; {@code localPort} 0 picks any, a fixed one reuses one conntrack entry. */
  public Answer udp(String ip, int port, int localPort) {
    return Answer.parse(send("udp " + ip + " " + port + " " + PROBE_TIMEOUT_MS + " " + localPort,
        PROBE_TIMEOUT_MS));
  }

  public Answer http(String url) {
    return Answer.parse(send("http " + url + " " + PROBE_TIMEOUT_MS, 2 * PROBE_TIMEOUT_MS));
  }

  private synchronized String send(String command, int probeTimeoutMs) {
    try {
      answers.clear();
      commands.write(command + "\n");
      commands.flush();
      String answer = next(probeTimeoutMs * 2L + 5000);
      if (answer == null) {
        throw new IllegalStateException("echo process " + name + " gave no answer to: " + command
            + (process.isAlive() ? "" : " (it exited with " + process.exitValue() + ")"));
      }
      return answer;
    } catch (IOException e) {
      throw new IllegalStateException("echo process " + name + " is gone: " + e, e);
    }
  }

  private String next(long timeoutMs) {
    try {
      return answers.poll(timeoutMs, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    }
  }

  @Override
  public void close() {
    process.destroy();
    try {
      if (!process.waitFor(3, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(3, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }

  private static String join(List<Integer> ports) {
    return String.join(",", ports.stream().map(String::valueOf).toList());
  }

  /** The test-classes folder (or jar) holding EchoMain; EchoMain needs nothing else. */
  private static String classpathOfThisPackage() {
    try {
      return Path.of(EchoMain.class.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }
}
