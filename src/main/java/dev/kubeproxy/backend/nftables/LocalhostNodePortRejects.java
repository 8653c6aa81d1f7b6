package dev.kubeproxy.backend.nftables;

import java.util.List;
import java.util.Locale;

/**
 * What the table does with traffic to localhost NodePorts (pkg/proxy/nftables/proxier.go
 * localhostNodePortRejectProtocols, feature gate KubeProxyNFTablesLocalhostNodePorts): with the
 * gate off nothing (loopback destinations are simply never DNATed); with it on, the NodePorts of the
 * protocols nothing serves on localhost are rejected, each protocol through a chain that counts into a
 * named counter. With the userspace proxy running those are UDP and SCTP, which it cannot serve;
 * without it (nodePortAddresses names no loopback CIDR) every protocol is.
 *
 * @param enabled the feature gate is on
 * @param proxied the userspace proxy serves TCP NodePorts on localhost
 */
record LocalhostNodePortRejects(boolean enabled, boolean proxied) {
  static final LocalhostNodePortRejects OFF = new LocalhostNodePortRejects(false, false);

  /** The verdict map: "protocol . port" of rejected localhost NodePorts to their protocol's chain. */
  static final String MAP = "localhost-nodeport-reject-ports";
  static final String MAP_COMMENT = "localhost NodePorts rejected by kube-proxy";
  /** Every protocol that can be rejected, in upstream's order (metrics.LocalhostNodePortRejectableProtocols). */
  static final List<String> REJECTABLE = List.of("TCP", "UDP", "SCTP");
  private static final List<String> UNSERVABLE = List.of("UDP", "SCTP");

  /** The protocols whose localhost NodePorts are rejected and counted now; empty with the gate off. */
  List<String> protocols() {
    return !enabled ? List.of() : proxied ? UNSERVABLE : REJECTABLE;
  }

  boolean rejects(String protocol) {
    return protocols().contains(protocol);
  }

  /** "localhost-nodeport-reject-udp": counts into the protocol's counter, then rejects. */
  static String chain(String protocol) {
    return "localhost-nodeport-reject-" + protocol.toLowerCase(Locale.ROOT);
  }

  /** "localhost-nodeport-rejected-udp": the named counter the metric reads. */
  static String counter(String protocol) {
    return "localhost-nodeport-rejected-" + protocol.toLowerCase(Locale.ROOT);
  }
}
