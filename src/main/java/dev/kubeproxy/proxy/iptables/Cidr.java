package dev.kubeproxy.proxy.iptables;

import java.net.InetAddress;
import java.net.UnknownHostException;

/** A parsed CIDR (or single address) with a containment test; textual IP literals only, no DNS. */
record Cidr(byte[] network, int prefixLength) {

  static Cidr parse(String text) {
    int slash = text.indexOf('/');
    String address = slash < 0 ? text : text.substring(0, slash);
    byte[] bytes = addressBytes(address);
    int prefix = slash < 0 ? bytes.length * 8 : Integer.parseInt(text.substring(slash + 1).trim());
    if (prefix < 0 || prefix > bytes.length * 8) {
      throw new IllegalArgumentException("invalid prefix length in CIDR " + text);
    }
    return new Cidr(bytes, prefix);
  }

  static byte[] addressBytes(String ip) {
    String trimmed = ip.trim();
    if (trimmed.isEmpty() || !(trimmed.indexOf(':') >= 0 || Character.isDigit(trimmed.charAt(0)))) {
      throw new IllegalArgumentException("not an IP address: " + ip);
    }
    try {
      return InetAddress.getByName(trimmed).getAddress();
    } catch (UnknownHostException e) {
      throw new IllegalArgumentException("not an IP address: " + ip, e);
    }
  }

  boolean matchesAll() {
    return prefixLength == 0;
  }

  boolean contains(String ip) {
    byte[] other;
    try {
      other = addressBytes(ip);
    } catch (IllegalArgumentException e) {
      return false;
    }
    return contains(other);
  }

  boolean contains(byte[] other) {
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
