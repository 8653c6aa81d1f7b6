package dev.kubeproxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.kubeproxy.testutil.tier.EndToEnd;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs the packaged jar (and bin/vertx) as operators do. Every agent started here runs with
 * --dry-run and --manifests (an empty directory) on loopback ports: no rule, sysctl or API call.
 */
@EndToEnd
class KubeProxyJarIT {
  private static final Path JAR = Path.of("target", "kube-proxy.jar").toAbsolutePath();
  private static final String STARTED = "\"kube-proxy started\"";
  private static final String UPDATED = "content of the proxy server's configuration file was updated";

  @TempDir
  Path dir;

  private final List<Process> processes = new ArrayList<>();

  /** A finished or running process with its combined output in a file. */
  private record Run(Process process, Path output) {
    String text() throws IOException {
      return Files.readString(output, StandardCharsets.UTF_8);
    }
  }

  @BeforeEach
  void jarExists() {
    assumeTrue(Files.isRegularFile(JAR), "target/kube-proxy.jar is missing: run `mvn -B verify` (it packages first)");
  }

  @AfterEach
  void killLeftovers() {
    for (Process p : processes) {
      p.destroyForcibly();
    }
  }

  private Run start(List<String> command) throws IOException {
    Path out = Files.createTempFile(dir, "out", ".log");
    Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(out.toFile()).start();
    processes.add(p);
    return new Run(p, out);
  }

  private Run jar(String... args) throws IOException {
    List<String> cmd = new ArrayList<>(List.of("java", "-jar", JAR.toString()));
    cmd.addAll(List.of(args));
    return start(cmd);
  }

  private static int exit(Run r) throws Exception {
    assertTrue(r.process().waitFor(60, TimeUnit.SECONDS), "process did not end");
    return r.process().exitValue();
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  private Path configFile(Path where) throws IOException {
    Files.writeString(where, "apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\n"
        + "healthzBindAddress: 127.0.0.1:" + freePort() + "\nmetricsBindAddress: 127.0.0.1:" + freePort() + "\n"
        + "hostnameOverride: it-node\n");
    return where;
  }

  private List<String> agentArgs(Path config) throws IOException {
    Path manifests = Files.createDirectories(dir.resolve("manifests"));
    return List.of("--config", config.toString(), "--manifests", manifests.toString(), "--dry-run", "--v=2");
  }

  /** Waits until the agent says it started; skips (with the reason) when it cannot start here. */
  private static void awaitStarted(Run r) throws Exception {
    for (int i = 0; i < 600; i++) {
      if (r.text().contains(STARTED)) {
        return;
      }
      if (!r.process().isAlive()) {
        assumeTrue(false, "the agent did not start in --manifests --dry-run mode (parts owned by other "
            + "helpers may be missing), output:\n" + r.text());
      }
      Thread.sleep(50);
    }
    throw new AssertionError("agent did not start within 30 s:\n" + r.text());
  }

  private static void assertRestarted(Run r) throws Exception {
    long changed = System.nanoTime();
    assertTrue(r.process().waitFor(10, TimeUnit.SECONDS), "the agent kept running:\n" + r.text());
    // a figure, not a limit: upstream exits within about a second
    System.out.println("config change to process exit: " + (System.nanoTime() - changed) / 1_000_000 + " ms");
    assertEquals(1, r.process().exitValue(), r.text());
    assertTrue(r.text().contains(UPDATED), r.text());
  }

  @Test
  void versionAndHelpExitZero() throws Exception {
    Run v = jar("--version");
    assertEquals(0, exit(v));
    assertEquals("Kubernetes v1.37.0\n", v.text());
    Run h = jar("--help");
    assertEquals(0, exit(h));
    assertTrue(h.text().contains("--healthz-bind-address ipport"), h.text());
  }

  @Test
  void badFlagExitsOneWithOneClearLine() throws Exception {
    Run r = jar("--iptables-sync-period=soon", "--dry-run");
    assertEquals(1, exit(r));
    assertTrue(r.text().startsWith("Error: invalid argument \"soon\" for \"--iptables-sync-period\" flag: "
        + "time: invalid duration \"soon\"\n"), r.text());
    Run p = jar("extra");
    assertEquals(1, exit(p));
    assertTrue(p.text().startsWith("Error: \"kube-proxy\" does not take any arguments, got [\"extra\"]"), p.text());
  }

  @Test
  void malformedConfigNamesFileAndLine() throws Exception {
    Path f = dir.resolve("bad.yaml");
    Files.writeString(f, "apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\nmode: [x\n");
    Run r = jar("--config", f.toString(), "--dry-run");
    assertEquals(1, exit(r));
    assertTrue(r.text().contains("\"command failed\" err=\"failed complete: failed to decode: " + f + ":"), r.text());
  }

  @Test
  void endlessConfigFileIsOneClearLineNotAnOutOfMemoryError() throws Exception {
    Run r = jar("--config", "/dev/zero", "--dry-run");
    assertEquals(1, exit(r));
    assertTrue(r.text().contains("\"command failed\" err=\"failed complete: read /dev/zero: the file is larger than "
        + "1048576 bytes"), r.text());
    assertTrue(!r.text().contains("OutOfMemoryError") && !r.text().contains("\tat "), r.text());
  }

  @Test
  void wrongApiVersionIsAnError() throws Exception {
    Path f = dir.resolve("v2.yaml");
    Files.writeString(f, "apiVersion: kubeproxy.config.k8s.io/v1alpha2\nkind: KubeProxyConfiguration\n");
    Run r = jar("--config", f.toString(), "--dry-run");
    assertEquals(1, exit(r));
    assertTrue(r.text().contains("no kind \\\"KubeProxyConfiguration\\\" is registered for version "
        + "\\\"kubeproxy.config.k8s.io/v1alpha2\\\""), r.text());
  }

  @Test
  void invalidConfigReportsEveryError() throws Exception {
    Path f = dir.resolve("invalid.yaml");
    Files.writeString(f, "apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\n"
        + "iptables:\n  masqueradeBit: 40\noomScoreAdj: 5000\n");
    Run r = jar("--config", f.toString(), "--dry-run");
    assertEquals(1, exit(r));
    assertTrue(r.text().contains("failed validate: [KubeProxyConfiguration.KubeProxyIPTablesConfiguration.MasqueradeBit: "
        + "Invalid value: 40: must be within the range [0, 31], KubeProxyConfiguration.KubeProxyLinuxConfiguration."
        + "OOMScoreAdj: Invalid value: 5000: must be within the range [-1000, 1000]]"), r.text());
  }

  @Test
  void lenientDecodingWarnsAndContinues() throws Exception {
    Path f = dir.resolve("lenient.yaml");
    Files.writeString(f, "apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\nfoo: 1\n");
    Path out = dir.resolve("effective.yaml");
    Run r = jar("--config", f.toString(), "--write-config-to", out.toString());
    assertEquals(0, exit(r));
    assertTrue(r.text().contains("\"Using lenient decoding as strict decoding failed\" err=\"strict decoding error: "
        + "unknown field \\\"foo\\\"\""), r.text());
  }

  /**
   * The jar reads --config with vertx-config-yaml's format: its services file survives the shade
   * (without the merge, vertx-config's own file hides it and the retriever has no "yaml" format).
   */
  @Test
  void yamlConfigIsReadThroughVertxConfigYamlInTheJar() throws Exception {
    try (java.util.zip.ZipFile zip = new java.util.zip.ZipFile(JAR.toFile())) {
      java.util.zip.ZipEntry services = zip.getEntry("META-INF/services/io.vertx.config.spi.ConfigProcessor");
      String formats = new String(zip.getInputStream(services).readAllBytes(), StandardCharsets.UTF_8);
      assertTrue(formats.contains("io.vertx.config.yaml.YamlProcessor"), formats);
    }
    Path f = dir.resolve("anchors.yaml");
    Files.writeString(f, "apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\n"
        + "hostnameOverride: &h 2026-12-03\nclusterCIDR: 10.0.0.0/8\nipvs:\n  excludeCIDRs: [*h]\n");
    Path out = dir.resolve("effective.yaml");
    Run r = jar("--config", f.toString(), "--write-config-to", out.toString());
    assertEquals(0, exit(r), r.text());
    String written = Files.readString(out);
    assertTrue(written.matches("(?s).*hostnameOverride: \"?2026-12-03\"?\n.*"), written);
    assertTrue(written.contains("clusterCIDR: 10.0.0.0/8\n"), written);
  }

  @Test
  void writeConfigToRoundTrip() throws Exception {
    Path first = dir.resolve("first.yaml");
    Path second = dir.resolve("second.yaml");
    Run a = jar("--write-config-to", first.toString(), "--proxy-mode=nftables", "--conntrack-max-per-core=0",
        "--nodeport-addresses=10.0.0.0/8", "--feature-gates=MultiCIDRServiceAllocator=true");
    assertEquals(0, exit(a), a.text());
    assertTrue(a.text().contains("\"Wrote configuration\" file=\"" + first + "\""), a.text());
    Run b = jar("--config", first.toString(), "--write-config-to", second.toString());
    assertEquals(0, exit(b), b.text());
    assertEquals(Files.readString(first), Files.readString(second));
    assertTrue(Files.readString(first).contains("maxPerCore: 0\n"));
  }

  /** ipvs mode in a dry run: the deprecation notice, and the ipvs state it would program, printed. */
  @Test
  void ipvsModeDryRunPrintsWhatItWouldProgram() throws Exception {
    Path manifests = Files.createDirectories(dir.resolve("m"));
    Run r = jar("--proxy-mode=ipvs", "--dry-run", "--manifests", manifests.toString(),
        "--healthz-bind-address=127.0.0.1:" + freePort(), "--metrics-bind-address=127.0.0.1:" + freePort());
    for (int i = 0; i < 600 && !r.text().contains("# iptables-restore input\n*nat\n"); i++) {
      assertTrue(r.process().isAlive(), r.text());
      Thread.sleep(50);
    }
    assertTrue(r.text().contains("The ipvs proxier is now deprecated and may be removed in a future release."
        + " Please use 'nftables' instead."), r.text());
    assertTrue(r.text().contains("# ipvs mode, IPv4 (dry run, nothing applied)\n# IPVS virtual servers\n"), r.text());
    assertTrue(r.text().contains("-A KUBE-IPVS-FILTER -m conntrack --ctstate NEW -m set --match-set KUBE-IPVS-IPS dst"
        + " -j REJECT\n"), r.text());
  }

  @Test
  void cleanupDryRunExitsZero() throws Exception {
    Run r = jar("--cleanup", "--dry-run");
    assertEquals(0, exit(r), r.text());
  }

  @Test
  void initOnlyDryRunExitsZero() throws Exception {
    Path manifests = Files.createDirectories(dir.resolve("m"));
    Run r = jar("--init-only", "--dry-run", "--manifests", manifests.toString(), "--hostname-override=it-node");
    assertEquals(0, exit(r), r.text());
  }

  @Test
  void configWriteRestartsWithStatusOne() throws Exception {
    Path f = configFile(dir.resolve("config.yaml"));
    Run r = jar(agentArgs(f).toArray(new String[0]));
    awaitStarted(r);
    Files.writeString(f, Files.readString(f) + "mode: nftables\n");
    assertRestarted(r);
  }

  @Test
  void configRenameRestartsWithStatusOne() throws Exception {
    Path f = configFile(dir.resolve("config.yaml"));
    Run r = jar(agentArgs(f).toArray(new String[0]));
    awaitStarted(r);
    Path next = configFile(dir.resolve("next.yaml"));
    Files.move(next, f, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    assertRestarted(r);
  }

  @Test
  void configMapSwapRestartsWithStatusOne() throws Exception {
    Path volume = Files.createDirectories(dir.resolve("volume"));
    Path v1 = Files.createDirectory(volume.resolve("..2026_12_02_10_00_00.1"));
    configFile(v1.resolve("config.yaml"));
    Files.createSymbolicLink(volume.resolve("..data"), v1.getFileName());
    Path f = Files.createSymbolicLink(volume.resolve("config.yaml"), Path.of("..data/config.yaml"));
    Run r = jar(agentArgs(f).toArray(new String[0]));
    awaitStarted(r);
    Path v2 = Files.createDirectory(volume.resolve("..2026_12_02_10_05_00.2"));
    Files.copy(v1.resolve("config.yaml"), v2.resolve("config.yaml"));
    Files.writeString(v2.resolve("config.yaml"), "mode: nftables\n", java.nio.file.StandardOpenOption.APPEND);
    Path tmp = Files.createSymbolicLink(volume.resolve("..data_tmp"), v2.getFileName());
    Files.move(tmp, volume.resolve("..data"), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    assertRestarted(r);
  }

  // ---- bin/vertx ----

  private Run vertxRun(String json) throws IOException {
    Path conf = Files.createTempFile(dir, "conf", ".json");
    Files.writeString(conf, json);
    return start(List.of(Path.of("bin", "vertx").toAbsolutePath().toString(), "run", "dev.kubeproxy.AgentVerticle",
        "-conf", conf.toString()));
  }

  @Test
  void vertxRunTakesFlagsFromJson() throws Exception {
    Run v = vertxRun("{\"version\": true}");
    assertEquals(0, exit(v), v.text());
    assertTrue(v.text().contains("Kubernetes v1.37.0"), v.text());
    Run bad = vertxRun("{\"bind-address\": \"nowhere\"}");
    assertEquals(1, exit(bad), bad.text());
    assertTrue(bad.text().contains("Error: invalid argument \"nowhere\" for \"--bind-address\" flag"), bad.text());
    Path out = dir.resolve("from-vertx.yaml");
    Run w = vertxRun("{\"write-config-to\": \"" + out + "\", \"proxy-mode\": \"nftables\"}");
    assertEquals(0, exit(w), w.text());
    assertTrue(Files.readString(out).contains("mode: nftables\n"));
  }

  @Test
  void vertxRunHonoursAgentFatal() throws Exception {
    Path f = configFile(dir.resolve("config.yaml"));
    Path manifests = Files.createDirectories(dir.resolve("manifests"));
    Run r = vertxRun("{\"config\": \"" + f + "\", \"manifests\": \"" + manifests + "\", \"dry-run\": true, \"v\": 2}");
    awaitStarted(r);
    Files.writeString(f, Files.readString(f) + "mode: nftables\n");
    assertRestarted(r);
  }
}
