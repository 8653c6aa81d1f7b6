package dev.kubeproxy.proxy.nftables;

import java.net.InetAddress;
import java.net.UnknownHostException;

/** Address arithmetic on textual IPs and CIDRs (literal addresses only, never DNS). */
final class Cidrs {
  private Cidrs() {}

  /** Whether cidr ("10.0.0.0/8", or a plain address) contains ip; false for mixed families. */
  static boolean contains(String cidr, String ip) {
    try {
      int slash = cidr.indexOf('/');
      byte[] net = parse(slash < 0 ? cidr : cidr.substring(0, slash));
      byte[] addr = parse(ip);
      if (net.length != addr.length) {
        return false;
      }
      int bits = slash < 0 ? net.length * 8 : Integer.parseInt(cidr.substring(slash + 1));
      for (int i = 0; i < net.length && bits > 0; i++, bits -= 8) {
        int mask = bits >= 8 ? 0xff : (0xff << (8 - bits)) & 0xff;
        if ((net[i] & mask) != (addr[i] & mask)) {
          return false;
        }
      }
      return true;
    } catch (IllegalArgumentException e) {
      return false;
    }
  }

  /** A prefix length of 0: the CIDR matches every address of its family. */
  static boolean isMatchAll(String cidr) {
    return cidr.endsWith("/0");
  }

  /** A single-address CIDR (/32 or /128): its one address. */
  static String singleAddress(String cidr) {
    int slash = cidr.indexOf('/');
    if (slash < 0) {
      return cidr;
    }
    int bits = Integer.parseInt(cidr.substring(slash + 1));
    String ip = cidr.substring(0, slash);
    return bits == (ip.indexOf(':') >= 0 ? 128 : 32) ? ip : null;
  }

  static boolean isLoopback(String ip) {
    try {
      return InetAddress.getByAddress(parse(ip)).isLoopbackAddress();
    } catch (UnknownHostException | IllegalArgumentException e) {
      return false;
    }
  }

  private static byte[] parse(String literal) {
    boolean v4 = literal.matches("[0-9.]+");
    boolean v6 = literal.indexOf(':') >= 0 && literal.matches("[0-9a-fA-F:.]+");
    if (!v4 && !v6) {
      throw new IllegalArgumentException("not an IP literal: " + literal);
    }
    try {
      // Only literals reach here (checked above), so no name lookup happens.
      return InetAddress.getByName(literal).getAddress();
    } catch (UnknownHostException e) {
      throw new IllegalArgumentException("not an IP literal: " + literal, e);
    }
  }
}
