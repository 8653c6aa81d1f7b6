package dev.kubeproxy.trace.nftables;

import dev.kubeproxy.net.Cidr;
import dev.kubeproxy.net.IpAddresses;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * Whether a packet's field matches one part of a set or map key as nft writes it: an address, a
 * prefix ("10.0.0.0/8") or an address range ("10.0.0.1-10.0.0.9"); a protocol name or number; a
 * number or a number range ("30000-32767"). Interval sets and maps hold the ranges and prefixes.
 */
final class KeyParts {
  private KeyParts() {}

  /** What a key part holds, as the set's type says (ipv4_addr, inet_proto, inet_service, numbers). */
  enum Kind { ADDRESS, PROTOCOL, NUMBER }

  /** Whether each value matches the part of the key at the same position. */
  static boolean matches(List<String> key, List<Kind> kinds, List<String> values) {
    if (key.size() != values.size() || kinds.size() != values.size()) {
      throw new IllegalStateException("a key of " + key.size() + " parts (" + String.join(" . ", key)
          + ") looked up with " + values.size() + " values");
    }
    for (int i = 0; i < key.size(); i++) {
      if (!matches(key.get(i), kinds.get(i), values.get(i))) {
        return false;
      }
    }
    return true;
  }

  static boolean matches(String part, Kind kind, String value) {
    return switch (kind) {
      case ADDRESS -> addressMatches(part, value);
      case PROTOCOL -> protocolNumber(part) == protocolNumber(value);
      case NUMBER -> numberMatches(part, Long.parseLong(value));
    };
  }

  /** An address, a prefix or an address range holds the address. */
  static boolean addressMatches(String part, String address) {
    byte[] ip = IpAddresses.parse(address);
    if (ip == null) {
      throw new IllegalArgumentException("not an IP address: " + address);
    }
    int dash = part.indexOf('-');
    if (dash > 0 && part.indexOf('/') < 0) {
      byte[] low = bytes(part.substring(0, dash));
      byte[] high = bytes(part.substring(dash + 1));
      return low.length == ip.length && Arrays.compareUnsigned(low, ip) <= 0 && Arrays.compareUnsigned(ip, high) <= 0;
    }
    return Cidr.parse(part).contains(ip);
  }

  /** A number ("80") or a range ("0-12252239") holds the value. */
  static boolean numberMatches(String part, long value) {
    long[] range = range(part);
    return range[0] <= value && value <= range[1];
  }

  /** The low and high ends of a number or number range. */
  static long[] range(String part) {
    int dash = part.indexOf('-', 1);
    try {
      if (dash < 0) {
        long n = Long.parseLong(part.trim());
        return new long[] {n, n};
      }
      return new long[] {Long.parseLong(part.substring(0, dash).trim()), Long.parseLong(part.substring(dash + 1).trim())};
    } catch (NumberFormatException e) {
      throw new IllegalStateException("not a number or a number range in a key: " + part, e);
    }
  }

  /** The IP protocol number of "tcp", "udp", "sctp" or a number. */
  static int protocolNumber(String protocol) {
    return switch (protocol.toLowerCase(Locale.ROOT)) {
      case "tcp" -> 6;
      case "udp" -> 17;
      case "sctp" -> 132;
      case "icmp" -> 1;
      case "icmpv6" -> 58;
      default -> {
        try {
          yield Integer.parseInt(protocol);
        } catch (NumberFormatException e) {
          throw new IllegalStateException("unknown protocol in a rule or key: " + protocol, e);
        }
      }
    };
  }

  private static byte[] bytes(String ip) {
    byte[] b = IpAddresses.parse(ip.trim());
    if (b == null) {
      throw new IllegalStateException("not an IP address in a key: " + ip);
    }
    return b;
  }
}
