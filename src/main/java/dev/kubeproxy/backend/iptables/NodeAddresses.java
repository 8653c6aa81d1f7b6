package dev.kubeproxy.backend.iptables;

import dev.kubeproxy.net.IpAddresses;
import dev.kubeproxy.net.IpFamily;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;

/** The node's interface addresses (the agent's network namespace), as canonical text. */
public final class NodeAddresses {
  private NodeAddresses() {}

  /** Reads the interfaces of the JVM's own network namespace each time it is called. */
  public static Supplier<List<String>> ofInterfaces() {
    return () -> {
      Set<String> out = new LinkedHashSet<>();
      try {
        for (NetworkInterface nic : Collections.list(NetworkInterface.getNetworkInterfaces())) {
          for (InetAddress address : Collections.list(nic.getInetAddresses())) {
            out.add(canonical(address.getAddress()));
          }
        }
      } catch (SocketException e) {
        throw new IllegalStateException("cannot list network interfaces: " + e.getMessage(), e);
      }
      return new ArrayList<>(out);
    };
  }

  /** IPv4 dotted quad, or IPv6 in RFC 5952 form (longest zero run as "::"), as Go prints it. */
  public static String canonical(byte[] address) {
    return IpAddresses.format(address);
  }

  static boolean isLoopback(String ip) {
    return IpAddresses.isLoopback(ip);
  }

  static IpFamily familyOf(String ip) {
    return ip.indexOf(':') >= 0 ? IpFamily.IPv6 : IpFamily.IPv4;
  }

}
