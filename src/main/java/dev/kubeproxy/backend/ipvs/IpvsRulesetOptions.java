package dev.kubeproxy.backend.ipvs;

import dev.kubeproxy.net.IpFamily;
import dev.kubeproxy.model.LocalTrafficDetector;
import java.util.List;
import java.util.Set;

/**
 * What the ipvs ruleset depends on besides the model: configuration and what the node looked like
 * at the start of the sync.
 *
 * @param scheduler        the IPVS scheduler of every virtual server (rr unless configured)
 * @param masqueradeMark   Go's %#08x of the mark, e.g. 0x00004000
 * @param randomFully      the iptables binary supports MASQUERADE --random-fully
 * @param nodeIP           this family's primary node IP (does a source range cover the node?)
 * @param nodePortIPs      the addresses NodePort virtual servers listen on (upstream's nodeIPs)
 * @param nodeAddresses    the node's addresses outside kube-ipvs0: external and LB IPs among them
 *                         are not bound to kube-ipvs0 (upstream nodeAddressSet)
 */
public record IpvsRulesetOptions(
    IpFamily family,
    String scheduler,
    boolean masqueradeAll,
    String masqueradeMark,
    LocalTrafficDetector localDetector,
    boolean randomFully,
    String nodeIP,
    List<String> nodePortIPs,
    Set<String> nodeAddresses) {

  public IpvsRulesetOptions {
    nodePortIPs = List.copyOf(nodePortIPs);
    nodeAddresses = Set.copyOf(nodeAddresses);
  }
}
