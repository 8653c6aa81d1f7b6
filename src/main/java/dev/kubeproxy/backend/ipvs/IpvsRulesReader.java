package dev.kubeproxy.backend.ipvs;

import dev.kubeproxy.model.Endpoint;
import dev.kubeproxy.model.ProgrammedRules;
import dev.kubeproxy.model.ServicePort;
import dev.kubeproxy.backend.netfilter.IptablesTool;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * What ipvs mode holds for one service port, for /debug/services: its virtual servers (cluster IP,
 * external and LoadBalancer IPs at the port, every address at the NodePort) with their real servers
 * and weights, its entries in the ipsets, and the iptables rules that match those sets (ipvs mode
 * has no per-service chains: the sets carry the service into the shared ones). From the kernel, or in
 * --dry-run from the last state the dry run printed.
 */
final class IpvsRulesReader {
  private final ServicePort port;
  private final List<Endpoint> endpoints;
  private final String protocol;

  IpvsRulesReader(ServicePort port, List<Endpoint> endpoints) {
    this.port = port;
    this.endpoints = endpoints;
    this.protocol = port.protocol().toLowerCase(Locale.ROOT);
  }

  ProgrammedRules fromKernel(Ipvs ipvs, IpSetTool ipset, IptablesTool iptables) {
    List<String> out = new ArrayList<>();
    String step = "IPVS over netlink";
    try {
      for (VirtualServer vs : ipvs.virtualServers()) {
        if (owns(vs)) {
          describe(out, vs, ipvs.realServers(vs));
        }
      }
      step = "ipset save";
      Set<String> sets = entries(out, ipset.entries("KUBE-"));
      step = iptables.saveCommand();
      rulesMatching(out, iptables.save("filter") + iptables.save("nat"), sets);
    } catch (IOException e) {
      return ProgrammedRules.failed(step, e.getMessage());
    }
    return ProgrammedRules.of("IPVS over netlink, ipset save, " + iptables.saveCommand() + " (filter and nat)", out);
  }

  ProgrammedRules fromDryRun(IpvsRuleset last) {
    if (last == null) {
      return ProgrammedRules.failed("the dry run's output", "nothing printed yet");
    }
    List<String> out = new ArrayList<>();
    last.virtualServers().forEach((key, vs) -> {
      if (owns(vs)) {
        describe(out, vs, last.realServers().getOrDefault(key, List.of()));
      }
    });
    Set<String> sets = entries(out, last.ipsetEntries());
    rulesMatching(out, last.iptablesRestore(), sets);
    return ProgrammedRules.of("the last state the dry run printed", out);
  }

  /** One of the port's virtual servers: an address of the service at its port, or any address at its NodePort. */
  boolean owns(VirtualServer vs) {
    if (!vs.protocol().equals(port.protocol())) {
      return false;
    }
    if (vs.port() == port.port() && addresses().contains(vs.address())) {
      return true;
    }
    return port.nodePort() != 0 && vs.port() == port.nodePort();
  }

  private Set<String> addresses() {
    Set<String> out = new LinkedHashSet<>();
    out.add(port.clusterIP());
    out.addAll(port.externalIPs());
    out.addAll(port.loadBalancerVIPs());
    return out;
  }

  /** As "ipvsadm -Ln" shows them: the virtual server, then each real server with its weight and connections. */
  private static void describe(List<String> out, VirtualServer vs, List<RealServer> reals) {
    StringBuilder line = new StringBuilder("ipvs ").append(vs.protocol()).append(' ')
        .append(VirtualServer.hostPort(vs.address(), vs.port())).append(' ').append(vs.scheduler());
    if ((vs.flags() & VirtualServer.FLAG_PERSISTENT) != 0) {
      line.append(" persistent ").append(vs.timeout());
    }
    if ((vs.flags() & VirtualServer.FLAG_SOURCE_HASH) != 0) {
      line.append(" (mh-port)");
    }
    out.add(line.toString() + (reals.isEmpty() ? " (no real server)" : ""));
    for (RealServer rs : reals) {
      out.add("ipvs   -> " + rs.key() + " Masq weight " + rs.weight() + " active " + rs.activeConn() + " inactive "
          + rs.inactiveConn());
    }
  }

  /** The port's entries, one line each; returns the sets that hold one. */
  private Set<String> entries(List<String> out, Map<String, Set<String>> bySet) {
    Set<String> sets = new LinkedHashSet<>();
    bySet.forEach((set, entries) -> {
      for (String entry : entries) {
        if (mine(set, entry)) {
          out.add("ipset " + set + ": " + entry);
          sets.add(set);
        }
      }
    });
    return sets;
  }

  /** Entry formats of IpvsRulesetGenerator (upstream's ipset.go): "ip,proto:port[,ip or cidr]", ports, IPs. */
  boolean mine(String set, String entry) {
    for (String address : addresses()) {
      if (entry.startsWith(address + "," + protocol + ":" + port.port() + ",") || entry.equals(address + ","
          + protocol + ":" + port.port())) {
        return true;
      }
      if (set.endsWith("IPVS-IPS") && entry.equals(address)) {
        return true;
      }
    }
    if (set.contains("NODE-PORT-") && !set.contains("HEALTH-CHECK") && port.nodePort() != 0
        && set.toLowerCase(Locale.ROOT).contains(protocol)
        && (entry.equals(Integer.toString(port.nodePort())) || entry.endsWith("," + protocol + ":" + port.nodePort()))) {
      return true;
    }
    if (set.endsWith("HEALTH-CHECK-NODE-PORT") && port.healthCheckNodePort() != 0
        && entry.equals(Integer.toString(port.healthCheckNodePort()))) {
      return true;
    }
    if (set.endsWith("LOOP-BACK")) {
      for (Endpoint ep : endpoints) {
        if (ep.local() && entry.equals(ep.ip() + "," + protocol + ":" + ep.port() + "," + ep.ip())) {
          return true;
        }
      }
    }
    return false;
  }

  /** The rules that match one of these sets, each under its "*table" line. */
  private static void rulesMatching(List<String> out, String text, Set<String> sets) {
    String table = null;
    boolean shown = false;
    for (String line : text.split("\n")) {
      if (line.startsWith("*")) {
        table = line;
        shown = false;
        continue;
      }
      if (!line.startsWith("-A ")) {
        continue;
      }
      for (String set : sets) {
        if (line.contains("--match-set " + set + " ")) {
          if (!shown && table != null) {
            out.add(table);
            shown = true;
          }
          out.add(line);
          break;
        }
      }
    }
  }
}
