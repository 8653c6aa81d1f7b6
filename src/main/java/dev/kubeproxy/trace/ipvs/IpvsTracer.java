package dev.kubeproxy.trace.ipvs;

import dev.kubeproxy.backend.ipvs.RealServer;
import dev.kubeproxy.backend.ipvs.VirtualServer;
import dev.kubeproxy.net.IpAddresses;
import dev.kubeproxy.trace.Packet;
import dev.kubeproxy.trace.PacketTracer;
import dev.kubeproxy.trace.Trace;
import dev.kubeproxy.trace.iptables.IpSetContents;
import dev.kubeproxy.trace.iptables.IptablesRules;
import dev.kubeproxy.trace.iptables.IptablesTracer;
import dev.kubeproxy.trace.iptables.LocalNode;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
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
   * @param virtualServers IPVS's virtual servers by key ("ip:port/TCP")
   * @param realServers each virtual server's real servers, by the virtual server's key
   * @param boundAddresses the addresses on kube-ipvs0
   * @param node the node's own addresses and interfaces
   */
  public IpvsTracer(IptablesRules rules, IpSetContents sets, Map<String, VirtualServer> virtualServers,
      Map<String, List<RealServer>> realServers, Set<String> boundAddresses, LocalNode node) {
    Map<String, List<String>> destinations = new HashMap<>();
    virtualServers.forEach((key, vs) -> destinations.put(
        service(vs.address(), vs.protocol(), vs.port()),
        realServers.getOrDefault(key, List.of()).stream().filter(rs -> rs.weight() > 0).map(RealServer::key)
            .sorted().toList()));
    Set<String> local = new HashSet<>(node.localIps());
    local.addAll(boundAddresses);
    this.tracer = new IptablesTracer(rules, new LocalNode(local, node.podInterface(), node.externalInterface()),
        sets, (address, protocol, port) -> destinations.get(service(address, protocol, port)));
  }

  @Override
  public Trace trace(Packet packet) {
    return tracer.trace(packet);
  }

  private static String service(String address, String protocol, int port) {
    String normalized = IpAddresses.normalize(address);
    return (normalized == null ? address : normalized) + "|" + protocol.toLowerCase(Locale.ROOT) + "|" + port;
  }
}
