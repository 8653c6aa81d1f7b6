package dev.kubeproxy.model;

/**
 * How one family's proxier tells pod-originated traffic apart (pkg/proxy/util/localdetector.go LocalTrafficDetector).
 * Backends render it: iptables "-s CIDR" / "-i IF" / "-i PFX+", nftables "ip saddr CIDR" / "iifname IF" /
 * "iifname PFX*". {@link #noop()} means no detection: rules that need it are omitted.
 *
 * @param mode  ClusterCIDR, NodeCIDR, BridgeInterface, InterfaceNamePrefix, or "" for none
 * @param value the CIDR (both CIDR modes), the bridge name, or the interface prefix
 */
public record LocalTrafficDetector(String mode, String value) {
  public static LocalTrafficDetector noop() {
    return new LocalTrafficDetector("", "");
  }

  public boolean implemented() {
    return !mode.isEmpty();
  }

  public boolean byCidr() {
    return mode.equals("ClusterCIDR") || mode.equals("NodeCIDR");
  }

  public boolean byInterfacePrefix() {
    return mode.equals("InterfaceNamePrefix");
  }
}
