package dev.kubeproxy.backend.nftables;

import dev.kubeproxy.net.Cidr;
import dev.kubeproxy.net.IpAddresses;

/** Address arithmetic on textual IPs and CIDRs (literal addresses only, never DNS). */
final class Cidrs {
  private Cidrs() {}

  /** Whether cidr ("10.0.0.0/8", or a plain address) contains ip; false for mixed families. */
  static boolean contains(String cidr, String ip) {
    try {
      return Cidr.parse(cidr).contains(ip);
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
    return IpAddresses.isLoopback(ip);
  }
}
