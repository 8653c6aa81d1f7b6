package dev.kubeproxy.config;

import io.vertx.config.spi.ConfigStore;
import io.vertx.config.spi.ConfigStoreFactory;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;

/**
 * vertx-config's store for the --config file ({@code type: kube-proxy-config-file}, {@code path}):
 * reads it on a worker thread with {@link ConfigFileReader}'s size bound. vertx-config's own
 * {@code file} store reads a file whole, and a path such as {@code /dev/zero} has no end. The store
 * fails with the reader's exception (NoSuchFileException, AccessDeniedException,
 * {@link ConfigFileReader.TooLargeException}), which the retriever passes on unchanged.
 */
public final class ConfigFileStore implements ConfigStore {
  public static final String TYPE = "kube-proxy-config-file";

  private final Vertx vertx;
  private final Path path;

  ConfigFileStore(Vertx vertx, Path path) {
    this.vertx = vertx;
    this.path = path;
  }

  @Override
  public Future<Buffer> get() {
    return vertx.executeBlocking(() -> Buffer.buffer(ConfigFileReader.read(path)), false);
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
      String path = configuration.getString("path");
      if (path == null || path.isEmpty()) {
        throw new IllegalArgumentException("the " + TYPE + " store needs a path");
      }
      return new ConfigFileStore(vertx, Path.of(path));
    }
  }
}
