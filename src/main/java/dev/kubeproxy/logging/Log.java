package dev.kubeproxy.logging;

import dev.kubeproxy.gotext.GoQuote;

import dev.kubeproxy.gotext.GoDuration;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.PrintStream;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The agent's logger: klog-style structured lines (text by default, JSON with
 * --logging-format=json), with klog verbosity (-v) and per-source verbosity (--vmodule).
 *
 * <pre>
 *   Log.info("Using iptables proxy");
 *   Log.v(2).info("DetectLocalMode", "localMode", mode);
 *   Log.error("Failed to apply OOMScore", e);
 *   if (Log.enabled(4)) { ...expensive... }
 * </pre>
 *
 * Key/values come in pairs after the message. java.util.logging and System.Logger records (Vert.x,
 * Netty, the Kubernetes client through slf4j-jdk14) are routed here by {@link JulBridge}.
 */
public final class Log {
  private Log() {}

  /** klog severities. */
  public enum Severity {
    INFO('I'), WARNING('W'), ERROR('E');

    final char letter;

    Severity(char letter) {
      this.letter = letter;
    }
  }

  private static volatile LogFormat format = LogFormat.TEXT;
  private static volatile int verbosity = 0;
  private static volatile VModule vmodule = VModule.EMPTY;
  private static volatile boolean splitStream = false;
  private static volatile PrintStream out = System.err;
  private static volatile PrintStream err = System.err;

  private static final long PID = ProcessHandle.current().pid();
  private static final DateTimeFormatter TEXT_TIME = DateTimeFormatter.ofPattern("MMdd HH:mm:ss.SSSSSS");
  private static final Set<String> INFRA_PREFIXES = Set.of(
      "java.util.logging.", "jdk.internal.logger.", "sun.util.logging.",
      "java.lang.System", "org.slf4j.", "io.vertx.core.logging.", "io.vertx.core.internal.logging.",
      "io.netty.util.internal.logging.");
  private static final StackWalker WALKER = StackWalker.getInstance(StackWalker.Option.RETAIN_CLASS_REFERENCE);

  // ---- configuration ----

  /** Applies --logging-format, -v, --vmodule and split-stream; called once logging flags are known. */
  public static void configure(LogFormat newFormat, int newVerbosity, List<VModule.Entry> vmoduleEntries,
      boolean newSplitStream) {
    format = newFormat;
    vmodule = new VModule(vmoduleEntries);
    splitStream = newSplitStream;
    setOutputs(System.err, System.err);
    setVerbosity(newVerbosity);
  }

  /** Where lines go: info lines to {@code info} when split-stream is on, all others to {@code errors}. */
  public static void setOutputs(PrintStream info, PrintStream errors) {
    out = info;
    err = errors;
  }

  /** Changes the global verbosity at run time (PUT /debug/flags/v). */
  public static void setVerbosity(int level) {
    if (level < 0) {
      throw new IllegalArgumentException("verbosity must not be negative: " + level);
    }
    verbosity = level;
    JulBridge.verbosityChanged(level);
  }

  public static int verbosity() {
    return verbosity;
  }

  public static LogFormat format() {
    return format;
  }

  // ---- logging ----

  public static void info(String msg, Object... keysAndValues) {
    write(Severity.INFO, 0, caller(), msg, true, null, keysAndValues);
  }

  public static void warn(String msg, Object... keysAndValues) {
    write(Severity.WARNING, 0, caller(), msg, true, null, keysAndValues);
  }

  public static void error(String msg, Object... keysAndValues) {
    write(Severity.ERROR, 0, caller(), msg, true, null, keysAndValues);
  }

  /** An error with its cause, printed as err="...". */
  public static void error(String msg, Throwable cause, Object... keysAndValues) {
    write(Severity.ERROR, 0, caller(), msg, true, cause, keysAndValues);
  }

  /** An unstructured line (klog's Infof): the message is printed as is, not quoted. */
  public static void plain(int level, String text) {
    StackWalker.StackFrame frame = caller();
    if (enabledFor(level, frame)) {
      write(Severity.INFO, level, frame, text, false, null);
    }
  }

  /** True when lines at this verbosity are printed for the calling class. */
  public static boolean enabled(int level) {
    if (level <= verbosity) {
      return true;
    }
    return !vmodule.isEmpty() && enabledFor(level, caller());
  }

  /** A verbosity-gated logger: {@code Log.v(4).info("Syncing", "rules", n)}. */
  public static Verbose v(int level) {
    if (level <= verbosity) {
      return new Verbose(level, true);
    }
    if (vmodule.isEmpty()) {
      return Verbose.OFF;
    }
    return new Verbose(level, enabledFor(level, caller()));
  }

  /** The result of {@link #v(int)}: logs only when enabled. */
  public static final class Verbose {
    static final Verbose OFF = new Verbose(0, false);
    private final int level;
    private final boolean enabled;

    Verbose(int level, boolean enabled) {
      this.level = level;
      this.enabled = enabled;
    }

    public boolean enabled() {
      return enabled;
    }

    public void info(String msg, Object... keysAndValues) {
      if (enabled) {
        write(Severity.INFO, level, caller(), msg, true, null, keysAndValues);
      }
    }
  }

  // ---- internals ----

  private static boolean enabledFor(int level, StackWalker.StackFrame frame) {
    if (level <= verbosity) {
      return true;
    }
    if (frame == null || vmodule.isEmpty()) {
      return false;
    }
    String file = frame.getFileName() == null ? "" : frame.getFileName();
    String base = file.endsWith(".java") ? file.substring(0, file.length() - 5) : file;
    int v = vmodule.verbosityFor(frame.getClassName(), base);
    return v >= level;
  }

  static boolean enabledForSource(int level, StackWalker.StackFrame frame) {
    return enabledFor(level, frame);
  }

  /** The first stack frame outside the logging machinery: the code that logged. */
  static StackWalker.StackFrame caller() {
    Optional<StackWalker.StackFrame> frame = WALKER.walk(s -> s
        .filter(f -> !isInfra(f.getClassName()))
        .findFirst());
    return frame.orElse(null);
  }

  private static boolean isInfra(String className) {
    if (className.equals(Log.class.getName()) || className.startsWith(Log.class.getName() + "$")
        || className.equals(JulBridge.class.getName())) {
      return true;
    }
    for (String prefix : INFRA_PREFIXES) {
      if (className.startsWith(prefix)) {
        return true;
      }
    }
    return false;
  }

  static void write(Severity severity, int level, StackWalker.StackFrame frame, String msg, boolean structured,
      Throwable cause, Object... keysAndValues) {
    String source = frame == null ? "???:1"
        : (frame.getFileName() == null ? frame.getClassName() : frame.getFileName()) + ":" + frame.getLineNumber();
    String line = format == LogFormat.JSON
        ? json(severity, level, source, msg, cause, keysAndValues)
        : text(severity, source, msg, structured, cause, keysAndValues);
    PrintStream target = splitStream && severity == Severity.INFO ? out : err;
    synchronized (Log.class) {
      target.println(line);
      target.flush();
    }
  }

  private static String text(Severity severity, String source, String msg, boolean structured, Throwable cause,
      Object... keysAndValues) {
    StringBuilder sb = new StringBuilder(128);
    sb.append(severity.letter)
        .append(LocalDateTime.now(ZoneId.systemDefault()).format(TEXT_TIME))
        .append(' ')
        .append(String.format("%7d", PID))
        .append(' ')
        .append(source)
        .append("] ");
    sb.append(structured ? GoQuote.quote(msg) : msg);
    if (cause != null) {
      sb.append(" err=").append(GoQuote.quote(errorText(cause)));
    }
    for (int i = 0; i < keysAndValues.length; i += 2) {
      sb.append(' ').append(keysAndValues[i]).append('=');
      sb.append(i + 1 < keysAndValues.length ? textValue(keysAndValues[i + 1]) : "\"(MISSING)\"");
    }
    return sb.toString();
  }

  private static String json(Severity severity, int level, String source, String msg, Throwable cause,
      Object... keysAndValues) {
    JsonObject o = new JsonObject();
    Instant now = Instant.now();
    // milliseconds since the epoch with a fraction, printed plainly (zap's epoch-millis encoding)
    o.put("ts", java.math.BigDecimal.valueOf(now.getEpochSecond() * 1_000_000L + now.getNano() / 1_000, 3));
    o.put("caller", source);
    o.put("msg", msg);
    if (severity != Severity.ERROR) {
      o.put("v", level);
    }
    if (cause != null) {
      o.put("err", errorText(cause));
    }
    for (int i = 0; i < keysAndValues.length; i += 2) {
      Object value = i + 1 < keysAndValues.length ? keysAndValues[i + 1] : "(MISSING)";
      o.put(String.valueOf(keysAndValues[i]), jsonValue(value));
    }
    return o.encode();
  }

  static String errorText(Throwable t) {
    return t.getMessage() != null ? t.getMessage() : t.toString();
  }

  private static String textValue(Object v) {
    if (v == null) {
      return "<nil>";
    }
    if (v instanceof Number || v instanceof Boolean) {
      return v.toString();
    }
    if (v instanceof Throwable t) {
      return GoQuote.quote(errorText(t));
    }
    if (v instanceof Duration d) {
      return GoQuote.quote(GoDuration.format(d));
    }
    if (v instanceof Collection<?> || v instanceof Map<?, ?> || v instanceof Object[]) {
      Object j = jsonValue(v);
      return j instanceof JsonArray a ? a.encode() : ((JsonObject) j).encode();
    }
    return GoQuote.quote(v.toString());
  }

  private static Object jsonValue(Object v) {
    if (v == null || v instanceof Number || v instanceof Boolean || v instanceof String) {
      return v;
    }
    if (v instanceof Throwable t) {
      return errorText(t);
    }
    if (v instanceof Duration d) {
      return GoDuration.format(d);
    }
    if (v instanceof Object[] arr) {
      v = List.of(arr);
    }
    if (v instanceof Collection<?> c) {
      JsonArray a = new JsonArray();
      for (Object e : c) {
        a.add(jsonValue(e));
      }
      return a;
    }
    if (v instanceof Map<?, ?> m) {
      JsonObject o = new JsonObject();
      m.forEach((k, val) -> o.put(String.valueOf(k), jsonValue(val)));
      return o;
    }
    return v.toString();
  }

}
