package dev.kubeproxy.proxy.nftables;

import dev.kubeproxy.proxy.IpFamily;
import dev.kubeproxy.proxy.LocalTrafficDetector;

/** The family-dependent pieces of rule text ("ip" vs "ip6", address types, loopback). */
public final class FamilySyntax {
  private final IpFamily family;

  public FamilySyntax(IpFamily family) {
    this.family = family;
  }

  public IpFamily family() {
    return family;
  }

  /** "ip" or "ip6", the payload keyword of address matches. */
  public String ip() {
    return family == IpFamily.IPv6 ? "ip6" : "ip";
  }

  public String addrType() {
    return family == IpFamily.IPv6 ? "ipv6_addr" : "ipv4_addr";
  }

  /** Excludes loopback destinations (localhost NodePorts are not supported). */
  public String notLoopbackDestination() {
    return family == IpFamily.IPv6 ? "ip6 daddr != ::1" : "ip daddr != 127.0.0.0/8";
  }

  /** An endpoint as a dnat target: "10.0.0.1:80" or "[fd00::1]:80". */
  public String hostPort(String ip, int port) {
    return family == IpFamily.IPv6 ? "[" + ip + "]:" + port : ip + ":" + port;
  }

  /**
   * The match for traffic from pods on this node (local == true) or from elsewhere, per detector
   * mode; interfaces are matched by name (iifname) so missing interfaces are no error.
   */
  public String localTraffic(LocalTrafficDetector detector, boolean local) {
    String op = local ? " " : " != ";
    if (detector.byCidr()) {
      return ip() + " saddr" + op + detector.value();
    }
    if (detector.byInterfacePrefix()) {
      return "iifname" + op + "\"" + detector.value() + "*\"";
    }
    return "iifname" + op + "\"" + detector.value() + "\"";
  }
}
