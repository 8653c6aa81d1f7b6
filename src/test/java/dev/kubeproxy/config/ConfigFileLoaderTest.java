package dev.kubeproxy.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kubeproxy.testutil.Await;
import dev.kubeproxy.testutil.VertxPerClass;
import dev.kubeproxy.testutil.tier.Unit;
import io.vertx.config.ConfigStoreOptions;
import io.vertx.config.spi.utils.Processors;
import io.vertx.config.yaml.YamlProcessor;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The --config file read through vertx-config's ConfigRetriever with vertx-config-yaml's format: the
 * loader returns what upstream's decoder returns, with its errors unchanged (what SnakeYAML alone
 * would get wrong is checked here).
 */
@Unit
class ConfigFileLoaderTest {
  private static final String HEAD = "apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\n";

  @TempDir
  Path dir;

  @RegisterExtension
  static final VertxPerClass VERTX = new VertxPerClass();

  private String file(String body) throws Exception {
    Path f = dir.resolve("config.yaml");
    Files.writeString(f, HEAD + body);
    return f.toString();
  }

  private static ConfigCodec.Decoded load(String file) {
    return Await.result(ConfigFileLoader.load(VERTX.get(), file));
  }

  private static Throwable failure(String file) {
    return assertThrows(Exception.class, () -> Await.resultOrCause(ConfigFileLoader.load(VERTX.get(), file)));
  }

  @Test
  void theRetrieverReadsWithVertxConfigYaml() {
    assertInstanceOf(YamlProcessor.class, Processors.get(ConfigFileLoader.FORMAT), Processors.getSupportedFormats()
        .toString());
    ConfigStoreOptions store = ConfigFileLoader.options(new byte[0]).getStores().get(0);
    assertEquals("yaml", store.getFormat());
    assertEquals(ConfigContentStore.TYPE, store.getType());
  }

  @Test
  void aSnakeYamlTimestampKeepsGoYamlsText() throws Exception {
    byte[] data = (HEAD + "hostnameOverride: 2026-12-03\nclusterCIDR: 1:30\n").getBytes(StandardCharsets.UTF_8);
    JsonObject read = Await.result(Processors.get(ConfigFileLoader.FORMAT).process(VERTX.get(), new JsonObject(),
        Buffer.buffer(data)));
    assertInstanceOf(Instant.class, read.getMap().get("hostnameOverride"), "SnakeYAML reads YAML 1.1 timestamps");
    assertEquals(90, read.getValue("clusterCIDR"), "and sexagesimal numbers");
    KubeProxyConfiguration c = ConfigCodec.decode("f.yaml", data, read).config();
    assertEquals("2026-12-03", c.hostnameOverride);
    assertEquals("1:30", c.clusterCIDR);
  }

  @Test
  void theRetrieverGivesWhatTheDecoderGives() throws Exception {
    String f = file("mode: nftables\nhostnameOverride: 2026-12-03\nclientConnection:\n  qps: 7.5\n"
        + "iptables:\n  syncPeriod: 10s\nconntrack:\n  maxPerCore: 0\nnodePortAddresses: [10.0.0.0/8]\n"
        + "logging:\n  vmodule:\n  - filePattern: proxy*\n    verbosity: 4\n");
    ConfigCodec.Decoded viaRetriever = load(f);
    ConfigCodec.Decoded direct = ConfigCodec.decode(f, Files.readAllBytes(Path.of(f)));
    assertEquals(ConfigSchema.json(direct.config()), ConfigSchema.json(viaRetriever.config()));
    assertEquals("2026-12-03", viaRetriever.config().hostnameOverride, "a YAML date stays text");
    assertEquals(7.5f, viaRetriever.config().clientConnection.qps);
    assertEquals(0, viaRetriever.config().conntrack.maxPerCore, "an explicit zero is kept");
    assertTrue(viaRetriever.strict());
  }

  @Test
  void duplicateAndUnknownFieldsReachTheCaller() throws Exception {
    ConfigCodec.Decoded d = load(file("mode: iptables\nmode: nftables\nfoo: 1\n"));
    assertEquals("nftables", d.config().mode, "the last duplicate wins");
    assertEquals(List.of("line 4: key \"mode\" already set in map", "unknown field \"foo\""), d.strictErrors());
  }

  @Test
  void moreThanFiftyAliasesAreAccepted() throws Exception {
    String f = file("hostnameOverride: &h node-1\nnodePortAddresses: [" + String.join(", ",
        Collections.nCopies(60, "&c 10.0.0.0/8")).replace("&c ", "") + "]\nipvs:\n  excludeCIDRs: ["
        + String.join(", ", Collections.nCopies(60, "*h")) + "]\n");
    assertEquals(60, load(f).config().ipvs.excludeCIDRs.size());
  }

  @Test
  void decodeErrorsKeepFileLineAndColumn() throws Exception {
    String f = file("hostnameOverride: *nope\n");
    Throwable err = failure(f);
    assertInstanceOf(ConfigDecodeException.class, err);
    assertEquals(f + ":3:19: yaml: unknown anchor 'nope' referenced", err.getMessage());
  }

  @Test
  void anEmptyFileIsTheDecodersErrorNotAnEmptyDocument() throws Exception {
    Path empty = Files.createFile(dir.resolve("empty.yaml"));
    assertEquals(empty + ": the file is empty; expected a KubeProxyConfiguration", failure(empty.toString())
        .getMessage());
  }

  @Test
  void readErrorsArePassedOnUnchanged() throws Exception {
    assertInstanceOf(NoSuchFileException.class, failure(dir.resolve("missing.yaml").toString()));
    assertInstanceOf(ConfigFileReader.TooLargeException.class, failure("/dev/zero"));
    Path locked = Path.of(file(""));
    Files.setPosixFilePermissions(locked, java.util.Set.of());
    if (!Files.isReadable(locked)) { // root reads anything
      assertInstanceOf(AccessDeniedException.class, failure(locked.toString()));
    }
  }
}
