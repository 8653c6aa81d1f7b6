package dev.kubeproxy.model;

import dev.kubeproxy.net.IpFamily;

import java.io.PrintStream;
import java.time.Duration;
import java.util.List;

/**
 * What one single-family backend is built with: the configuration and node facts it needs,
 * already resolved (cmd/kube-proxy/app/server_linux.go createProxier).
 *
 * @param nodeName            this node's name (endpoints whose nodeName equals it are local)
 * @param nodeIPs             this family's node IPs (bind address, else the Node's addresses, else loopback)
 * @param nodePortAddresses   this family's nodePortAddresses CIDRs after "primary" was resolved; empty = all
 * @param masqueradeBit       0..31; the mark is 1 &lt;&lt; bit
 * @param localhostNodePorts  iptables.localhostNodePorts (IPv4 iptables only)
 * @param dryRunOutput        non-null in --dry-run: print the rule input here instead of applying it
 */
public record ProxierSettings(
    IpFamily family,
    String nodeName,
    List<String> nodeIPs,
    List<String> nodePortAddresses,
    boolean masqueradeAll,
    int masqueradeBit,
    boolean localhostNodePorts,
    LocalTrafficDetector localDetector,
    Duration syncPeriod,
    Duration minSyncPeriod,
    PrintStream dryRunOutput) {

  public ProxierSettings {
    nodeIPs = List.copyOf(nodeIPs);
    nodePortAddresses = List.copyOf(nodePortAddresses);
  }

  public boolean dryRun() {
    return dryRunOutput != null;
  }

  /** The masquerade mark as upstream prints it: Go's %#08x, e.g. 0x00004000 for bit 14. */
  public String masqueradeMark() {
    return String.format("0x%08x", 1 << masqueradeBit);
  }
}
