package dev.kubeproxy.backend.ipvs;

import dev.kubeproxy.net.IpFamily;

/**
 * One ipset of ipvs mode for one family (pkg/proxy/ipvs/ipset.go NewIPSet): IPv6 sets are named
 * "KUBE-6-…" so both families' sets can exist together (ipset names are at most 31 characters).
 *
 * @param baseName the IPv4 name, e.g. KUBE-CLUSTER-IP
 * @param comment  what the iptables rules that match the set say about it
 */
public record IpSet(String baseName, IpSetType type, String comment, IpFamily family) {
  static final int MAX_NAME_LENGTH = 31;

  /** The set's name in the kernel for its family. */
  public String name() {
    if (family != IpFamily.IPv6 || !baseName.startsWith("KUBE-")) {
      return baseName;
    }
    String n = "KUBE-6-" + baseName.substring("KUBE-".length());
    return n.length() > MAX_NAME_LENGTH ? n.substring(0, MAX_NAME_LENGTH) : n;
  }

  /**
   * The "ipset restore" line that creates it (pkg/proxy/ipvs/ipset/ipset.go createSet, with
   * upstream's defaults: hashsize 1024, maxelem 65536, the whole port range for bitmaps).
   */
  public String createLine() {
    if (type == IpSetType.BITMAP_PORT) {
      return "create " + name() + " " + type.text() + " range 0-65535";
    }
    return "create " + name() + " " + type.text() + " family " + (family == IpFamily.IPv6 ? "inet6" : "inet")
        + " hashsize 1024 maxelem 65536";
  }

  /** The comment as upstream quotes it in an iptables-restore line (IPSet.getComment). */
  public String quotedComment() {
    return "\"" + comment + "\"";
  }
}
