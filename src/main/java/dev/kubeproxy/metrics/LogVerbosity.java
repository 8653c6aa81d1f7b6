package dev.kubeproxy.metrics;

import java.util.function.IntConsumer;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The run-time log verbosity switch behind PUT /debug/flags/v. The logging backend installs its
 * own switch with {@link #install}; until one is installed, the level of the JDK's default
 * System.Logger backend (java.util.logging) is changed: v0 shows INFO, v1–3 also DEBUG (FINE),
 * v4 and up also TRACE (FINER).
 */
public final class LogVerbosity {
  private static volatile IntConsumer setter = LogVerbosity::setJdkLogging;

  private LogVerbosity() {}

  /** Replaces the switch (called by the logging setup at start). */
  public static void install(IntConsumer verbositySetter) {
    setter = verbositySetter;
  }

  public static void set(int level) {
    setter.accept(level);
  }

  private static void setJdkLogging(int v) {
    Level level = v >= 4 ? Level.FINER : v >= 1 ? Level.FINE : Level.INFO;
    Logger root = Logger.getLogger("");
    root.setLevel(level);
    for (Handler h : root.getHandlers()) {
      h.setLevel(level);
    }
  }
}
