package dev.kubeproxy.packaging;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.kubeproxy.testutil.FreePorts;
import dev.kubeproxy.testutil.tier.EndToEnd;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The README's first command works anywhere: the dry run over conf/examples, started
 * through the launcher ({@code bin/kube-proxy}, as the README and the image do) and as
 * {@code java -jar}, in each mode, as a non-root user (uid/gid 65534 through setpriv) whose PATH
 * holds nothing but {@code java} — no iptables, ip6tables, nft, conntrack or ip — prints the rules
 * of both families, as upstream would on a host that has both tools. The only change to the
 * README's command is that the health and metrics ports are chosen free, so that parallel test
 * runs do not collide on 10256/10249.
 */
@EndToEnd
class QuickStartAnywhereIT {
  private static final int NOBODY = 65534;

  private Path work;
  private Process agent;

  @BeforeEach
  void setUp() throws IOException {
    assumeTrue("root".equals(System.getProperty("user.name")), "needs root to switch to another user");
    assumeTrue(setpriv() != null, "needs setpriv (util-linux) to run as another user");
    // A directory every user can read: the jar, the examples and a PATH with only java.
    work = Files.createTempDirectory("kp-quickstart-");
    Files.setPosixFilePermissions(work, PosixFilePermissions.fromString("rwxr-xr-x"));
    Files.copy(Path.of("target/kube-proxy.jar"), work.resolve("kube-proxy.jar"));
    Path examples = Files.createDirectories(work.resolve("conf/examples"));
    try (Stream<Path> files = Files.list(Path.of("conf/examples"))) {
      for (Path f : files.toList()) {
        Files.copy(f, examples.resolve(f.getFileName()));
      }
    }
    Path launcher = Files.createDirectories(work.resolve("launcher/bin"));
    Files.copy(Path.of("bin/kube-proxy"), launcher.resolve("kube-proxy"));
    Path bin = Files.createDirectory(work.resolve("bin"));
    Files.createSymbolicLink(bin.resolve("java"), Path.of(ProcessHandle.current().info().command().orElseThrow()));
    Files.createDirectory(work.resolve("home"));
    chownRecursively(work.resolve("home"));
  }

  @AfterEach
  void tearDown() throws Exception {
    if (agent != null && agent.isAlive()) {
      agent.destroy();
      if (!agent.waitFor(10, TimeUnit.SECONDS)) {
        agent.destroyForcibly();
      }
    }
    if (work != null) {
      try (Stream<Path> all = Files.walk(work)) {
        for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
          Files.deleteIfExists(p);
        }
      }
    }
  }

  @ParameterizedTest(name = "{0}, {1} mode")
  @CsvSource({"launcher, iptables", "launcher, nftables", "java -jar, iptables", "java -jar, nftables"})
  void dryRunNeedsNoNetfilterToolAndNoRoot(String how, String mode) throws Exception {
    List<String> command = new ArrayList<>(List.of(setpriv(), "--reuid=" + NOBODY, "--regid=" + NOBODY,
        "--clear-groups"));
    command.addAll(how.equals("launcher") ? List.of("launcher/bin/kube-proxy") : List.of("java", "-jar", "kube-proxy.jar"));
    command.addAll(List.of("--manifests", "conf/examples", "--hostname-override", "node-1", "--dry-run",
        "--healthz-bind-address", "127.0.0.1:" + FreePorts.loopback(), "--metrics-bind-address", "127.0.0.1:" + FreePorts.loopback()));
    if (mode.equals("nftables")) {
      command.add("--proxy-mode=nftables");
    }
    ProcessBuilder pb = new ProcessBuilder(command).directory(work.toFile());
    pb.environment().clear();
    pb.environment().put("PATH", work.resolve("bin").toString());
    pb.environment().put("HOME", work.resolve("home").toString());
    pb.environment().put("KUBE_PROXY_JAR", work.resolve("kube-proxy.jar").toString());
    Path stdout = work.resolve("home/stdout");
    Path stderr = work.resolve("home/stderr");
    pb.redirectOutput(stdout.toFile()).redirectError(stderr.toFile());
    agent = pb.start();

    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    String printed = "";
    while (System.nanoTime() < deadline && agent.isAlive()) {
      printed = Files.readString(stdout);
      if (printed.contains("10.96.0.10") && printed.contains("fd00:10:96::50")) {
        break;
      }
      Thread.sleep(200);
    }
    String log = Files.readString(stderr);
    assertTrue(agent.isAlive(), "the dry run stopped (exit " + (agent.isAlive() ? "-" : agent.exitValue())
        + "):\n" + log);
    assertEquals(NOBODY, uidOf(agent.pid()), "the agent runs as uid " + NOBODY);
    assertTrue(printed.contains("10.96.0.10"), "no IPv4 rules printed:\n" + printed + "\n" + log);
    assertTrue(printed.contains("fd00:10:96::50"), "no IPv6 rules printed (both families, as on a host with"
        + " both tools):\n" + printed + "\n" + log);
    if (mode.equals("iptables")) {
      assertTrue(printed.contains("-A KUBE-SERVICES"), printed);
    } else {
      assertTrue(printed.contains("ip6 kube-proxy"), printed);
    }
    assertFalse(log.contains("not available"), log);
    assertFalse(log.contains("Error running ProxyServer"), log);
  }

  private static String setpriv() {
    for (String p : List.of("/usr/bin/setpriv", "/bin/setpriv")) {
      if (Files.isExecutable(Path.of(p))) {
        return p;
      }
    }
    return null;
  }

  private static int uidOf(long pid) throws IOException {
    for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
      if (line.startsWith("Uid:")) {
        return Integer.parseInt(line.split("\\s+")[1]);
      }
    }
    throw new IOException("no Uid line for " + pid);
  }

  private static void chownRecursively(Path dir) throws IOException {
    Process p = new ProcessBuilder("chown", "-R", NOBODY + ":" + NOBODY, dir.toString()).redirectErrorStream(true)
        .start();
    try (InputStream in = p.getInputStream()) {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      in.transferTo(out);
      if (p.waitFor() != 0) {
        throw new IOException("chown failed: " + out.toString(StandardCharsets.UTF_8));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException(e);
    }
  }

}
