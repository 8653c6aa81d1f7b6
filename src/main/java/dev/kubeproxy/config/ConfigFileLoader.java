package dev.kubeproxy.config;

import io.vertx.config.ConfigRetriever;
import io.vertx.config.ConfigRetrieverOptions;
import io.vertx.config.ConfigStoreOptions;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;

/**
 * Reads the --config file through vertx-config: a {@link ConfigRetriever} with one store, the file
 * ({@link ConfigFileStore}, size-bounded) in the KubeProxyConfiguration format ({@link
 * ConfigFileFormat}). It reads once, as upstream's Options.Complete does (cmd/kube-proxy/app/options.go
 * Options.loadConfigFromFile); the retriever's periodic scan is off, because a change of the file restarts
 * the agent instead ({@link ConfigVerticle}: a watch sees any write at once, a scan only a changed
 * content after its period).
 */
public final class ConfigFileLoader {
  private ConfigFileLoader() {}

  /**
   * The decoded file, or a failure with the reader's or decoder's exception: {@code
   * NoSuchFileException}, {@code AccessDeniedException}, {@link ConfigFileReader.TooLargeException},
   * another {@code IOException}, or {@link ConfigDecodeException} (with file, line and column).
   */
  public static Future<ConfigCodec.Decoded> load(Vertx vertx, String file) {
    ConfigRetriever retriever = ConfigRetriever.create(vertx, new ConfigRetrieverOptions()
        .setScanPeriod(0)
        .setIncludeDefaultStores(false)
        .addStore(new ConfigStoreOptions()
            .setType(ConfigFileStore.TYPE)
            .setFormat(ConfigFileFormat.NAME)
            .setConfig(new JsonObject().put("path", file))));
    return retriever.getConfig()
        .map(ConfigFileFormat::decoded)
        .eventually(retriever::close);
  }
}
