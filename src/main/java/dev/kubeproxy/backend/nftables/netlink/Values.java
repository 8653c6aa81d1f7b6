package dev.kubeproxy.backend.nftables.netlink;

import dev.kubeproxy.net.Cidr;
import dev.kubeproxy.net.IpAddresses;
import dev.kubeproxy.net.IpFamily;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/** Values as nf_tables stores them: addresses and ports in network order, protocol numbers, numgen keys. */
final class Values {
  private Values() {}

  static byte[] address(String text, IpFamily family) throws Unsupported {
    byte[] bytes = IpAddresses.parse(text);
    if (bytes == null || bytes.length != (family == IpFamily.IPv6 ? 16 : 4)) {
      throw new Unsupported("not an " + family + " address: " + text);
    }
    return bytes;
  }

  /** A prefix of the family whose host bits are zero (nft's form of it); a plain address is a full prefix. */
  static Cidr prefix(String text, IpFamily family) throws Unsupported {
    Cidr cidr;
    try {
      cidr = Cidr.parse(text);
    } catch (IllegalArgumentException e) {
      throw new Unsupported("not a prefix: " + text);
    }
    if (cidr.network().length != (family == IpFamily.IPv6 ? 16 : 4)) {
      throw new Unsupported("not an " + family + " prefix: " + text);
    }
    byte[] mask = mask(cidr.prefixLength(), cidr.network().length);
    for (int i = 0; i < mask.length; i++) {
      if ((cidr.network()[i] & ~mask[i]) != 0) {
        throw new Unsupported("host bits set in " + text);
      }
    }
    return cidr;
  }

  static byte[] mask(int prefixLength, int bytes) {
    byte[] mask = new byte[bytes];
    for (int bit = 0; bit < prefixLength; bit++) {
      mask[bit / 8] |= (byte) (0x80 >> (bit % 8));
    }
    return mask;
  }

  static byte[] port(String text) throws Unsupported {
    return port(number(text, 0, 65535));
  }

  static byte[] port(int port) throws Unsupported {
    if (port < 0 || port > 65535) {
      throw new Unsupported("port out of range: " + port);
    }
    return new byte[] {(byte) (port >> 8), (byte) port};
  }

  /** A packet mark as written in rules ("0x00004000" or decimal). */
  static int mark(String text) throws Unsupported {
    try {
      long v = text.startsWith("0x") ? Long.parseLong(text.substring(2), 16) : Long.parseLong(text);
      if (v < 0 || v > 0xffffffffL) {
        throw new Unsupported("mark out of range: " + text);
      }
      return (int) v;
    } catch (NumberFormatException e) {
      throw new Unsupported("not a mark: " + text);
    }
  }

  static byte[] protocol(String name) throws Unsupported {
    return new byte[] {(byte) protocolNumber(name)};
  }

  static int protocolNumber(String name) throws Unsupported {
    return switch (name) {
      case "tcp" -> 6;
      case "udp" -> 17;
      case "sctp" -> 132;
      default -> throw new Unsupported("protocol " + name);
    };
  }

  static String protocolName(int number) throws Unsupported {
    return switch (number) {
      case 6 -> "tcp";
      case 17 -> "udp";
      case 132 -> "sctp";
      default -> throw new Unsupported("protocol " + number);
    };
  }

  /** A 32-bit integer in host order, as numgen and fib results are. */
  static byte[] hostInt(int value) {
    return ByteBuffer.allocate(4).order(ByteOrder.nativeOrder()).putInt(value).array();
  }

  static int number(String text, int min, int max) throws Unsupported {
    try {
      int n = Integer.parseInt(text);
      if (n < min || n > max) {
        throw new Unsupported("out of range: " + text);
      }
      return n;
    } catch (NumberFormatException e) {
      throw new Unsupported("not a number: " + text);
    }
  }

  /** The NFPROTO_* number of the table family. */
  static int nfproto(IpFamily family) {
    return family == IpFamily.IPv6 ? 10 : 2;
  }
}
