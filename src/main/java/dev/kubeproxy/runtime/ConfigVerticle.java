package dev.kubeproxy.runtime;

import dev.kubeproxy.config.ConfigWatchFailedException;

import dev.kubeproxy.config.ConfigCodec;
import dev.kubeproxy.config.ConfigContentStore;
import dev.kubeproxy.config.ConfigFileLoader;
import dev.kubeproxy.config.ConfigFileWatcher;

import dev.kubeproxy.messages.EventBusAddresses;
import dev.kubeproxy.logging.Log;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import java.io.IOException;
import java.nio.file.Path;

/**
 * Owns the --config file for the life of the agent: reads it once at start through vertx-config
 * ({@link ConfigFileLoader}: a {@code ConfigRetriever} over {@link ConfigContentStore} with the
 * {@code yaml} format), as upstream's Options.Complete does (cmd/kube-proxy/app/options.go
 * Options.loadConfigFromFile, then Options.initWatcher), and watches it. A write, rename or removal of
 * the file, or a ConfigMap ..data swap, logs "content of the proxy server's configuration file was
 * updated" and sends that reason on agent.fatal, so that the process exits 1 and its supervisor
 * restarts it with the new file (options.go Options.eventHandler). Without --config it does nothing.
 *
 * <p>The start fails with the reader's or decoder's exception (see {@link ConfigFileLoader#load}) or
 * a {@link ConfigWatchFailedException}; the caller turns either into upstream's "failed complete" exit. The
 * decoded file ({@link #loaded()}) is what Complete merges with the flags.
 */
public class ConfigVerticle extends VerticleBase {
  /** upstream's error text. */
  public static final String UPDATED = "content of the proxy server's configuration file was updated";

  private final String configFile;
  private ConfigFileWatcher watcher;
  private volatile ConfigCodec.Decoded loaded;

  /** @param configFile the --config path, or null (or empty) for none */
  public ConfigVerticle(String configFile) {
    this.configFile = configFile == null || configFile.isEmpty() ? null : configFile;
  }

  /** The decoded file (defaults applied) once started; null without --config. */
  public ConfigCodec.Decoded loaded() {
    return loaded;
  }

  @Override
  public Future<?> start() {
    if (configFile == null) {
      return Future.succeededFuture();
    }
    // The watch starts before the read: the watcher compares every event with what the file held when
    // it started, so a change that lands after the read still restarts the agent. A failed read is
    // reported before a failed watch, as upstream reads first (a missing directory fails both).
    return vertx.executeBlocking(() -> new ConfigFileWatcher(Path.of(configFile), this::changed), false)
        .transform(watch -> {
          watcher = watch.succeeded() ? watch.result() : null;
          // kept before the start completes: whoever sees the deployment done sees the file
          return ConfigFileLoader.load(vertx, configFile).map(decoded -> loaded = decoded)
              .compose(decoded -> watch.succeeded() ? Future.succeededFuture(decoded)
                  : Future.failedFuture(new ConfigWatchFailedException(configFile, watch.cause())));
        })
        .onFailure(err -> closeWatcher()); // a verticle whose start failed is not stopped
  }

  /** On the watcher's thread, at most once. */
  private void changed(String what) {
    context.runOnContext(v -> {
      Log.info(UPDATED, "file", configFile, "change", what);
      vertx.eventBus().send(EventBusAddresses.FATAL, UPDATED);
    });
  }

  private void closeWatcher() {
    ConfigFileWatcher w = watcher;
    watcher = null;
    if (w != null) {
      try {
        w.close();
      } catch (IOException e) {
        // closing a watch service only releases its descriptor: nothing to report
      }
    }
  }

  @Override
  public Future<?> stop() {
    return watcher == null ? Future.succeededFuture() : vertx.executeBlocking(() -> {
      closeWatcher();
      return null;
    });
  }
}
