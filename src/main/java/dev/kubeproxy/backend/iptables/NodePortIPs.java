package dev.kubeproxy.backend.iptables;

import dev.kubeproxy.logging.Log;
import dev.kubeproxy.net.Cidr;
import dev.kubeproxy.net.IpFamily;
import dev.kubeproxy.model.ProxierSettings;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;

/**
 * Which local addresses accept NodePort traffic in iptables mode (pkg/proxy/util/nodeport_addresses.go
 * NewNodePortAddresses, MatchAll, GetNodeIPs and ContainsIPv4Loopback): every address when
 * nodePortAddresses is empty or holds a /0, otherwise the node's interface addresses inside it,
 * loopback only for IPv4 with iptables.localhostNodePorts.
 */
final class NodePortIPs {
  private final ProxierSettings settings;
  private final Supplier<List<String>> interfaceAddresses;
  private final boolean localhost;

  NodePortIPs(ProxierSettings settings, Supplier<List<String>> interfaceAddresses) {
    this.settings = settings;
    this.interfaceAddresses = interfaceAddresses;
    this.localhost = settings.family() == IpFamily.IPv4 && settings.localhostNodePorts()
        && containsIPv4Loopback(settings.nodePortAddresses());
  }

  /** Whether NodePorts answer on localhost (route_localnet is then set at start). */
  boolean localhost() {
    return localhost;
  }

  boolean matchAll() {
    return matchesAll(settings.nodePortAddresses());
  }

  static boolean matchesAll(List<String> nodePortAddresses) {
    if (nodePortAddresses.isEmpty()) {
      return true;
    }
    for (String cidr : nodePortAddresses) {
      if (Cidr.parse(cidr).matchesAll()) {
        return true;
      }
    }
    return false;
  }

  /** The node's addresses inside nodePortAddresses (loopback only where localhost NodePorts work). */
  List<String> resolve() {
    List<Cidr> cidrs = new ArrayList<>();
    for (String cidr : settings.nodePortAddresses()) {
      cidrs.add(Cidr.parse(cidr));
    }
    Set<String> out = new LinkedHashSet<>();
    List<String> addresses;
    try {
      addresses = interfaceAddresses.get();
    } catch (RuntimeException e) {
      Log.error("Failed to get node ip address matching nodeport cidrs, services with nodeport may not work "
          + "as intended", e);
      return List.of();
    }
    for (String ip : addresses) {
      if (NodeAddresses.familyOf(ip) != settings.family()) {
        continue;
      }
      boolean inside = false;
      for (Cidr cidr : cidrs) {
        inside |= cidr.contains(ip);
      }
      if (!inside) {
        continue;
      }
      if (NodeAddresses.isLoopback(ip)) {
        if (settings.family() == IpFamily.IPv6) {
          Log.error("--nodeport-addresses includes localhost but localhost NodePorts are not supported on IPv6",
              "address", ip);
          continue;
        } else if (!localhost) {
          Log.error("--nodeport-addresses includes localhost but --iptables-localhost-nodeports=false was passed",
              "address", ip);
          continue;
        }
      }
      out.add(ip);
    }
    return new ArrayList<>(out);
  }

  static boolean containsIPv4Loopback(List<String> nodePortAddresses) {
    if (nodePortAddresses.isEmpty()) {
      return true;
    }
    boolean anyIPv4 = false;
    for (String text : nodePortAddresses) {
      if (text.indexOf(':') >= 0) {
        continue;
      }
      anyIPv4 = true;
      Cidr cidr = Cidr.parse(text);
      if ((cidr.network()[0] & 0xff) == 127 || cidr.contains("127.0.0.0")) {
        return true;
      }
    }
    return !anyIPv4;
  }
}
