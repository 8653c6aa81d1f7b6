package dev.kubeproxy.trace.iptables;

import dev.kubeproxy.trace.Packet;
import dev.kubeproxy.trace.Step;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A packet as it is at one point of its walk through the hooks: addresses after any DNAT, the skb mark, the
 * interfaces, its conntrack state and the steps taken so far. Mutable; each random choice walks a copy.
 */
final class PacketState {
  final LocalNode node;
  final IpSetContents sets;
  final String source;
  String destination;
  int destinationPort;
  final String protocol;
  final boolean established;
  /** The input interface, or null on the output path. */
  String inInterface;
  /** The output interface, or null before the routing decision. */
  String outInterface;
  long mark;
  /** The DNAT target "ip:port" ("[ip]:port" for IPv6), or null while not DNATed. */
  String dnatTarget;
  boolean masqueraded;
  /** The IPVS virtual server that took the packet ("ip", "tcp", port), or null. */
  String ipvsAddress;
  String ipvsProtocol;
  int ipvsPort;
  final List<Step> path;

  private PacketState(LocalNode node, IpSetContents sets, String source, String destination, int destinationPort, String protocol,
      boolean established, List<Step> path) {
    this.node = node;
    this.sets = sets;
    this.source = source;
    this.destination = destination;
    this.destinationPort = destinationPort;
    this.protocol = protocol;
    this.established = established;
    this.path = path;
  }

  static PacketState of(Packet packet, LocalNode node, IpSetContents sets) {
    return new PacketState(node, sets, packet.sourceIp(), packet.destinationIp(), packet.destinationPort(),
        packet.protocol().name().toLowerCase(Locale.ROOT), packet.established(), new ArrayList<>());
  }

  PacketState copy() {
    PacketState copy = new PacketState(node, sets, source, destination, destinationPort, protocol, established,
        new ArrayList<>(path));
    copy.inInterface = inInterface;
    copy.outInterface = outInterface;
    copy.mark = mark;
    copy.dnatTarget = dnatTarget;
    copy.masqueraded = masqueraded;
    copy.ipvsAddress = ipvsAddress;
    copy.ipvsProtocol = ipvsProtocol;
    copy.ipvsPort = ipvsPort;
    return copy;
  }

  /** Whether conntrack's state of this packet's connection is one of these (NEW, ESTABLISHED, DNAT, ...). */
  boolean inCtState(List<String> states) {
    for (String state : states) {
      boolean holds = switch (state) {
        case "NEW" -> !established;
        case "ESTABLISHED" -> established;
        case "DNAT" -> dnatTarget != null;
        case "SNAT" -> masqueraded;
        default -> false; // RELATED, INVALID, UNTRACKED: never for the packets traced
      };
      if (holds) {
        return true;
      }
    }
    return false;
  }
}
