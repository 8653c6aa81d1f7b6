package dev.kubeproxy.trace.ipvs;

import dev.kubeproxy.model.ProgrammedRuleset;
import dev.kubeproxy.net.IpAddresses;
import dev.kubeproxy.trace.Packet;
import dev.kubeproxy.trace.PacketTracer;
import dev.kubeproxy.trace.Trace;
import dev.kubeproxy.trace.iptables.IpSetContents;
import dev.kubeproxy.trace.iptables.IptablesRules;
import dev.kubeproxy.trace.iptables.IptablesTracer;
import dev.kubeproxy.trace.iptables.LocalNode;
import dev.kubeproxy.trace.iptables.VirtualServers;
import java.util.HashSet;
import java.util.Set;

/**
 * Traces a packet through what ipvs mode programs: the iptables rules around IPVS (with the ipsets they test), the
 * IPVS virtual servers that take packets for their address, protocol and port at LOCAL_IN and LOCAL_OUT, and
 * their real servers (those of weight above 0 can get a new connection; all of them are the answer). The
 * addresses bound to kube-ipvs0 are local to the node, so packets for them are delivered to INPUT where IPVS
 * takes them.
 */
public final class IpvsTracer implements PacketTracer {
  private final IptablesTracer tracer;

  /**
   * @param rules the iptables rules (iptables-save, or the restore input on the jump rules)
   * @param sets the ipsets ("ipset save" text, parsed)
   * @param ipvs IPVS's virtual servers and their real servers ("ipvsadm -Sn" text, parsed)
   * @param boundAddresses the addresses on kube-ipvs0
   * @param node the node's own addresses and interfaces
   */
  public IpvsTracer(IptablesRules rules, IpSetContents sets, VirtualServers ipvs, Set<String> boundAddresses,
      LocalNode node) {
    Set<String> local = new HashSet<>(node.localIps());
    local.addAll(boundAddresses);
    this.tracer = new IptablesTracer(rules, new LocalNode(local, node.podInterface(), node.externalInterface()),
        sets, ipvs);
  }

  /**
   * A tracer of an {@link ProgrammedRuleset#IPVS} ruleset: each section read by its own parser.
   *
   * @throws IllegalArgumentException naming the section and line that does not parse
   */
  public static IpvsTracer of(ProgrammedRuleset ruleset, LocalNode node) {
    if (!ProgrammedRuleset.IPVS.equals(ruleset.form())) {
      throw new IllegalArgumentException("not an ipvs ruleset: its form is " + ruleset.form());
    }
    Set<String> bound = new HashSet<>();
    for (String line : ruleset.section(ProgrammedRuleset.SECTION_BOUND).split("\n")) {
      String address = line.strip();
      if (address.isEmpty()) {
        continue;
      }
      String normalized = IpAddresses.normalize(address);
      if (normalized == null) {
        throw new IllegalArgumentException("kube-ipvs0 address \"" + address + "\" is not an IP address");
      }
      bound.add(normalized);
    }
    return new IpvsTracer(IptablesRules.parse(ruleset.section(ProgrammedRuleset.SECTION_IPTABLES)),
        IpSetContents.parse(ruleset.section(ProgrammedRuleset.SECTION_IPSET)),
        IpvsadmTable.parse(ruleset.section(ProgrammedRuleset.SECTION_IPVSADM)), bound, node);
  }

  @Override
  public Trace trace(Packet packet) {
    return tracer.trace(packet);
  }
}
