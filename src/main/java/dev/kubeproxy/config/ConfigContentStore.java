package dev.kubeproxy.config;

import io.vertx.config.spi.ConfigStore;
import io.vertx.config.spi.ConfigStoreFactory;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;

/**
 * vertx-config's store for the --config file's content ({@code type: kube-proxy-config-content},
 * {@code content}: the bytes), read once by {@link ConfigFileLoader} with {@link ConfigFileReader}'s
 * size bound. vertx-config's own {@code file} store reads a file whole, and a path such as
 * {@code /dev/zero} has no end; and the loader needs the very bytes the retriever's format read, for
 * the positions of its diagnostics, not a second read of a file that may have changed in between.
 */
public final class ConfigContentStore implements ConfigStore {
  public static final String TYPE = "kube-proxy-config-content";
  static final String CONTENT = "content";

  private final Buffer content;

  ConfigContentStore(Buffer content) {
    this.content = content;
  }

  @Override
  public Future<Buffer> get() {
    return Future.succeededFuture(content);
  }

  @Override
  public Future<Void> close() {
    return Future.succeededFuture();
  }

  /** Registered in META-INF/services/io.vertx.config.spi.ConfigStoreFactory. */
  public static final class Factory implements ConfigStoreFactory {
    @Override
    public String name() {
      return TYPE;
    }

    @Override
    public ConfigStore create(Vertx vertx, JsonObject configuration) {
      byte[] content = configuration.getBinary(CONTENT);
      if (content == null) {
        throw new IllegalArgumentException("the " + TYPE + " store needs the content");
      }
      return new ConfigContentStore(Buffer.buffer(content));
    }
  }
}
