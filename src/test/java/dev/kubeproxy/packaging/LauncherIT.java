package dev.kubeproxy.packaging;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kubeproxy.testutil.TempTrees;
import dev.kubeproxy.testutil.tier.EndToEnd;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code bin/kube-proxy}, the one definition of how the JVM starts: the options the
 * README's "Memory and start-up" gives reasons for reach the JVM, {@code JAVA_OPTS} come after them
 * (and win), and the class-data sharing archive is used only while it is newer than the jar. Runs
 * {@code --version} on a copy of the packaged jar, with the JVM printing its command-line flags.
 */
@EndToEnd
class LauncherIT {
  private Path work;
  private Path jar;

  @BeforeEach
  void setUp() throws IOException {
    work = Files.createTempDirectory("kp-launcher-");
    jar = work.resolve("kube-proxy.jar");
    Files.copy(Path.of("target/kube-proxy.jar"), jar);
  }

  @AfterEach
  void tearDown() throws IOException {
    TempTrees.deleteTree(work);
  }

  @Test
  void theLaunchersOptionsReachTheJvmAndJavaOptsWin() throws Exception {
    String out = launch("-XX:+PrintCommandLineFlags -XshowSettings:properties -XX:MaxRAMPercentage=50", "--version");
    assertTrue(out.contains("Kubernetes v"), out);
    for (String flag : List.of("-XX:+UseSerialGC", "-XX:MinHeapFreeRatio=85", "-XX:MaxHeapFreeRatio=90",
        "-XX:InitialHeapSize=33554432",
        "-XX:-ShrinkHeapInSteps", "-XX:MarkSweepDeadRatio=0", "-XX:NewRatio=8", "-XX:TieredStopAtLevel=1", "-XX:+ExitOnOutOfMemoryError")) {
      assertTrue(out.contains(flag), flag + " in " + out);
    }
    assertTrue(out.contains("kube-proxy.steady-heap-free-ratios = 25,30"), "the ratios after the initial load: " + out);
    assertTrue(out.contains("-XX:MaxRAMPercentage=50"), "JAVA_OPTS after the launcher's 60: " + out);
    assertFalse(out.contains("SharedArchiveFile"), "no archive beside the jar: " + out);
  }

  @Test
  void theArchiveIsUsedOnlyWhileNewerThanTheJar() throws Exception {
    String made = launch("", "--cds-archive");
    Path archive = work.resolve("kube-proxy.jsa");
    assertTrue(Files.size(archive) > 1_000_000, made);
    String fresh = launch("-XX:+PrintCommandLineFlags -Xshare:on", "--version");
    assertTrue(fresh.contains("-XX:SharedArchiveFile=" + archive), fresh);
    assertTrue(fresh.contains("Kubernetes v"), "-Xshare:on: the archive maps, else the JVM stops: " + fresh);
    Files.setLastModifiedTime(jar, FileTime.from(Instant.now().plusSeconds(60)));
    String stale = launch("-XX:+PrintCommandLineFlags", "--version");
    assertFalse(stale.contains("SharedArchiveFile"), "a jar newer than the archive: " + stale);
  }

  /**
   * A newer JDK writes class lists that number each run's classes and whose lines depend on their
   * order, so --cds-archive must merge its runs' lists without reordering them. Runs where a JDK
   * newer than this one is installed beside it (Temurin 25 beside 17 on the project's machines).
   */
  @Test
  void theArchiveIsMadeAndMappedWithANewerJdkToo() throws Exception {
    Path newer = newerJdk();
    Assumptions.assumeTrue(newer != null, "no JDK newer than " + Runtime.version().feature() + " under /usr/lib/jvm");
    String made = launch(newer, "", "--cds-archive");
    assertTrue(Files.size(work.resolve("kube-proxy.jsa")) > 1_000_000, made);
    String fresh = launch(newer, "-Xshare:on", "--version");
    assertTrue(fresh.contains("Kubernetes v"), "-Xshare:on: the archive maps, else the JVM stops: " + fresh);
  }

  /** A JDK newer than this one under /usr/lib/jvm (its release file says), or null. */
  private static Path newerJdk() throws IOException {
    Path jvms = Path.of("/usr/lib/jvm");
    if (!Files.isDirectory(jvms)) {
      return null;
    }
    try (var dirs = Files.list(jvms)) {
      for (Path home : dirs.sorted().toList()) {
        Path release = home.resolve("release");
        if (Files.isExecutable(home.resolve("bin/java")) && Files.isRegularFile(release)) {
          Matcher m = Pattern.compile("JAVA_VERSION=\"(\\d+)").matcher(Files.readString(release));
          if (m.find() && Integer.parseInt(m.group(1)) > Runtime.version().feature()) {
            return home;
          }
        }
      }
    }
    return null;
  }

  private String launch(String javaOpts, String... args) throws IOException, InterruptedException {
    return launch(Path.of(System.getProperty("java.home")), javaOpts, args);
  }

  /** Runs the launcher on the copied jar with that JDK; stdout and stderr together; it must exit 0. */
  private String launch(Path javaHome, String javaOpts, String... args) throws IOException, InterruptedException {
    List<String> cmd = new java.util.ArrayList<>(List.of("sh", Path.of("bin/kube-proxy").toAbsolutePath().toString()));
    cmd.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
    pb.environment().put("KUBE_PROXY_JAR", jar.toString());
    pb.environment().put("JAVA_OPTS", javaOpts);
    pb.environment().put("JAVA_HOME", javaHome.toString());
    Process p = pb.start();
    byte[] output = p.getInputStream().readAllBytes();
    assertTrue(p.waitFor(5, TimeUnit.MINUTES), "the launcher finished");
    String out = new String(output, StandardCharsets.UTF_8);
    assertEquals(0, p.exitValue(), out);
    return out;
  }
}
