package dev.kubeproxy.net;

import java.net.Inet6Address;
import java.net.InetAddress;

/** The two IP families; kube-proxy runs one single-family proxier per family. */
public enum IpFamily {
  IPv4,
  IPv6;

  public static IpFamily of(InetAddress address) {
    return address instanceof Inet6Address ? IPv6 : IPv4;
  }

  /** The family of a textual IP or CIDR: anything with a colon is IPv6. */
  public static IpFamily ofText(String ipOrCidr) {
    return ipOrCidr.indexOf(':') >= 0 ? IPv6 : IPv4;
  }
}
