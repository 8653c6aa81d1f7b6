package dev.kubeproxy.trace.iptables;

import dev.kubeproxy.net.Cidr;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/** The conditions of the matches with a value to read (addresses, interfaces, ports, address types, marks). */
final class Matches {
  /** The -m modules whose options {@link RuleParser} reads. */
  static final Set<String> KNOWN_MODULES = Set.of("tcp", "udp", "sctp", "multiport", "comment", "addrtype",
      "conntrack", "state", "mark", "recent", "statistic", "nfacct", "set", "physdev", "ipvs");

  private Matches() {}

  /** -s / -d: one address or CIDR, or a comma-separated list of them. */
  static Condition address(String value, boolean source) {
    List<Cidr> cidrs = new ArrayList<>();
    for (String part : value.split(",")) {
      cidrs.add(Cidr.parse(part));
    }
    return packet -> {
      String ip = source ? packet.source : packet.destination;
      for (Cidr cidr : cidrs) {
        if (cidr.contains(ip)) {
          return true;
        }
      }
      return false;
    };
  }

  /** -m ipvs --vaddr address[/mask]: the virtual server that took the packet. */
  static Condition virtualAddress(String value) {
    Cidr cidr = Cidr.parse(value);
    return packet -> packet.ipvsAddress != null && cidr.contains(packet.ipvsAddress);
  }

  /** -i / -o: an interface name, "+" at the end matching any name with that prefix. */
  static Condition iface(String value, boolean in) {
    boolean prefix = value.endsWith("+");
    String name = prefix ? value.substring(0, value.length() - 1) : value;
    return packet -> {
      String actual = in ? packet.inInterface : packet.outInterface;
      return actual != null && (prefix ? actual.startsWith(name) : actual.equals(name));
    };
  }

  /** --dport / --dports: ports and "first:last" ranges, comma-separated. */
  static Condition ports(String value) {
    List<int[]> ranges = new ArrayList<>();
    for (String part : value.split(",")) {
      String[] bounds = part.split(":", -1);
      int first = bounds[0].isEmpty() ? 0 : Integer.parseInt(bounds[0]);
      int last = bounds.length == 1 ? first : bounds[1].isEmpty() ? 65535 : Integer.parseInt(bounds[1]);
      ranges.add(new int[] {first, last});
    }
    return packet -> {
      for (int[] range : ranges) {
        if (packet.destinationPort >= range[0] && packet.destinationPort <= range[1]) {
          return true;
        }
      }
      return false;
    };
  }

  /** --src-type / --dst-type: LOCAL as the node says; UNICAST for any other address; the rest never. */
  static Condition addrType(String value, boolean source) {
    List<String> types = List.of(value.split(","));
    return packet -> {
      boolean local = packet.node.isLocal(source ? packet.source : packet.destination);
      return (local && types.contains("LOCAL")) || (!local && types.contains("UNICAST"));
    };
  }

  /** --mark value[/mask]. */
  static Condition mark(String value) {
    int slash = value.indexOf('/');
    long mark = number(slash < 0 ? value : value.substring(0, slash));
    long mask = slash < 0 ? 0xffffffffL : number(value.substring(slash + 1));
    return packet -> (packet.mark & mask) == mark;
  }

  /** A mark or mask as iptables writes it: hexadecimal with 0x, else decimal. */
  static long number(String text) {
    return text.startsWith("0x") || text.startsWith("0X") ? Long.parseLong(text.substring(2), 16)
        : Long.parseLong(text);
  }
}
