package dev.kubeproxy.config;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The nodePortAddresses keywords of upstream 1.37 (cmd/kube-proxy/app/server.go
 * expandNodePortAddressKeywords): "primary" is the node's primary IP of each family, "localhost" the
 * loopback CIDRs, "all" the zero CIDRs; any of them may stand with each other and with CIDRs.
 */
public final class NodePortAddressKeywords {
  public static final String PRIMARY = "primary";
  public static final String LOCALHOST = "localhost";
  public static final String ALL = "all";
  public static final List<String> KEYWORDS = List.of(PRIMARY, LOCALHOST, ALL);

  private NodePortAddressKeywords() {}

  public static boolean isKeyword(String entry) {
    return KEYWORDS.contains(entry);
  }

  /**
   * The list with each keyword replaced by its CIDRs, in order and without repeats: "primary" by
   * the node IPs given as /32 and /128 (a loopback or missing one is left out), "localhost" by
   * 127.0.0.0/8 and ::1/128, "all" by 0.0.0.0/0 and ::/0. A list without keywords is returned as it is;
   * an empty result (a lone "primary" without node IPs) means every local address, as before.
   *
   * @param ipv4 the node's primary IPv4 address (null: none, or loopback)
   * @param ipv6 the node's primary IPv6 address (null: none, or loopback)
   */
  public static List<String> expand(List<String> nodePortAddresses, String ipv4, String ipv6) {
    if (nodePortAddresses == null || nodePortAddresses.stream().noneMatch(NodePortAddressKeywords::isKeyword)) {
      return nodePortAddresses;
    }
    Set<String> out = new LinkedHashSet<>();
    for (String entry : nodePortAddresses) {
      switch (entry) {
        case PRIMARY -> {
          if (ipv4 != null) {
            out.add(ipv4 + "/32");
          }
          if (ipv6 != null) {
            out.add(ipv6 + "/128");
          }
        }
        case LOCALHOST -> {
          out.add("127.0.0.0/8");
          out.add("::1/128");
        }
        case ALL -> {
          out.add("0.0.0.0/0");
          out.add("::/0");
        }
        default -> out.add(entry);
      }
    }
    return new ArrayList<>(out);
  }
}
