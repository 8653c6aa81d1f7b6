package dev.kubeproxy.model;

/**
 * Key of one Service port (pkg/proxy/types.go ServicePortName). The string form is "ns/name" or "ns/name:port"
 * and leaves the protocol out; the protocol is still part of equality.
 *
 * @param protocol upper case as in the API: TCP, UDP or SCTP
 */
public record ServicePortName(NamespacedName service, String port, String protocol)
    implements Comparable<ServicePortName> {

  @Override
  public String toString() {
    return port == null || port.isEmpty() ? service.toString() : service + ":" + port;
  }

  /** Hand-written (same contract as the record's): the model hashes these keys a lot. */
  @Override
  public int hashCode() {
    return (31 * service.hashCode() + java.util.Objects.hashCode(port)) * 31 + java.util.Objects.hashCode(protocol);
  }

  @Override
  public boolean equals(Object o) {
    return o == this || o instanceof ServicePortName n && java.util.Objects.equals(service, n.service)
        && java.util.Objects.equals(port, n.port) && java.util.Objects.equals(protocol, n.protocol);
  }

  @Override
  public int compareTo(ServicePortName o) {
    int c = toString().compareTo(o.toString());
    return c != 0 ? c : protocol.compareTo(o.protocol);
  }
}
