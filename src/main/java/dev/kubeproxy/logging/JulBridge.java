package dev.kubeproxy.logging;

import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogManager;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * Routes java.util.logging (and so System.Logger, Vert.x, Netty and, through slf4j-jdk14, the
 * Kubernetes client) into {@link Log}. Levels map to klog verbosity: SEVERE is an error, WARNING a
 * warning, INFO verbosity 0. Finer levels: for the agent's own loggers (dev.kubeproxy.*) CONFIG is
 * -v=1, FINE -v=2, FINER -v=4, FINEST -v=5; for libraries CONFIG is -v=3, FINE -v=5, FINER -v=6,
 * FINEST -v=7, so that -v=4 stays readable.
 */
public final class JulBridge extends Handler {
  private static volatile boolean installed;

  private JulBridge() {}

  /** Replaces the root logger's handlers with this bridge. Idempotent. */
  public static synchronized void install() {
    if (installed) {
      return;
    }
    Logger root = LogManager.getLogManager().getLogger("");
    for (Handler h : root.getHandlers()) {
      root.removeHandler(h);
    }
    root.addHandler(new JulBridge());
    installed = true;
    verbosityChanged(Log.verbosity());
  }

  /** Lets JUL drop records early that no verbosity would print. */
  static void verbosityChanged(int verbosity) {
    if (!installed) {
      return;
    }
    Logger root = LogManager.getLogManager().getLogger("");
    // Finest level anyone could see at this verbosity; vmodule may raise it for some sources.
    root.setLevel(verbosity >= 7 ? Level.ALL : verbosity >= 5 ? Level.FINEST
        : verbosity >= 4 ? Level.FINER : verbosity >= 2 ? Level.FINE : verbosity >= 1 ? Level.CONFIG : Level.INFO);
  }

  static int verbosityOf(Level level, String loggerName) {
    boolean own = loggerName != null && loggerName.startsWith("dev.kubeproxy");
    int v = level.intValue();
    if (v >= Level.INFO.intValue()) {
      return 0;
    }
    if (v >= Level.CONFIG.intValue()) {
      return own ? 1 : 3;
    }
    if (v >= Level.FINE.intValue()) {
      return own ? 2 : 5;
    }
    if (v >= Level.FINER.intValue()) {
      return own ? 4 : 6;
    }
    return own ? 5 : 7;
  }

  @Override
  public void publish(LogRecord record) {
    Level level = record.getLevel();
    Log.Severity severity = level.intValue() >= Level.SEVERE.intValue() ? Log.Severity.ERROR
        : level.intValue() >= Level.WARNING.intValue() ? Log.Severity.WARNING : Log.Severity.INFO;
    int v = severity == Log.Severity.INFO ? verbosityOf(level, record.getLoggerName()) : 0;
    StackWalker.StackFrame frame = Log.caller();
    if (v > 0 && !Log.enabledForSource(v, frame)) {
      return;
    }
    String msg = message(record);
    Log.write(severity, v, frame, msg, false, record.getThrown());
  }

  private static String message(LogRecord record) {
    String msg = record.getMessage();
    if (msg == null) {
      return "";
    }
    Object[] params = record.getParameters();
    if (params != null && params.length > 0 && msg.contains("{")) {
      try {
        return java.text.MessageFormat.format(msg, params);
      } catch (IllegalArgumentException e) {
        return msg;
      }
    }
    return msg;
  }

  @Override
  public void flush() {}

  @Override
  public void close() {}
}
