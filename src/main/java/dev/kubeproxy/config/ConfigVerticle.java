package dev.kubeproxy.config;

import dev.kubeproxy.AgentOptions;
import dev.kubeproxy.EventBusAddresses;
import dev.kubeproxy.logging.Log;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import java.nio.file.Path;

/**
 * While running with --config: a write, rename or removal of the file, or a ConfigMap ..data swap,
 * logs "content of the proxy server's configuration file was updated" and sends that reason on
 * agent.fatal, so that the process exits 1 and its supervisor restarts it with the new file
 * (cmd/kube-proxy/app/options.go Options.initWatcher and eventHandler). Without --config it does
 * nothing. The file itself is read before the agent starts ({@link ConfigFileLoader}).
 */
public class ConfigVerticle extends VerticleBase {
  /** upstream's error text. */
  public static final String UPDATED = "content of the proxy server's configuration file was updated";

  private final String configFile;
  private ConfigFileWatcher watcher;

  public ConfigVerticle(AgentOptions options) {
    this.configFile = options.configFile();
  }

  @Override
  public Future<?> start() {
    if (configFile == null || configFile.isEmpty()) {
      return Future.succeededFuture();
    }
    return vertx.executeBlocking(() -> new ConfigFileWatcher(Path.of(configFile),
            what -> context.runOnContext(v -> {
              Log.info(UPDATED, "file", configFile, "change", what);
              vertx.eventBus().send(EventBusAddresses.FATAL, UPDATED);
            })))
        .onSuccess(w -> watcher = w)
        .recover(err -> Future.failedFuture("failed to watch the configuration file " + configFile + ": "
            + err.getMessage()));
  }

  @Override
  public Future<?> stop() {
    ConfigFileWatcher w = watcher;
    if (w == null) {
      return Future.succeededFuture();
    }
    return vertx.executeBlocking(() -> {
      w.close();
      return null;
    });
  }
}
