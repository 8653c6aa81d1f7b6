package dev.kubeproxy.trace.iptables;

/** What the targets that change a packet do to it: DNAT's new destination, MARK's new mark. */
final class Targets {
  private Targets() {}

  /** DNAT --to-destination ip[:port] ("[ipv6]:port" for IPv6): the new destination, recorded as the target. */
  static void dnat(PacketState packet, Rule rule) {
    String to = rule.targetOptions().get("--to-destination");
    if (to == null || to.isEmpty()) {
      throw new IllegalArgumentException("DNAT without --to-destination: " + rule.text());
    }
    dnatTo(packet, to);
  }

  /** The packet's destination becomes ip[:port] ("[ipv6]:port"), recorded as its DNAT target. */
  static void dnatTo(PacketState packet, String to) {
    String ip;
    int port = packet.destinationPort;
    if (to.startsWith("[")) {
      int close = to.indexOf(']');
      ip = to.substring(1, close);
      if (close + 1 < to.length()) {
        port = Integer.parseInt(to.substring(close + 2));
      }
    } else if (to.indexOf(':') == to.lastIndexOf(':') && to.contains(":")) {
      ip = to.substring(0, to.indexOf(':'));
      port = Integer.parseInt(to.substring(to.indexOf(':') + 1));
    } else {
      ip = to;
    }
    packet.destination = ip;
    packet.destinationPort = port;
    packet.dnatTarget = (ip.contains(":") ? "[" + ip + "]" : ip) + ":" + port;
  }

  /** MARK --set-xmark / --set-mark / --or-mark / --xor-mark / --and-mark (iptables-extensions(8)). */
  static void mark(PacketState packet, Rule rule) {
    var options = rule.targetOptions();
    long mark = packet.mark;
    if (options.containsKey("--or-mark")) {
      mark |= Matches.number(options.get("--or-mark"));
    } else if (options.containsKey("--xor-mark")) {
      mark ^= Matches.number(options.get("--xor-mark"));
    } else if (options.containsKey("--and-mark")) {
      mark &= Matches.number(options.get("--and-mark"));
    } else if (options.containsKey("--set-xmark") || options.containsKey("--set-mark")) {
      boolean xor = options.containsKey("--set-xmark");
      String value = options.get(xor ? "--set-xmark" : "--set-mark");
      int slash = value.indexOf('/');
      long bits = Matches.number(slash < 0 ? value : value.substring(0, slash));
      long mask = slash < 0 ? 0xffffffffL : Matches.number(value.substring(slash + 1));
      mark = xor ? (mark & ~mask) ^ bits : (mark & ~mask) | bits;
    } else {
      throw new IllegalArgumentException("MARK without a mark operation: " + rule.text());
    }
    packet.mark = mark & 0xffffffffL;
  }
}
