package dev.kubeproxy.net;

import java.net.InetAddress;

/**
 * An IPv4 or IPv6 prefix ("10.0.0.0/8", "fd00::/64"; a plain address is its full-length prefix)
 * with membership tests. Literals only: never a DNS lookup.
 */
public record Cidr(byte[] network, int prefixLength) {

  /** @throws IllegalArgumentException when the text is not a CIDR or IP literal */
  public static Cidr parse(String text) {
    String trimmed = text.trim();
    int slash = trimmed.indexOf('/');
    byte[] bytes = addressBytes(slash < 0 ? trimmed : trimmed.substring(0, slash));
    int prefix;
    try {
      prefix = slash < 0 ? bytes.length * 8 : Integer.parseInt(trimmed.substring(slash + 1));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("invalid CIDR address: " + text, e);
    }
    if (prefix < 0 || prefix > bytes.length * 8) {
      throw new IllegalArgumentException("invalid CIDR address: " + text);
    }
    return new Cidr(bytes, prefix);
  }

  /** The 4 or 16 bytes of an IP literal. */
  public static byte[] addressBytes(String ip) {
    byte[] bytes = IpAddresses.parse(ip.trim());
    if (bytes == null) {
      throw new IllegalArgumentException("not an IP address: " + ip);
    }
    return bytes;
  }

  /** A prefix length of 0: every address of the family. */
  public boolean matchesAll() {
    return prefixLength == 0;
  }

  /** False for text that is no IP, and for the other family. */
  public boolean contains(String ip) {
    byte[] other = IpAddresses.parse(ip.trim());
    return other != null && contains(other);
  }

  public boolean contains(InetAddress ip) {
    return contains(ip.getAddress());
  }

  public boolean contains(byte[] other) {
    if (other.length != network.length) {
      return false;
    }
    int full = prefixLength / 8;
    for (int i = 0; i < full; i++) {
      if (other[i] != network[i]) {
        return false;
      }
    }
    int rest = prefixLength % 8;
    if (rest == 0) {
      return true;
    }
    int mask = (0xff << (8 - rest)) & 0xff;
    return (other[full] & mask) == (network[full] & mask);
  }
}
