package dev.kubeproxy.backend.ipvs;

import dev.kubeproxy.net.Cidr;
import dev.kubeproxy.net.IpAddresses;
import dev.kubeproxy.net.IpFamily;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/** The node's own addresses as ipvs mode uses them: for NodePort virtual servers and the node address set. */
final class NodeAddresses {
  private NodeAddresses() {}

  /**
   * upstream GetAllLocalAddressesExcept's filter (isValidForSet): this family's addresses, without
   * loopback and IPv6 link-local ones.
   */
  static Set<String> of(Set<String> addresses, IpFamily family) {
    Set<String> out = new LinkedHashSet<>();
    for (String ip : addresses) {
      byte[] b = IpAddresses.parse(ip);
      if (b == null || IpAddresses.familyOf(ip) != family || IpAddresses.isLoopback(ip)) {
        continue;
      }
      if (b.length == 16 && (b[0] & 0xff) == 0xfe && (b[1] & 0xc0) == 0x80) {
        continue;
      }
      out.add(ip);
    }
    return out;
  }

  /**
   * The addresses NodePort virtual servers listen on (upstream's nodeIPs), sorted: every node
   * address, or with nodePortAddresses those inside its CIDRs.
   */
  static List<String> forNodePorts(Set<String> nodeAddresses, List<String> nodePortAddresses) {
    if (nodePortAddresses.isEmpty()) {
      return new ArrayList<>(new TreeSet<>(nodeAddresses));
    }
    List<Cidr> cidrs = nodePortAddresses.stream().map(Cidr::parse).toList();
    List<String> out = new ArrayList<>();
    for (String ip : new TreeSet<>(nodeAddresses)) {
      if (cidrs.stream().anyMatch(c -> c.contains(ip))) {
        out.add(ip);
      }
    }
    return out;
  }
}
