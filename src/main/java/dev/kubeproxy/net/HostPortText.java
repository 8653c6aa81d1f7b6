package dev.kubeproxy.net;

import java.net.InetAddress;

/**
 * A "host:port" text split as Go's net.SplitHostPort splits it: both halves as written, nothing
 * checked beyond the brackets and colons (a listen address with a number port is {@link HostPort}).
 */
public record HostPortText(String host, String port) {

  /**
   * Go's net.SplitHostPort.
   *
   * @throws IllegalArgumentException with Go's text, e.g. {@code address x: missing port in address}
   */
  public static HostPortText split(String hostport) {
    String host;
    String port;
    int last = hostport.lastIndexOf(':');
    if (last < 0) {
      throw addrErr(hostport, "missing port in address");
    }
    if (hostport.startsWith("[")) {
      int end = hostport.indexOf(']');
      if (end < 0) {
        throw addrErr(hostport, "missing ']' in address");
      }
      if (end + 1 == hostport.length()) {
        throw addrErr(hostport, "missing port in address");
      }
      if (end + 1 != last) {
        throw addrErr(hostport, hostport.charAt(end + 1) == ':' ? "too many colons in address"
            : "missing port in address");
      }
      host = hostport.substring(1, end);
      if (host.contains("[") || host.contains("]")) {
        throw addrErr(hostport, "unexpected '[' in address");
      }
    } else {
      host = hostport.substring(0, last);
      if (host.contains(":")) {
        throw addrErr(hostport, "too many colons in address");
      }
      if (host.contains("[") || host.contains("]")) {
        throw addrErr(hostport, "unexpected '[' in address");
      }
    }
    port = hostport.substring(last + 1);
    return new HostPortText(host, port);
  }

  private static IllegalArgumentException addrErr(String addr, String why) {
    return new IllegalArgumentException("address " + addr + ": " + why);
  }

  /** upstream's AppendPortIfNeeded: a bare IP gets the port; anything else is returned unchanged. */
  public static String appendPortIfNeeded(String addr, int port) {
    try {
      split(addr);
      return addr;
    } catch (IllegalArgumentException notHostPort) {
      InetAddress ip = IpAddresses.inetAddress(addr);
      if (ip == null) {
        return addr;
      }
      return ip instanceof java.net.Inet4Address && !addr.contains(":") ? addr + ":" + port : "[" + addr + "]:" + port;
    }
  }
}
