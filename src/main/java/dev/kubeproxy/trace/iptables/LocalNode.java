package dev.kubeproxy.trace.iptables;

import dev.kubeproxy.net.Cidr;
import java.util.List;
import java.util.Set;

/**
 * What a tracer needs to know about the node besides its rules: the addresses that are local to it (for
 * {@code -m addrtype LOCAL} and for the routing decision after DNAT) and the interfaces packets arrive on
 * (for rules that tell pod traffic by {@code -i}).
 *
 * @param localIps the node's own addresses (loopback is always local as well)
 * @param podInterface the interface a packet from a local pod arrives on (e.g. "cni0", or "veth1234" for an
 *     interface-prefix detector)
 * @param externalInterface the interface a packet from outside arrives on and leaves by (e.g. "eth0")
 */
public record LocalNode(Set<String> localIps, String podInterface, String externalInterface) {
  private static final List<Cidr> LOOPBACK = List.of(Cidr.parse("127.0.0.0/8"), Cidr.parse("::1/128"));

  public LocalNode {
    localIps = Set.copyOf(localIps);
  }

  /** A node with these addresses, pods behind "cni0" and the outside behind "eth0". */
  public static LocalNode of(String... localIps) {
    return new LocalNode(Set.of(localIps), "cni0", "eth0");
  }

  /** Whether the kernel would call this address LOCAL on this node. */
  public boolean isLocal(String ip) {
    for (Cidr loopback : LOOPBACK) {
      if (loopback.contains(ip)) {
        return true;
      }
    }
    byte[] bytes = Cidr.addressBytes(ip);
    for (String local : localIps) {
      if (java.util.Arrays.equals(Cidr.addressBytes(local), bytes)) {
        return true;
      }
    }
    return false;
  }
}
