package dev.kubeproxy.platform;

import java.net.InetAddress;
import java.net.UnknownHostException;

/** An IPv4 or IPv6 prefix ("10.0.0.0/8", "fd00::/64") and membership test. */
public record Cidr(InetAddress network, int prefixLength) {
  public static Cidr parse(String text) {
    int slash = text.indexOf('/');
    if (slash < 0) {
      throw new IllegalArgumentException("invalid CIDR address: " + text);
    }
    String ip = text.substring(0, slash);
    if (!ip.matches("[0-9a-fA-F:.]+")) { // never resolve names
      throw new IllegalArgumentException("invalid CIDR address: " + text);
    }
    InetAddress address;
    int bits;
    try {
      address = InetAddress.getByName(ip);
      bits = Integer.parseInt(text.substring(slash + 1));
    } catch (UnknownHostException | NumberFormatException e) {
      throw new IllegalArgumentException("invalid CIDR address: " + text, e);
    }
    if (bits < 0 || bits > address.getAddress().length * 8) {
      throw new IllegalArgumentException("invalid CIDR address: " + text);
    }
    return new Cidr(address, bits);
  }

  public boolean contains(InetAddress ip) {
    byte[] net = network.getAddress();
    byte[] candidate = ip.getAddress();
    if (net.length != candidate.length) {
      return false;
    }
    int full = prefixLength / 8;
    for (int i = 0; i < full; i++) {
      if (net[i] != candidate[i]) {
        return false;
      }
    }
    int rest = prefixLength % 8;
    if (rest == 0) {
      return true;
    }
    int mask = (0xff << (8 - rest)) & 0xff;
    return (net[full] & mask) == (candidate[full] & mask);
  }
}
