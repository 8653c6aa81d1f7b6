package dev.kubeproxy.config;

import java.io.IOException;

/** The directory of the configuration file cannot be watched (upstream: Complete fails). */
public final class ConfigWatchFailedException extends IOException {
  public ConfigWatchFailedException(String file, Throwable cause) {
    super("failed to watch the configuration file " + file + ": " + cause.getMessage(), cause);
  }
}
