package dev.kubeproxy.proxy;

import java.util.Set;

/**
 * One endpoint of a Service port (service-model.md §4.6).
 *
 * @param ip          the endpoint's address (addresses[0] of the slice endpoint), normalised text
 * @param port        the slice port number
 * @param local       its nodeName is this node
 * @param zoneHints   hints.forZones names, or null when there are none
 */
public record Endpoint(
    String ip, int port, boolean local, boolean ready, boolean serving, boolean terminating,
    Set<String> zoneHints) {

  /** The identity string "ip:port" or "[ip]:port", which is also the sort order. */
  public String endpoint() {
    return ip.indexOf(':') >= 0 ? "[" + ip + "]:" + port : ip + ":" + port;
  }

  @Override
  public String toString() {
    return endpoint();
  }
}
