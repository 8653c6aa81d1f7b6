package dev.kubeproxy.net;

import dev.kubeproxy.logging.Log;
import io.vertx.core.Future;
import java.util.Optional;

/**
 * An "ip:port" listen address as the configuration writes it ({@code 0.0.0.0:10256},
 * {@code [::]:10256}); port 0 lets the OS choose, as Go's listener does.
 */
public record HostPort(String host, int port) {
  /**
   * The listen address of a server's bind-address field ({@code healthzBindAddress}, {@code
   * metricsBindAddress}): none when the field is empty, which disables the server (logged at V(2)),
   * or a failure {@code "field: why"} when it is not ip:port.
   */
  public static Future<Optional<HostPort>> ofField(String server, String field, String value) {
    if (value == null || value.isEmpty()) {
      Log.v(2).info(server + " server disabled: " + field + " is empty");
      return Future.succeededFuture(Optional.empty());
    }
    try {
      return Future.succeededFuture(Optional.of(parse(value)));
    } catch (IllegalArgumentException e) {
      return Future.failedFuture(field + ": " + e.getMessage());
    }
  }

  public static HostPort parse(String address) {
    if (address == null || address.isBlank()) {
      throw new IllegalArgumentException("empty listen address");
    }
    String host;
    String port;
    if (address.startsWith("[")) {
      int close = address.indexOf("]:");
      if (close < 0) {
        throw new IllegalArgumentException("listen address " + address + " is not [ip]:port");
      }
      host = address.substring(1, close);
      port = address.substring(close + 2);
    } else {
      int colon = address.lastIndexOf(':');
      if (colon < 0 || address.indexOf(':') != colon) {
        throw new IllegalArgumentException("listen address " + address + " is not ip:port");
      }
      host = address.substring(0, colon);
      port = address.substring(colon + 1);
    }
    try {
      int p = Integer.parseInt(port);
      if (p < 0 || p > 65535) {
        throw new NumberFormatException();
      }
      return new HostPort(host.isEmpty() ? "0.0.0.0" : host, p);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("listen address " + address + " has an invalid port", e);
    }
  }

  /** host:port with brackets around an IPv6 host, as Go prints listen addresses. */
  public String text(int actualPort) {
    return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + actualPort;
  }

  @Override
  public String toString() {
    return text(port);
  }
}
