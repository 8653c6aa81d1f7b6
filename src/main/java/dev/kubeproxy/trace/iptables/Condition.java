package dev.kubeproxy.trace.iptables;

/** One match of a rule (its -s, -p, -m ... options), tested against the packet as it is at that rule. */
@FunctionalInterface
interface Condition {
  boolean test(PacketState packet);

  /** The same match with iptables' "!" in front. */
  default Condition negated() {
    return packet -> !test(packet);
  }
}
