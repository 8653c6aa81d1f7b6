package dev.kubeproxy.explain;

import dev.kubeproxy.net.IpAddresses;
import dev.kubeproxy.model.NamespacedName;
import dev.kubeproxy.model.ServicePort;

/**
 * What /debug/services is asked: which Service (and port), and optionally the packet whose path to trace.
 *
 * @param service    the Service, or null for all
 * @param port       a port name or number, or null for every port
 * @param from       the packet's source IP, or null
 * @param toIp       the packet's destination IP, or null
 * @param toPort     the packet's destination port (with toIp)
 */
public record ServiceQuery(NamespacedName service, String port, String from, String toIp, int toPort) {

  /**
   * Parses the query parameters ({@code service=NS/NAME[:PORT]}, {@code from=IP}, {@code to=IP:PORT},
   * IPv6 as {@code [IP]:PORT}); each may be null.
   *
   * @throws IllegalArgumentException naming the parameter and the form it needs
   */
  public static ServiceQuery parse(String service, String from, String to) {
    NamespacedName name = null;
    String port = null;
    if (service != null && !service.isEmpty()) {
      int slash = service.indexOf('/');
      if (slash <= 0 || slash == service.length() - 1) {
        throw new IllegalArgumentException("service " + quote(service) + " is not NAMESPACE/NAME[:PORT]");
      }
      String rest = service.substring(slash + 1);
      int colon = rest.indexOf(':');
      if (colon >= 0) {
        port = rest.substring(colon + 1);
        rest = rest.substring(0, colon);
        if (port.isEmpty() || rest.isEmpty()) {
          throw new IllegalArgumentException("service " + quote(service) + " is not NAMESPACE/NAME[:PORT]");
        }
      }
      name = new NamespacedName(service.substring(0, slash), rest);
    }
    String src = null;
    if (from != null && !from.isEmpty()) {
      src = IpAddresses.normalize(from);
      if (src == null) {
        throw new IllegalArgumentException("from " + quote(from) + " is not an IP address");
      }
    }
    String dstIp = null;
    int dstPort = 0;
    if (to != null && !to.isEmpty()) {
      int colon = to.lastIndexOf(':');
      String host = colon < 0 ? "" : to.substring(0, colon);
      if (host.startsWith("[") && host.endsWith("]")) {
        host = host.substring(1, host.length() - 1);
      } else if (host.indexOf(':') >= 0) {
        host = ""; // an IPv6 address needs brackets before its port
      }
      dstIp = IpAddresses.normalize(host);
      try {
        dstPort = Integer.parseInt(to.substring(colon + 1));
      } catch (NumberFormatException e) {
        dstPort = -1;
      }
      if (dstIp == null || dstPort < 1 || dstPort > 65535) {
        throw new IllegalArgumentException("to " + quote(to) + " is not IP:PORT (IPv6: [IP]:PORT)");
      }
    }
    if ((src == null) != (dstIp == null)) {
      throw new IllegalArgumentException("from and to go together: the path of a packet depends on both");
    }
    return new ServiceQuery(name, port, src, dstIp, dstPort);
  }

  public boolean tracesPath() {
    return from != null;
  }

  /** Whether this port is asked for (by Service and port name or number). */
  public boolean matches(ServicePort svc) {
    if (service != null && !svc.name().service().equals(service)) {
      return false;
    }
    return port == null || port.equals(svc.name().port()) || port.equals(Integer.toString(svc.port()));
  }

  /** The query in words, for the report's header. */
  public String describe() {
    StringBuilder sb = new StringBuilder(service == null ? "every Service" : service.toString());
    if (port != null) {
      sb.append(" port ").append(port);
    }
    if (from != null) {
      sb.append(", packet from ").append(from).append(" to ")
          .append(toIp.indexOf(':') >= 0 ? "[" + toIp + "]" : toIp).append(':').append(toPort);
    }
    return sb.toString();
  }

  private static String quote(String s) {
    return "\"" + s + "\"";
  }
}
