package dev.kubeproxy.proxy.nftables.netlink;

import dev.kubeproxy.platform.netlink.MessageWriter;
import static dev.kubeproxy.proxy.nftables.netlink.Expressions.*;

import dev.kubeproxy.platform.Cidr;
import dev.kubeproxy.proxy.IpFamily;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;

/**
 * Compiles the rule shapes of service, external and endpoint chains into the expressions nft 1.0
 * generates for them (checked against "nft --debug=netlink" and, in the kernel tests, by listing
 * tables written both ways). The grammar is a list of matches and one final statement:
 * <pre>
 *   ip|ip6 saddr|daddr [!=] ADDR[/LEN]   tcp|udp|sctp dport PORT   meta l4proto PROTO
 *   iifname [!=] "NAME[*]"               fib saddr type local
 *   then: jump|goto CHAIN | drop | accept | dnat to ADDR:PORT
 *         | dnat ip|ip6 addr . port to numgen random mod N [offset K] map @MAP
 * </pre>
 * Anything else is {@link Unsupported}.
 */
final class RuleCompiler {
  private static final int IFNAMSIZ = 16;
  private static final int RTN_LOCAL = 2;

  private final IpFamily family;
  private final String ip;

  RuleCompiler(IpFamily family) {
    this.family = family;
    this.ip = family == IpFamily.IPv6 ? "ip6" : "ip";
  }

  List<Consumer<MessageWriter>> compile(String text) throws Unsupported {
    String[] t = text.split(" ");
    List<Consumer<MessageWriter>> out = new ArrayList<>();
    String l4proto = null;
    int i = 0;
    while (i < t.length) {
      String word = t[i];
      switch (word) {
        case "ip", "ip6" -> {
          if (!word.equals(ip) || i + 2 >= t.length) {
            throw new Unsupported(text);
          }
          boolean source = switch (t[i + 1]) {
            case "saddr" -> true;
            case "daddr" -> false;
            default -> throw new Unsupported(text);
          };
          boolean negated = t[i + 2].equals("!=");
          int valueAt = i + (negated ? 3 : 2);
          addressMatch(out, source, negated, value(t, valueAt, text));
          i = valueAt + 1;
        }
        case "tcp", "udp", "sctp" -> {
          if (l4proto != null || i + 2 >= t.length || !t[i + 1].equals("dport")) {
            throw new Unsupported(text);
          }
          l4proto = word;
          out.add(meta(META_L4PROTO));
          out.add(cmp(CMP_EQ, Values.protocol(word)));
          out.add(payload(PAYLOAD_TRANSPORT, 2, 2));
          out.add(cmp(CMP_EQ, Values.port(t[i + 2])));
          i += 3;
        }
        case "meta" -> {
          if (l4proto != null || i + 2 >= t.length || !t[i + 1].equals("l4proto")) {
            throw new Unsupported(text);
          }
          l4proto = t[i + 2];
          out.add(meta(META_L4PROTO));
          out.add(cmp(CMP_EQ, Values.protocol(l4proto)));
          i += 3;
        }
        case "iifname" -> {
          boolean negated = i + 1 < t.length && t[i + 1].equals("!=");
          int valueAt = i + (negated ? 2 : 1);
          out.add(meta(META_IIFNAME));
          out.add(cmp(negated ? CMP_NEQ : CMP_EQ, interfaceName(value(t, valueAt, text), text)));
          i = valueAt + 1;
        }
        case "fib" -> {
          if (i + 3 >= t.length || !t[i + 1].equals("saddr") || !t[i + 2].equals("type")
              || !t[i + 3].equals("local")) {
            throw new Unsupported(text);
          }
          out.add(fibSourceAddressType());
          out.add(cmp(CMP_EQ, Values.hostInt(RTN_LOCAL)));
          i += 4;
        }
        case "jump", "goto" -> {
          last(t, i + 1, text);
          out.add(verdict(word.equals("jump") ? VERDICT_JUMP : VERDICT_GOTO, t[i + 1]));
          return out;
        }
        case "drop", "accept" -> {
          last(t, i, text);
          out.add(verdict(word.equals("drop") ? VERDICT_DROP : VERDICT_ACCEPT, null));
          return out;
        }
        case "dnat" -> {
          if (l4proto == null) {
            throw new Unsupported(text); // nft needs the protocol for a port mapping
          }
          dnat(out, Arrays.copyOfRange(t, i + 1, t.length), text);
          return out;
        }
        default -> throw new Unsupported(text);
      }
    }
    throw new Unsupported(text); // no final statement
  }

  /** nft loads only the prefix's whole bytes, or the whole address masked when the length is not a multiple of 8. */
  private void addressMatch(List<Consumer<MessageWriter>> out, boolean source, boolean negated, String value)
      throws Unsupported {
    Cidr cidr = Values.prefix(value, family);
    int size = cidr.network().length;
    int offset = family == IpFamily.IPv6 ? (source ? 8 : 24) : (source ? 12 : 16);
    int op = negated ? CMP_NEQ : CMP_EQ;
    int length = cidr.prefixLength();
    if (length > 0 && length % 8 == 0) {
      out.add(payload(PAYLOAD_NETWORK, offset, length / 8));
      out.add(cmp(op, Arrays.copyOf(cidr.network(), length / 8)));
    } else {
      out.add(payload(PAYLOAD_NETWORK, offset, size));
      out.add(bitwise(Values.mask(length, size)));
      out.add(cmp(op, cidr.network()));
    }
  }

  private void dnat(List<Consumer<MessageWriter>> out, String[] t, String text) throws Unsupported {
    int nfproto = Values.nfproto(family);
    if (t.length == 2 && t[0].equals("to")) {
      String target = t[1];
      int colon = target.lastIndexOf(':');
      if (colon < 0) {
        throw new Unsupported(text);
      }
      String host = target.substring(0, colon);
      if (family == IpFamily.IPv6) {
        if (!host.startsWith("[") || !host.endsWith("]")) {
          throw new Unsupported(text);
        }
        host = host.substring(1, host.length() - 1);
      }
      out.add(immediate(REG_1, Values.address(host, family)));
      out.add(immediate(REG_2, Values.port(target.substring(colon + 1))));
      out.add(Expressions.dnat(nfproto, REG_2, 2)); // NF_NAT_RANGE_PROTO_SPECIFIED, as nft sends it
      return;
    }
    // ip addr . port to numgen random mod N [offset K] map @MAP
    List<String> words = List.of(t);
    boolean withOffset = words.size() == 13;
    if (!(words.size() == 11 || withOffset) || !words.get(0).equals(ip)
        || !words.subList(1, 8).equals(List.of("addr", ".", "port", "to", "numgen", "random", "mod"))
        || (withOffset && !words.get(9).equals("offset")) || !words.get(words.size() - 2).equals("map")
        || !words.get(words.size() - 1).startsWith("@")) {
      throw new Unsupported(text);
    }
    int modulus = Values.number(words.get(8), 1, Integer.MAX_VALUE);
    int offset = withOffset ? Values.number(words.get(10), 0, Integer.MAX_VALUE) : 0;
    out.add(numgenRandom(modulus, offset));
    out.add(lookupMap(words.get(words.size() - 1).substring(1)));
    // The port follows the address in the looked-up value: 4-byte register 9 after an IPv4
    // address, 16-byte register 2 after an IPv6 one.
    out.add(Expressions.dnat(nfproto, family == IpFamily.IPv6 ? REG_2 : REG32_01, 0));
  }

  /** An interface name as nft compares it: padded to IFNAMSIZ, or just the prefix before a "*". */
  private static byte[] interfaceName(String quoted, String text) throws Unsupported {
    if (quoted.length() < 3 || !quoted.startsWith("\"") || !quoted.endsWith("\"")) {
      throw new Unsupported(text);
    }
    String name = quoted.substring(1, quoted.length() - 1);
    boolean wildcard = name.endsWith("*");
    String prefix = wildcard ? name.substring(0, name.length() - 1) : name;
    byte[] raw = prefix.getBytes(StandardCharsets.US_ASCII);
    if (raw.length == 0 || raw.length >= IFNAMSIZ || prefix.indexOf('*') >= 0 || prefix.indexOf('\\') >= 0) {
      throw new Unsupported(text);
    }
    return wildcard ? raw : Arrays.copyOf(raw, IFNAMSIZ);
  }

  private static String value(String[] t, int at, String text) throws Unsupported {
    if (at >= t.length) {
      throw new Unsupported(text);
    }
    return t[at];
  }

  private static void last(String[] t, int at, String text) throws Unsupported {
    if (at != t.length - 1) {
      throw new Unsupported(text);
    }
  }
}
