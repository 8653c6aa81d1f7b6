package dev.kubeproxy.backend.ipvs;

/**
 * One IPVS virtual server as kube-proxy programs it (pkg/proxy/ipvs/util/ipvs.go VirtualServer):
 * address, protocol and port identify it; scheduler, flags and persistence timeout configure it.
 *
 * @param address   normalised IP text
 * @param protocol  TCP, UDP or SCTP
 * @param flags     IP_VS_SVC_F_* without the kernel's own "hashed" flag ({@link #FLAG_PERSISTENT}, …)
 * @param timeout   persistence timeout in seconds (session affinity), 0 without
 */
public record VirtualServer(String address, String protocol, int port, String scheduler, int flags, int timeout) {
  /** Session affinity: one client IP keeps its real server for the timeout. */
  public static final int FLAG_PERSISTENT = 0x1;
  /** Set by the kernel on every service in its table; never part of what kube-proxy asks. */
  public static final int FLAG_HASHED = 0x2;
  /** IP_VS_SVC_F_SCHED2: the "mh" scheduler hashes the source port too (upstream FlagSourceHash). */
  public static final int FLAG_SOURCE_HASH = 0x10;

  /** upstream VirtualServer.String: "ip:port/TCP", "[ip6]:port/UDP"; the identity of the service. */
  public String key() {
    return hostPort(address, port) + "/" + protocol;
  }

  /** Whether the kernel's service already has this configuration (upstream VirtualServer.Equal). */
  public boolean sameAs(VirtualServer other) {
    return equals(other);
  }

  static String hostPort(String ip, int port) {
    return ip.indexOf(':') >= 0 ? "[" + ip + "]:" + port : ip + ":" + port;
  }

  @Override
  public String toString() {
    return key();
  }
}
