package dev.kubeproxy.backend.ipvs;

import dev.kubeproxy.model.ServicePortName;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The whole state ipvs mode programs for one family, computed from the model
 * ({@link IpvsRulesetGenerator}): virtual servers with their real servers, the addresses of
 * kube-ipvs0, every ipset's entries, and the iptables-restore input.
 *
 * @param virtualServers    by key ("ip:port/TCP"), sorted
 * @param realServers       by virtual server key, each list sorted by endpoint
 * @param owners            the service port behind each virtual server key (for logs)
 * @param bindAddresses     the addresses kube-ipvs0 must hold, sorted
 * @param ipsetEntries      by set name (the family's), every set of {@link IpSets#all}, entries sorted
 * @param iptablesRestore   input for iptables-restore --noflush --counters
 * @param noLocalEndpointsInternal services with internalTrafficPolicy Local and no local endpoint
 * @param noLocalEndpointsExternal services with externalTrafficPolicy Local and no local endpoint
 */
public record IpvsRuleset(
    Map<String, VirtualServer> virtualServers,
    Map<String, List<RealServer>> realServers,
    Map<String, ServicePortName> owners,
    Set<String> bindAddresses,
    Map<String, Set<String>> ipsetEntries,
    String iptablesRestore,
    Set<String> noLocalEndpointsInternal,
    Set<String> noLocalEndpointsExternal) {

  /** The whole state as text: what a test states and --dry-run prints. */
  public String describe() {
    StringBuilder out = new StringBuilder("# IPVS virtual servers\n");
    virtualServers.forEach((key, vs) -> {
      out.append(vs.protocol()).append(' ').append(VirtualServer.hostPort(vs.address(), vs.port())).append(' ')
          .append(vs.scheduler());
      if ((vs.flags() & VirtualServer.FLAG_PERSISTENT) != 0) {
        out.append(" persistent ").append(vs.timeout());
      }
      if ((vs.flags() & VirtualServer.FLAG_SOURCE_HASH) != 0) {
        out.append(" source-hash");
      }
      out.append('\n');
      for (RealServer rs : realServers.getOrDefault(key, List.of())) {
        out.append("  -> ").append(rs.key()).append(" weight ").append(rs.weight()).append('\n');
      }
    });
    out.append("# kube-ipvs0 addresses\n");
    bindAddresses.forEach(a -> out.append(a).append('\n'));
    out.append("# ipsets\n");
    ipsetEntries.forEach((name, entries) -> {
      if (!entries.isEmpty()) {
        out.append(name).append(": ").append(String.join(" ", entries)).append('\n');
      }
    });
    out.append("# iptables-restore input\n").append(iptablesRestore);
    return out.toString();
  }

  /** The rules ("-A" lines) the restore input writes into one table ("filter", "nat"). */
  public int rulesIn(String table) {
    int n = 0;
    boolean in = false;
    for (String line : iptablesRestore.split("\n")) {
      if (line.startsWith("*")) {
        in = line.equals("*" + table);
      } else if (in && line.startsWith("-A ")) {
        n++;
      }
    }
    return n;
  }
}
