package dev.kubeproxy.backend.ipvs;

import java.io.IOException;
import java.time.Duration;
import java.util.List;

/**
 * The kernel's IPVS table (pkg/proxy/ipvs/util/ipvs.go Interface): virtual servers and their real
 * servers. {@link NetlinkIpvs} talks to the kernel; tests use an in-memory table.
 */
public interface Ipvs {
  /** Every virtual server of the table (both families). */
  List<VirtualServer> virtualServers() throws IOException;

  void addVirtualServer(VirtualServer vs) throws IOException;

  /** Changes scheduler, flags and timeout of an existing virtual server (same address, protocol, port). */
  void updateVirtualServer(VirtualServer vs) throws IOException;

  void deleteVirtualServer(VirtualServer vs) throws IOException;

  List<RealServer> realServers(VirtualServer vs) throws IOException;

  void addRealServer(VirtualServer vs, RealServer rs) throws IOException;

  void updateRealServer(VirtualServer vs, RealServer rs) throws IOException;

  void deleteRealServer(VirtualServer vs, RealServer rs) throws IOException;

  /** Removes every virtual server ("ipvsadm -C"). */
  void flush() throws IOException;

  /** "ipvsadm --set": a zero duration keeps the kernel's current value. */
  void configureTimeouts(Duration tcp, Duration tcpFin, Duration udp) throws IOException;
}
