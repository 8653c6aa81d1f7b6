package dev.kubeproxy.config;

import dev.kubeproxy.runtime.ConfigVerticle;

import io.vertx.config.ConfigRetriever;
import io.vertx.config.ConfigRetrieverOptions;
import io.vertx.config.ConfigStoreOptions;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;

/**
 * Reads the --config file through vertx-config: the file's bytes (size-bounded, {@link
 * ConfigFileReader}) go to a {@link ConfigRetriever} whose one store ({@link ConfigContentStore}) has
 * vertx-config-yaml's {@code yaml} format, which reads the document (YAML, or JSON, a subset). The
 * decoder then checks the same bytes the way upstream's decoder reads them ({@link
 * ConfigCodec#decode(String, byte[], JsonObject)}): positions for every error, strict decoding,
 * go-yaml's values where SnakeYAML's YAML 1.1 constructor differs ({@link ConfigDocument#withValues}).
 *
 * <p>The agent's {@link ConfigVerticle} calls it once at start, as upstream's Options.Complete does
 * (cmd/kube-proxy/app/options.go Options.loadConfigFromFile); the retriever's periodic scan is off,
 * because a change of the file restarts the agent instead (the verticle's watch sees any write at
 * once, a scan only a changed content after its period).
 */
public final class ConfigFileLoader {
  /** vertx-config-yaml's format. */
  static final String FORMAT = "yaml";

  private ConfigFileLoader() {}

  /**
   * The decoded file, or a failure with the reader's or decoder's exception: {@code
   * NoSuchFileException}, {@code AccessDeniedException}, {@link ConfigFileReader.TooLargeException},
   * another {@code IOException}, or {@link ConfigDecodeException} (with file, line and column).
   */
  public static Future<ConfigCodec.Decoded> load(Vertx vertx, String file) {
    return vertx.executeBlocking(() -> ConfigFileReader.read(Path.of(file)), false)
        .compose(bytes -> read(vertx, bytes)
            // where SnakeYAML fails, the decoder's reading decides: a malformed file gets its error with
            // the position, one only SnakeYAML refuses (over 50 aliases, an unknown tag) is read as go-yaml reads it
            .transform(read -> vertx.executeBlocking(
                () -> ConfigCodec.decode(file, bytes, read.succeeded() ? read.result() : null), false)));
  }

  /** The document as the retriever's {@code yaml} format reads it. */
  private static Future<JsonObject> read(Vertx vertx, byte[] bytes) {
    ConfigRetriever retriever = ConfigRetriever.create(vertx, options(bytes));
    return retriever.getConfig().eventually(retriever::close);
  }

  static ConfigRetrieverOptions options(byte[] bytes) {
    return new ConfigRetrieverOptions()
        .setScanPeriod(0)
        .setIncludeDefaultStores(false)
        .addStore(new ConfigStoreOptions()
            .setType(ConfigContentStore.TYPE)
            .setFormat(FORMAT)
            .setConfig(new JsonObject().put(ConfigContentStore.CONTENT, bytes)));
  }
}
