package dev.kubeproxy.host;

import dev.kubeproxy.net.Cidr;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/** The IP addresses of this host's (this network namespace's) interfaces. Blocking: call from a worker. */
public final class LocalAddresses {
  private LocalAddresses() {}

  /** Every address of every interface (up or not, as Go's net.InterfaceAddrs), IPv6 scope ids removed. */
  public static List<InetAddress> all() throws SocketException {
    Set<InetAddress> out = new LinkedHashSet<>();
    for (NetworkInterface nic : Collections.list(NetworkInterface.getNetworkInterfaces())) {
      for (InetAddress a : Collections.list(nic.getInetAddresses())) {
        out.add(withoutScope(a));
      }
    }
    return new ArrayList<>(out);
  }

  /** The local addresses inside any of these CIDRs (upstream's nodePortAddresses matching). */
  public static List<InetAddress> matching(List<Cidr> cidrs) throws SocketException {
    List<InetAddress> out = new ArrayList<>();
    for (InetAddress a : all()) {
      if (cidrs.stream().anyMatch(c -> c.contains(a))) {
        out.add(a);
      }
    }
    return out;
  }

  /** Whether any interface has an IPv6 address (then "::" listens on both families). */
  public static boolean hasIpv6() {
    try {
      return all().stream().anyMatch(a -> a instanceof Inet6Address);
    } catch (SocketException e) {
      return false;
    }
  }

  private static InetAddress withoutScope(InetAddress a) {
    if (a instanceof Inet6Address v6 && v6.getScopeId() != 0) {
      try {
        return InetAddress.getByAddress(v6.getAddress());
      } catch (java.net.UnknownHostException e) {
        return a;
      }
    }
    return a;
  }
}
