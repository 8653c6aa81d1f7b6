package dev.kubeproxy.runtime;

import dev.kubeproxy.config.ConfigDecodeException;
import dev.kubeproxy.config.KubeProxyConfiguration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kubeproxy.messages.EventBusAddresses;
import dev.kubeproxy.testutil.tier.Unit;
import io.vertx.core.Vertx;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The --config file's verticle: its first read, and its watch: what restarts the agent (a message on
 * agent.fatal) and what does not.
 */
@Unit
class ConfigVerticleTest {
  private static final String BODY = "apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\n";

  @TempDir
  Path dir;

  private Vertx vertx;
  private final CompletableFuture<String> fatal = new CompletableFuture<>();
  private long changedAt;
  private ConfigVerticle verticle;

  @BeforeEach
  void setUp() {
    vertx = Vertx.vertx();
    vertx.eventBus().<String>consumer(EventBusAddresses.FATAL, m -> fatal.complete(m.body()));
  }

  @AfterEach
  void tearDown() throws Exception {
    vertx.close().toCompletionStage().toCompletableFuture().get(5, TimeUnit.SECONDS);
  }

  private void watch(Path configFile) throws Exception {
    verticle = new ConfigVerticle(configFile == null ? null : configFile.toString());
    vertx.deployVerticle(verticle).toCompletionStage().toCompletableFuture().get(5, TimeUnit.SECONDS);
  }

  private Path config() throws Exception {
    Path f = dir.resolve("config.yaml");
    Files.writeString(f, BODY);
    return f;
  }

  private void assertRestartWithinOneSecond() throws Exception {
    String reason = fatal.get(5, TimeUnit.SECONDS);
    long ms = (System.nanoTime() - changedAt) / 1_000_000;
    assertEquals("content of the proxy server's configuration file was updated", reason);
    assertTrue(ms < 1000, "took " + ms + " ms");
  }

  private void assertNoRestart() throws Exception {
    try {
      fatal.get(1500, TimeUnit.MILLISECONDS);
    } catch (TimeoutException expected) {
      return;
    }
    throw new AssertionError("unexpected restart: " + fatal.getNow(null));
  }

  private void mark() {
    changedAt = System.nanoTime();
  }

  @Test
  void writeRestarts() throws Exception {
    Path f = config();
    watch(f);
    mark();
    Files.writeString(f, BODY + "mode: nftables\n");
    assertRestartWithinOneSecond();
  }

  @Test
  void writeOfTheSameBytesRestarts() throws Exception {
    Path f = config();
    watch(f);
    Thread.sleep(20); // a later modification time
    mark();
    Files.writeString(f, BODY);
    assertRestartWithinOneSecond();
  }

  @Test
  void renameAwayRestarts() throws Exception {
    Path f = config();
    watch(f);
    mark();
    Files.move(f, dir.resolve("config.yaml.old"));
    assertRestartWithinOneSecond();
  }

  @Test
  void renameOntoRestarts() throws Exception {
    Path f = config();
    Path next = dir.resolve("next.yaml");
    Files.writeString(next, BODY);
    watch(f);
    mark();
    Files.move(next, f, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    assertRestartWithinOneSecond();
  }

  @Test
  void configMapDataSwapRestarts() throws Exception {
    // the kubelet's ConfigMap volume layout: config.yaml -> ..data/config.yaml, ..data -> ..<timestamp>
    Path v1 = Files.createDirectory(dir.resolve("..2026_12_02_10_00_00.1"));
    Files.writeString(v1.resolve("config.yaml"), BODY);
    Files.createSymbolicLink(dir.resolve("..data"), v1.getFileName());
    Path f = Files.createSymbolicLink(dir.resolve("config.yaml"), Path.of("..data/config.yaml"));
    watch(f);
    Path v2 = Files.createDirectory(dir.resolve("..2026_12_02_10_05_00.2"));
    Files.writeString(v2.resolve("config.yaml"), BODY + "mode: nftables\n");
    Path tmp = Files.createSymbolicLink(dir.resolve("..data_tmp"), v2.getFileName());
    mark();
    Files.move(tmp, dir.resolve("..data"), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    assertRestartWithinOneSecond();
  }

  @Test
  void aSwapToAnEndlessFileRestartsInsteadOfReadingForever() throws Exception {
    Path v1 = Files.createDirectory(dir.resolve("..2026_12_02_10_00_00.1"));
    Files.writeString(v1.resolve("config.yaml"), BODY);
    Files.createSymbolicLink(dir.resolve("..data"), v1.getFileName());
    Path f = Files.createSymbolicLink(dir.resolve("config.yaml"), Path.of("..data/config.yaml"));
    watch(f);
    Path v2 = Files.createDirectory(dir.resolve("..2026_12_02_10_05_00.2"));
    Files.createSymbolicLink(v2.resolve("config.yaml"), Path.of("/dev/zero"));
    Path tmp = Files.createSymbolicLink(dir.resolve("..data_tmp"), v2.getFileName());
    mark();
    Files.move(tmp, dir.resolve("..data"), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    assertRestartWithinOneSecond();
  }

  @Test
  void readsChmodAndOtherFilesDoNotRestart() throws Exception {
    Path f = config();
    watch(f);
    Files.readString(f);
    Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rw-------"));
    Files.writeString(dir.resolve("other.yaml"), "x");
    Files.writeString(dir.resolve("other.yaml"), "y");
    Files.move(dir.resolve("other.yaml"), dir.resolve("other2.yaml"));
    Files.delete(dir.resolve("other2.yaml"));
    Files.createDirectory(dir.resolve("sub"));
    assertNoRestart();
  }

  @Test
  void configMapUpdateOfAnotherKeyOnlyDoesNotRestartUntilTheSwap() throws Exception {
    Path v1 = Files.createDirectory(dir.resolve("..2026_12_02_10_00_00.1"));
    Files.writeString(v1.resolve("config.yaml"), BODY);
    Files.createSymbolicLink(dir.resolve("..data"), v1.getFileName());
    Path f = Files.createSymbolicLink(dir.resolve("config.yaml"), Path.of("..data/config.yaml"));
    watch(f);
    // the kubelet prepares the new version before swapping: nothing changes for the agent yet
    Path v2 = Files.createDirectory(dir.resolve("..2026_12_02_10_05_00.2"));
    Files.writeString(v2.resolve("config.yaml"), BODY);
    assertNoRestart();
  }

  @Test
  void withoutConfigFileNothingIsWatched() throws Exception {
    watch(null);
    assertNull(verticle.loaded());
    assertNull(fatal.getNow(null));
  }

  @Test
  void startReadsTheFileThroughTheRetriever() throws Exception {
    Path f = config();
    Files.writeString(f, BODY + "mode: nftables\nbogus: 1\n");
    watch(f);
    assertEquals("nftables", verticle.loaded().config().mode);
    assertEquals(List.of("unknown field \"bogus\""), verticle.loaded().strictErrors());
  }

  @Test
  void aFileThatCannotBeReadFailsTheStartWithTheReadersException() {
    Path f = dir.resolve("missing.yaml");
    ExecutionException e = assertThrows(ExecutionException.class, () -> watch(f));
    assertInstanceOf(NoSuchFileException.class, e.getCause());
  }

  @Test
  void aMissingDirectoryFailsWithTheReadersExceptionNotTheWatchs() {
    // upstream reads before it watches: "open ...: no such file or directory", not a watch error
    Path f = dir.resolve("no-such-dir").resolve("config.yaml");
    ExecutionException e = assertThrows(ExecutionException.class, () -> watch(f));
    assertInstanceOf(NoSuchFileException.class, e.getCause());
  }

  @Test
  void aMalformedFileFailsTheStartWithItsPosition() throws Exception {
    Path f = config();
    Files.writeString(f, BODY + "mode: [\n");
    ExecutionException e = assertThrows(ExecutionException.class, () -> watch(f));
    assertInstanceOf(ConfigDecodeException.class, e.getCause());
    assertTrue(e.getCause().getMessage().startsWith(f + ":"), e.getCause().getMessage());
  }
}
