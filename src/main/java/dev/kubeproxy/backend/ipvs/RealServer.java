package dev.kubeproxy.backend.ipvs;

/**
 * One IPVS real server (destination) of a virtual server, forwarded by NAT (masquerading), with the
 * connection counts the kernel reports (pkg/proxy/ipvs/util/ipvs.go RealServer).
 *
 * @param address      normalised IP text
 * @param activeConn   established connections (0 in what kube-proxy asks for)
 * @param inactiveConn other connections still in the IPVS table
 */
public record RealServer(String address, int port, int weight, int activeConn, int inactiveConn) {

  public static RealServer of(String address, int port, int weight) {
    return new RealServer(address, port, weight, 0, 0);
  }

  /** "ip:port" or "[ip6]:port": identity within its virtual server (upstream RealServer.String). */
  public String key() {
    return VirtualServer.hostPort(address, port);
  }

  public RealServer withWeight(int newWeight) {
    return new RealServer(address, port, newWeight, activeConn, inactiveConn);
  }

  @Override
  public String toString() {
    return key();
  }
}
