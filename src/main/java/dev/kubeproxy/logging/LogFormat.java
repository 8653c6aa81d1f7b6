package dev.kubeproxy.logging;

/** The two output formats of --logging-format. */
public enum LogFormat {
  /** klog text: {@code I1202 16:04:05.000000   12345 File.java:42] "message" key="value"}. */
  TEXT,
  /** One JSON object per line: ts (ms since the epoch), caller, msg, v, then the key/values. */
  JSON;

  public static LogFormat parse(String name) {
    return switch (name) {
      case "text", "" -> TEXT;
      case "json" -> JSON;
      default -> throw new IllegalArgumentException("unknown logging format " + name);
    };
  }
}
