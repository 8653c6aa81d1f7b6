package dev.kubeproxy.cluster;

import dev.kubeproxy.net.IpAddresses;
import dev.kubeproxy.config.NodePortAddressKeywords;
import dev.kubeproxy.net.IpFamily;
import dev.kubeproxy.model.objects.Node;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * Node IP selection (cmd/kube-proxy/app/server.go getNodeIPs, detectNodeIPs): the Node's host IPs,
 * detectNodeIPs' precedence and the "primary" nodePortAddresses expansion. Pure functions on text; IPs are parsed as literals
 * only (never resolved through DNS).
 */
public final class NodeIpSelection {

  private NodeIpSelection() {}

  /** An IP literal as upstream's ParseIPSloppy reads it (never through DNS), or null. */
  private static InetAddress parseIp(String text) {
    return IpAddresses.inetAddress(text);
  }

  static IpFamily family(InetAddress ip) {
    return IpFamily.of(ip);
  }

  /**
   * GetNodeHostIPs: all InternalIP then all ExternalIP addresses; the first is the primary, the
   * first later one of the other family the secondary.
   *
   * @throws IllegalArgumentException "host IP unknown; known addresses: [...]" when there is none
   */
  public static List<String> nodeHostIPs(Node node) {
    List<Node.Address> addresses = node.addresses();
    List<InetAddress> all = new ArrayList<>();
    for (String type : List.of("InternalIP", "ExternalIP")) {
      for (Node.Address a : addresses) {
        InetAddress ip = type.equals(a.type()) ? parseIp(a.address()) : null;
        if (ip != null) {
          all.add(ip);
        }
      }
    }
    if (all.isEmpty()) {
      List<String> known = addresses.stream().map(a -> "{" + a.type() + " " + a.address() + "}").toList();
      throw new IllegalArgumentException("host IP unknown; known addresses: " + known);
    }
    List<String> out = new ArrayList<>();
    out.add(all.get(0).getHostAddress());
    for (InetAddress ip : all) {
      if (family(ip) != family(all.get(0))) {
        out.add(ip.getHostAddress());
        break;
      }
    }
    return out.stream().map(NodeIpSelection::canonical).toList();
  }

  /** Textual form as Go prints it (compressed IPv6 zeros, no "%scope"); unparsable text unchanged. */
  static String canonical(String ip) {
    String normalized = IpAddresses.normalize(ip);
    return normalized == null ? ip : normalized;
  }

  /** The outcome of detectNodeIPs: the primary family and one IP per family. */
  public record DetectedIPs(IpFamily primaryFamily, Map<IpFamily, String> ips) {
    public String primary() {
      return ips.get(primaryFamily);
    }

    /** Primary first, then the other family's IP. */
    public List<String> ordered() {
      IpFamily other = primaryFamily == IpFamily.IPv4 ? IpFamily.IPv6 : IpFamily.IPv4;
      return List.of(ips.get(primaryFamily), ips.get(other));
    }

    public boolean primaryIsLoopback() {
      InetAddress ip = parseIp(primary());
      return ip != null && ip.isLoopbackAddress();
    }
  }

  /** detectNodeIPs (cmd/kube-proxy/app/server.go): node IPs, then a specified bind address overrides its family. */
  public static DetectedIPs detectNodeIPs(List<String> rawNodeIPs, String bindAddress) {
    Map<IpFamily, String> ips = new EnumMap<>(IpFamily.class);
    ips.put(IpFamily.IPv4, "127.0.0.1");
    ips.put(IpFamily.IPv6, "::1");
    IpFamily primary = IpFamily.IPv4;
    if (!rawNodeIPs.isEmpty()) {
      InetAddress first = parseIp(rawNodeIPs.get(0));
      primary = family(first);
      ips.put(primary, canonical(rawNodeIPs.get(0)));
      if (rawNodeIPs.size() > 1) {
        InetAddress second = parseIp(rawNodeIPs.get(1));
        ips.put(family(second), canonical(rawNodeIPs.get(1)));
      }
    }
    InetAddress bind = parseIp(bindAddress);
    if (bind != null && !bind.isAnyLocalAddress()) {
      primary = family(bind);
      ips.put(primary, canonical(bindAddress));
    }
    return new DetectedIPs(primary, ips);
  }

  /**
   * nodePortAddresses with its keywords expanded ({@link NodePortAddressKeywords#expand}): "primary"
   * is the node IP of each family as a /32 or /128, skipping loopback; an empty result means all
   * local IPs. A list without keywords is returned unchanged (the same instance).
   */
  public static List<String> expandKeywords(List<String> nodePortAddresses, DetectedIPs detected) {
    return NodePortAddressKeywords.expand(nodePortAddresses, nonLoopback(detected.ips().get(IpFamily.IPv4)),
        nonLoopback(detected.ips().get(IpFamily.IPv6)));
  }

  private static String nonLoopback(String ip) {
    return ip == null || parseIp(ip).isLoopbackAddress() ? null : ip;
  }
}
