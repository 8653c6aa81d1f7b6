package dev.kubeproxy.backend.iptables;

import dev.kubeproxy.net.IpFamily;
import dev.kubeproxy.model.LocalTrafficDetector;
import java.util.List;
import java.util.Set;

/**
 * Everything besides the service model that shapes the ruleset, resolved once per sync.
 *
 * @param masqueradeMark      e.g. 0x00004000
 * @param localhostNodePorts  effective value: IPv4 only, and only when nodePortAddresses covers 127.0.0.1
 * @param randomFully         iptables supports MASQUERADE --random-fully (1.6.2+)
 * @param conntrackTcpLiberal nf_conntrack_tcp_be_liberal is set: no INVALID drop rule
 * @param nodePortMatchAll    nodePortAddresses is empty or holds a zero-length CIDR
 * @param nodePortIPs         when not match-all: the node's interface addresses inside nodePortAddresses
 * @param nodeIPs             this family's node IPs (for the "allow from node" loadBalancerSourceRanges rule)
 * @param nfacctCounters      the nfacct counters that exist (ensured at the last full sync): their
 *                            rules get "-m nfacct --nfacct-name", as upstream 1.31 writes them
 */
public record RulesetOptions(
    IpFamily family,
    String masqueradeMark,
    boolean masqueradeAll,
    boolean localhostNodePorts,
    LocalTrafficDetector localDetector,
    boolean randomFully,
    boolean conntrackTcpLiberal,
    boolean nodePortMatchAll,
    List<String> nodePortIPs,
    List<String> nodeIPs,
    Set<String> nfacctCounters) {

  public RulesetOptions {
    nodePortIPs = List.copyOf(nodePortIPs);
    nodeIPs = List.copyOf(nodeIPs);
    nfacctCounters = Set.copyOf(nfacctCounters);
  }

  /** Without nfacct counters (the kernel has none, or none could be created). */
  public RulesetOptions(
      IpFamily family, String masqueradeMark, boolean masqueradeAll, boolean localhostNodePorts,
      LocalTrafficDetector localDetector, boolean randomFully, boolean conntrackTcpLiberal, boolean nodePortMatchAll,
      List<String> nodePortIPs, List<String> nodeIPs) {
    this(family, masqueradeMark, masqueradeAll, localhostNodePorts, localDetector, randomFully, conntrackTcpLiberal,
        nodePortMatchAll, nodePortIPs, nodeIPs, Set.of());
  }

  /** The same options with these nfacct counters. */
  public RulesetOptions withNfacctCounters(Set<String> counters) {
    return new RulesetOptions(family, masqueradeMark, masqueradeAll, localhostNodePorts, localDetector, randomFully,
        conntrackTcpLiberal, nodePortMatchAll, nodePortIPs, nodeIPs, counters);
  }
}
