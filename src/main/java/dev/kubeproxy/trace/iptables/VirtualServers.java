package dev.kubeproxy.trace.iptables;

import java.util.List;

/**
 * IPVS as the tracer sees it: the virtual servers it intercepts at LOCAL_IN and LOCAL_OUT
 * (net/netfilter/ipvs/ip_vs_core.c ip_vs_remote_request, ip_vs_local_request) and the real servers a new
 * connection can be scheduled to.
 */
public interface VirtualServers {

  /**
   * The real servers ("ip:port", "[ip6]:port") a new connection to this address, protocol ("tcp", "udp", "sctp")
   * and port can go to (those of weight above 0), an empty list for a virtual server with none, or null when
   * there is no such virtual server.
   */
  List<String> destinations(String address, String protocol, int port);

  /** No IPVS: iptables modes. */
  static VirtualServers none() {
    return (address, protocol, port) -> null;
  }
}
