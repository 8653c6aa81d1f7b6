package dev.kubeproxy.net;

import dev.kubeproxy.net.IpAddresses;
import java.net.InetAddress;
import java.net.UnknownHostException;

/** Go-compatible address parsing (net.ParseIP "sloppy", ParseCIDR, SplitHostPort) without DNS. */
public final class IpUtil {
  private IpUtil() {}

  /** The address, or null when the text is not an IP literal. Leading zeros in IPv4 are tolerated. */
  public static InetAddress parseIp(String text) {
    byte[] bytes = IpAddresses.parse(text);
    try {
      return bytes == null ? null : InetAddress.getByAddress(bytes);
    } catch (UnknownHostException e) {
      return null;
    }
  }

  public static boolean isIp(String text) {
    return parseIp(text) != null;
  }

  public static boolean isIpv4(String text) {
    return parseIp(text) instanceof java.net.Inet4Address;
  }

  /** A CIDR "ip/bits" with bits in range for the family; null when invalid. */
  public static InetAddress parseCidr(String text) {
    IpAddresses.CidrParts cidr = IpAddresses.parseCidr(text);
    try {
      return cidr == null ? null : InetAddress.getByAddress(cidr.address());
    } catch (UnknownHostException e) {
      return null;
    }
  }

  public static boolean isCidr(String text) {
    return parseCidr(text) != null;
  }

  /** Go's net.SplitHostPort. */
  public record HostPort(String host, String port) {}

  /** @throws IllegalArgumentException with Go's text, e.g. {@code address x: missing port in address} */
  public static HostPort splitHostPort(String hostport) {
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
    return new HostPort(host, port);
  }

  private static IllegalArgumentException addrErr(String addr, String why) {
    return new IllegalArgumentException("address " + addr + ": " + why);
  }

  /** upstream's AppendPortIfNeeded: a bare IP gets the port; anything else is returned unchanged. */
  public static String appendPortIfNeeded(String addr, int port) {
    try {
      splitHostPort(addr);
      return addr;
    } catch (IllegalArgumentException notHostPort) {
      InetAddress ip = parseIp(addr);
      if (ip == null) {
        return addr;
      }
      return ip instanceof java.net.Inet4Address && !addr.contains(":") ? addr + ":" + port : "[" + addr + "]:" + port;
    }
  }
}
