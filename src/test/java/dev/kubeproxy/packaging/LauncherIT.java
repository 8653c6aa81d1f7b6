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
import org.junit.jupiter.api.AfterEach;
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
    for (String flag : List.of("-XX:+UseSerialGC", "-XX:MinHeapFreeRatio=60", "-XX:MaxHeapFreeRatio=80",
        "-XX:InitialHeapSize=33554432",
        "-XX:-ShrinkHeapInSteps", "-XX:NewRatio=8", "-XX:TieredStopAtLevel=1", "-XX:+ExitOnOutOfMemoryError")) {
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

  /** Runs the launcher on the copied jar; stdout and stderr together; it must exit 0. */
  private String launch(String javaOpts, String... args) throws IOException, InterruptedException {
    List<String> cmd = new java.util.ArrayList<>(List.of("sh", Path.of("bin/kube-proxy").toAbsolutePath().toString()));
    cmd.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
    pb.environment().put("KUBE_PROXY_JAR", jar.toString());
    pb.environment().put("JAVA_OPTS", javaOpts);
    pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
    Process p = pb.start();
    byte[] output = p.getInputStream().readAllBytes();
    assertTrue(p.waitFor(5, TimeUnit.MINUTES), "the launcher finished");
    String out = new String(output, StandardCharsets.UTF_8);
    assertEquals(0, p.exitValue(), out);
    return out;
  }
}
