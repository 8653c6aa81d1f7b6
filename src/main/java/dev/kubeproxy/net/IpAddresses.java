package dev.kubeproxy.net;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * IP and CIDR text as upstream reads it: IPv4 "sloppily" (leading zeros tolerated and read as
 * decimal), IPv6 in any valid literal form; results are printed in Go's canonical form
 * (IPv4 dotted decimal, IPv6 lower-case with the longest zero run compressed).
 * Never does a DNS lookup.
 */
public final class IpAddresses {
  private IpAddresses() {}

  /** The parsed address bytes (4 or 16), or null when the text is not an IP. */
  public static byte[] parse(String text) {
    if (text == null || text.isEmpty()) {
      return null;
    }
    if (text.indexOf(':') < 0) {
      return parseIPv4(text);
    }
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      boolean ok = c == ':' || c == '.' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
      if (!ok) {
        return null;
      }
    }
    try {
      InetAddress address = InetAddress.getByName(text);
      // IPv4-mapped IPv6 literals come back as IPv4, as in Go.
      return address.getAddress();
    } catch (UnknownHostException | IllegalArgumentException e) {
      return null;
    }
  }

  /** Four decimal parts of at most 8 digits each, each ≤ 255 (one pass, no splitting: it runs for every element of a resync). */
  private static byte[] parseIPv4(String text) {
    byte[] out = new byte[4];
    return parseIPv4(text, out, 0) ? out : null;
  }

  /**
   * Parses an IPv4 text as {@link #parse} does into out[at, at + 4), without an array of its own
   * (a resync encodes 200,000 addresses into element keys).
   *
   * @return false when the text is not an IPv4 address (out is then undefined there)
   */
  public static boolean parseIPv4(String text, byte[] out, int at) {
    return scanIPv4(text, out, at, false);
  }

  /**
   * One pass over an IPv4 text: four decimal parts of at most 8 digits, each ≤ 255, written into
   * out[at, at + 4) unless out is null; with {@code canonical}, also none with a leading zero,
   * which is then the text formatting gives.
   */
  private static boolean scanIPv4(String text, byte[] out, int at, boolean canonical) {
    if (text == null || text.isEmpty()) {
      return false;
    }
    int part = 0;
    int digits = 0;
    int v = 0;
    for (int i = 0, n = text.length(); i <= n; i++) {
      char c = i == n ? '.' : text.charAt(i);
      if (c == '.') {
        if (digits == 0 || part == 4 || v > 255) {
          return false;
        }
        if (out != null) {
          out[at + part] = (byte) v;
        }
        part++;
        digits = 0;
        v = 0;
      } else if (c >= '0' && c <= '9' && digits < 8 && !(canonical && digits == 1 && v == 0)) {
        v = v * 10 + (c - '0');
        digits++;
      } else {
        return false;
      }
    }
    return part == 4;
  }

  /**
   * The canonical text of an IP, or null when it does not parse. Text that is already canonical is
   * returned itself: the model keeps one address per endpoint, and a copy of each would double
   * what the addresses take in the heap.
   */
  public static String normalize(String text) {
    if (isCanonicalIPv4(text)) {
      return text; // nothing to parse into bytes and format back: every endpoint of a sync passes here
    }
    byte[] b = parse(text);
    if (b == null) {
      return null;
    }
    String canonical = format(b);
    return canonical.equals(text) ? text : canonical;
  }

  /** Whether the text is an IPv4 address exactly as formatting writes it (no leading zeros). */
  static boolean isCanonicalIPv4(String text) {
    return scanIPv4(text, null, 0, true);
  }

  /** The family of a parsed IP text, or null when it does not parse. */
  public static IpFamily familyOf(String ip) {
    byte[] b = parse(ip);
    return b == null ? null : b.length == 4 ? IpFamily.IPv4 : IpFamily.IPv6;
  }

  public static boolean isLoopback(String ip) {
    byte[] b = parse(ip);
    if (b == null) {
      return false;
    }
    if (b.length == 4) {
      return (b[0] & 0xff) == 127;
    }
    for (int i = 0; i < 15; i++) {
      if (b[i] != 0) {
        return false;
      }
    }
    return b[15] == 1;
  }

  /** Go's net.IP.String for 4 or 16 bytes. */
  public static String format(byte[] b) {
    if (b.length == 4) {
      return (b[0] & 0xff) + "." + (b[1] & 0xff) + "." + (b[2] & 0xff) + "." + (b[3] & 0xff);
    }
    int[] groups = new int[8];
    for (int i = 0; i < 8; i++) {
      groups[i] = ((b[2 * i] & 0xff) << 8) | (b[2 * i + 1] & 0xff);
    }
    int bestStart = -1;
    int bestLen = 0;
    for (int i = 0; i < 8; ) {
      if (groups[i] != 0) {
        i++;
        continue;
      }
      int j = i;
      while (j < 8 && groups[j] == 0) {
        j++;
      }
      if (j - i > bestLen) {
        bestStart = i;
        bestLen = j - i;
      }
      i = j;
    }
    if (bestLen < 2) {
      bestStart = -1;
    }
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < 8; i++) {
      if (i == bestStart) {
        sb.append("::");
        i += bestLen - 1;
        continue;
      }
      if (sb.length() > 0 && sb.charAt(sb.length() - 1) != ':') {
        sb.append(':');
      }
      sb.append(Integer.toHexString(groups[i]));
    }
    return sb.toString();
  }

  /** A CIDR's address bytes (4 or 16) and prefix length. */
  public record CidrParts(byte[] address, int prefix) {}

  /**
   * Go's net.ParseCIDR: "ip/bits" with bits in range for the literal's family (an IPv4-mapped IPv6
   * literal counts in IPv6 bits, as in Go, though its bytes are IPv4's); null when invalid.
   */
  public static CidrParts parseCidr(String text) {
    if (text == null) {
      return null;
    }
    int slash = text.indexOf('/');
    if (slash < 0) {
      return null;
    }
    String ip = text.substring(0, slash);
    byte[] b = parse(ip);
    String len = text.substring(slash + 1);
    if (b == null || len.isEmpty() || len.length() > 3 || !len.chars().allMatch(Character::isDigit)) {
      return null;
    }
    int prefix = Integer.parseInt(len);
    int max = b.length == 4 && !ip.contains(":") ? 32 : 128;
    return prefix <= max ? new CidrParts(b, prefix) : null;
  }

  /**
   * A CIDR normalised to its network address ("10.0.0.5/24" → "10.0.0.0/24"), or null when it
   * does not parse (or is an IPv4-mapped IPv6 literal with more than 32 bits: it has no text here).
   */
  public static String normalizeCidr(String text) {
    CidrParts cidr = parseCidr(text);
    if (cidr == null || cidr.prefix() > cidr.address().length * 8) {
      return null;
    }
    byte[] b = cidr.address();
    int prefix = cidr.prefix();
    for (int bit = prefix; bit < b.length * 8; bit++) {
      b[bit / 8] &= (byte) ~(0x80 >> (bit % 8));
    }
    return format(b) + "/" + prefix;
  }

  /** The family of a CIDR text, or null when it does not parse. */
  public static IpFamily cidrFamily(String cidr) {
    String n = normalizeCidr(cidr);
    return n == null ? null : IpFamily.ofText(n);
  }

  /** The address, or null when the text is not an IP literal (IPv4 leading zeros tolerated, as {@link #parse}). */
  public static InetAddress inetAddress(String text) {
    byte[] bytes = parse(text);
    try {
      return bytes == null ? null : InetAddress.getByAddress(bytes);
    } catch (UnknownHostException e) {
      return null;
    }
  }

  public static boolean isIp(String text) {
    return inetAddress(text) != null;
  }

  public static boolean isIpv4(String text) {
    return inetAddress(text) instanceof Inet4Address;
  }

  /** The address part of a CIDR "ip/bits" with bits in range for the family; null when invalid. */
  public static InetAddress cidrAddress(String text) {
    CidrParts cidr = parseCidr(text);
    try {
      return cidr == null ? null : InetAddress.getByAddress(cidr.address());
    } catch (UnknownHostException e) {
      return null;
    }
  }

  public static boolean isCidr(String text) {
    return cidrAddress(text) != null;
  }
}
