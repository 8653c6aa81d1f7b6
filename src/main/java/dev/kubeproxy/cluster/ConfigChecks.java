package dev.kubeproxy.cluster;

import dev.kubeproxy.net.IpAddresses;

import dev.kubeproxy.config.KubeProxyConfiguration;
import dev.kubeproxy.net.IpFamily;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;

/**
 * checkBadConfig and checkBadIPConfig (cmd/kube-proxy/app/server.go): configuration that does not
 * fit the node's IP families. Texts are upstream's.
 */
public final class ConfigChecks {
  private ConfigChecks() {}

  /** The result of a check: the messages, and whether they stop the agent. */
  public record Result(List<String> messages, boolean fatal) {
    /** Go's aggregated error text: one message as is, several as "[a, b]". */
    public String aggregated() {
      return messages.size() == 1 ? messages.get(0) : "[" + String.join(", ", messages) + "]";
    }
  }

  static IpFamily other(IpFamily f) {
    return f == IpFamily.IPv4 ? IpFamily.IPv6 : IpFamily.IPv4;
  }

  /** IsDualStackCIDRStrings: every entry parses as a CIDR and both families occur. */
  static boolean isDualStackCidrs(List<String> cidrs) {
    if (cidrs == null || cidrs.isEmpty()) {
      return false;
    }
    boolean v4 = false;
    boolean v6 = false;
    for (String c : cidrs) {
      InetAddress ip = IpAddresses.cidrAddress(c);
      if (ip == null) {
        return false;
      }
      if (IpFamily.of(ip) == IpFamily.IPv6) v6 = true; else v4 = true;
    }
    return v4 && v6;
  }

  /** Warnings only (logged as "Kube-proxy configuration may be incomplete or incorrect"). */
  public static Result checkBadConfig(KubeProxyConfiguration cfg, List<String> podCIDRs, IpFamily primary) {
    List<String> out = new ArrayList<>();
    List<String> npa = cfg.nodePortAddresses == null ? List.of() : cfg.nodePortAddresses;
    boolean dualStackConfig = isDualStackCidrs(cfg.clusterCIDRs()) || isDualStackCidrs(npa)
        || isDualStackCidrs(cfg.ipvs.excludeCIDRs) || isDualStackCidrs(podCIDRs);
    if (npa.isEmpty()) {
      out.add("nodePortAddresses is unset; NodePort connections will be accepted on all local IPs. Consider using `--nodeport-addresses primary`");
    } else if (dualStackConfig && npa.stream().allMatch(a -> IpFamily.ofText(a) == primary)) {
      out.add("cluster appears to be dual-stack but nodePortAddresses contains only " + primary
          + " addresses; NodePort connections will be accepted on all local " + other(primary) + " IPs");
    } else if (npa.stream().noneMatch(a -> IpFamily.ofText(a) == primary)) {
      out.add("cluster appears to be " + primary + "-primary but nodePortAddresses contains only " + other(primary)
          + " addresses; NodePort connections will be accepted on all local " + primary + " IPs");
    }
    return new Result(out, false);
  }

  /** Family mismatches; fatal ones fail startup with "kube-proxy configuration is incorrect: ...". */
  public static Result checkBadIPConfig(KubeProxyConfiguration cfg, List<String> podCIDRs, IpFamily primary,
                                        boolean dualStackSupported) {
    IpFamily bad = other(primary);
    String n = bad == IpFamily.IPv4 ? "4" : "6";
    String clusterType = primary + (dualStackSupported ? "-primary" : "-only");
    String mode = cfg.detectLocalMode == null || cfg.detectLocalMode.isEmpty() ? "ClusterCIDR" : cfg.detectLocalMode;
    List<String> out = new ArrayList<>();
    boolean fatal = false;
    if (allOf(cfg.clusterCIDRs(), bad)) {
      out.add("cluster is " + clusterType + " but clusterCIDRs contains only IPv" + n + " addresses");
      fatal |= mode.equals("ClusterCIDR") && !dualStackSupported;
    }
    if (allOf(podCIDRs, bad)) {
      out.add("cluster is " + clusterType + " but node.spec.podCIDRs contains only IPv" + n + " addresses");
      fatal |= mode.equals("NodeCIDR");
    }
    InetAddress vip = IpAddresses.inetAddress(cfg.winkernel.sourceVip);
    if (vip != null && IpFamily.of(vip) == bad) {
      out.add("cluster is " + clusterType + " but winkernel.sourceVip is IPv" + n);
    }
    if (!dualStackSupported) {
      if (allOf(cfg.ipvs.excludeCIDRs, bad)) {
        out.add("cluster is " + clusterType + " but ipvs.excludeCIDRs contains only IPv" + n + " addresses");
      }
      if (specifiedIpOf(cfg.healthzBindAddress, bad)) {
        out.add("cluster is " + clusterType + " but healthzBindAddress is IPv" + n);
      }
      if (specifiedIpOf(cfg.metricsBindAddress, bad)) {
        out.add("cluster is " + clusterType + " but metricsBindAddress is IPv" + n);
      }
    }
    return new Result(out, fatal);
  }

  private static boolean allOf(List<String> cidrs, IpFamily family) {
    return cidrs != null && !cidrs.isEmpty() && cidrs.stream().allMatch(c -> IpFamily.ofText(c) == family);
  }

  /** A host:port (or bare IP) whose IP is a specified address of the given family. */
  private static boolean specifiedIpOf(String hostPort, IpFamily family) {
    if (hostPort == null || hostPort.isEmpty()) {
      return false;
    }
    String host = hostPort;
    int colon = hostPort.lastIndexOf(':');
    if (hostPort.startsWith("[")) {
      host = hostPort.substring(1, hostPort.indexOf(']'));
    } else if (colon > 0 && hostPort.indexOf(':') == colon) {
      host = hostPort.substring(0, colon);
    }
    InetAddress ip = IpAddresses.inetAddress(host);
    return ip != null && !ip.isAnyLocalAddress() && IpFamily.of(ip) == family;
  }
}
