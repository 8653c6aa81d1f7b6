package dev.kubeproxy.backend.ipvs;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** An in-memory IPVS table with the kernel's refusals (exists, not found), for tests. */
final class FakeIpvs implements Ipvs {
  final Map<String, VirtualServer> services = new LinkedHashMap<>();
  final Map<String, Map<String, RealServer>> dests = new LinkedHashMap<>();
  final List<String> calls = new ArrayList<>();

  @Override
  public List<VirtualServer> virtualServers() {
    return new ArrayList<>(services.values());
  }

  @Override
  public void addVirtualServer(VirtualServer vs) throws IOException {
    if (services.putIfAbsent(vs.key(), vs) != null) {
      throw new IOException("exists: " + vs);
    }
    dests.put(vs.key(), new LinkedHashMap<>());
    calls.add("add " + vs);
  }

  @Override
  public void updateVirtualServer(VirtualServer vs) throws IOException {
    require(vs);
    services.put(vs.key(), vs);
    calls.add("update " + vs);
  }

  @Override
  public void deleteVirtualServer(VirtualServer vs) throws IOException {
    require(vs);
    services.remove(vs.key());
    dests.remove(vs.key());
    calls.add("delete " + vs);
  }

  @Override
  public List<RealServer> realServers(VirtualServer vs) throws IOException {
    require(vs);
    return new ArrayList<>(dests.get(vs.key()).values());
  }

  @Override
  public void addRealServer(VirtualServer vs, RealServer rs) throws IOException {
    require(vs);
    if (dests.get(vs.key()).putIfAbsent(rs.key(), RealServer.of(rs.address(), rs.port(), rs.weight())) != null) {
      throw new IOException("exists: " + rs);
    }
    calls.add("add " + vs + " " + rs + " weight " + rs.weight());
  }

  @Override
  public void updateRealServer(VirtualServer vs, RealServer rs) throws IOException {
    require(vs);
    RealServer old = dests.get(vs.key()).get(rs.key());
    if (old == null) {
      throw new IOException("no such destination: " + rs);
    }
    dests.get(vs.key()).put(rs.key(), old.withWeight(rs.weight()));
    calls.add("update " + vs + " " + rs + " weight " + rs.weight());
  }

  @Override
  public void deleteRealServer(VirtualServer vs, RealServer rs) throws IOException {
    require(vs);
    if (dests.get(vs.key()).remove(rs.key()) == null) {
      throw new IOException("no such destination: " + rs);
    }
    calls.add("delete " + vs + " " + rs);
  }

  /** The kernel's connection counts of a destination. */
  void connections(VirtualServer vs, String rsKey, int active, int inactive) {
    RealServer old = dests.get(vs.key()).get(rsKey);
    dests.get(vs.key()).put(rsKey, new RealServer(old.address(), old.port(), old.weight(), active, inactive));
  }

  @Override
  public void flush() {
    services.clear();
    dests.clear();
  }

  @Override
  public void configureTimeouts(Duration tcp, Duration tcpFin, Duration udp) {
    calls.add("timeouts " + tcp + " " + tcpFin + " " + udp);
  }

  private void require(VirtualServer vs) throws IOException {
    if (!services.containsKey(vs.key())) {
      throw new IOException("no such service: " + vs);
    }
  }
}
