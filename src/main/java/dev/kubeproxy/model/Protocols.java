package dev.kubeproxy.model;

import java.util.Locale;

/** A Service port's protocol as the kernel tools write it. */
public final class Protocols {
  private Protocols() {}

  /**
   * "tcp", "udp" or "sctp" for the API's TCP, UDP and SCTP: one shared string each, where
   * {@code toLowerCase} would make a new one for every service port that keeps it.
   */
  public static String lowerCase(String protocol) {
    return switch (protocol) {
      case "TCP" -> "tcp";
      case "UDP" -> "udp";
      case "SCTP" -> "sctp";
      default -> protocol.toLowerCase(Locale.ROOT);
    };
  }
}
