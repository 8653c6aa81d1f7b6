package dev.kubeproxy.proxy.iptables;

import dev.kubeproxy.proxy.IpFamily;
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
    if (address.length == 4) {
      return (address[0] & 0xff) + "." + (address[1] & 0xff) + "." + (address[2] & 0xff) + "." + (address[3] & 0xff);
    }
    int[] groups = new int[8];
    for (int i = 0; i < 8; i++) {
      groups[i] = ((address[2 * i] & 0xff) << 8) | (address[2 * i + 1] & 0xff);
    }
    int bestStart = -1;
    int bestLength = 0;
    for (int i = 0; i < 8; ) {
      if (groups[i] != 0) {
        i++;
        continue;
      }
      int j = i;
      while (j < 8 && groups[j] == 0) {
        j++;
      }
      if (j - i > bestLength && j - i >= 2) {
        bestStart = i;
        bestLength = j - i;
      }
      i = j;
    }
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < 8; i++) {
      if (i == bestStart) {
        sb.append("::");
        i += bestLength - 1;
        continue;
      }
      if (sb.length() > 0 && sb.charAt(sb.length() - 1) != ':') {
        sb.append(':');
      }
      sb.append(Integer.toHexString(groups[i]));
    }
    return sb.toString();
  }

  static boolean isLoopback(String ip) {
    byte[] bytes = Cidr.addressBytes(ip);
    if (bytes.length == 4) {
      return (bytes[0] & 0xff) == 127;
    }
    for (int i = 0; i < 15; i++) {
      if (bytes[i] != 0) {
        return false;
      }
    }
    return bytes[15] == 1;
  }

  static IpFamily familyOf(String ip) {
    return ip.indexOf(':') >= 0 ? IpFamily.IPv6 : IpFamily.IPv4;
  }

}
