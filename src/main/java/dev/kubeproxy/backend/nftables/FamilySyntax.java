package dev.kubeproxy.backend.nftables;

import dev.kubeproxy.backend.nftables.objects.Match;

import dev.kubeproxy.net.IpFamily;
import dev.kubeproxy.model.LocalTrafficDetector;

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

  /** The typed form of {@link #notLoopbackDestinationText()}. */
  public Match notLoopbackDestination() {
    return new Match.Address(Match.Field.DESTINATION, true, family == IpFamily.IPv6 ? "::1" : "127.0.0.0/8");
  }

  /** Excludes loopback destinations (localhost NodePorts are not supported). */
  public String notLoopbackDestinationText() {
    StringBuilder sb = new StringBuilder();
    notLoopbackDestination().render(sb, ip());
    return sb.toString();
  }

  /**
   * The match for traffic from pods on this node (local == true) or from elsewhere, per detector
   * mode; interfaces are matched by name (iifname) so missing interfaces are no error.
   */
  public static Match localTraffic(LocalTrafficDetector detector, boolean local) {
    if (detector.byCidr()) {
      return new Match.Address(Match.Field.SOURCE, !local, detector.value());
    }
    return new Match.InterfaceName(!local, detector.byInterfacePrefix() ? detector.value() + "*" : detector.value());
  }
}
