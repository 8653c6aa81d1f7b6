package dev.kubeproxy.backend.ipvs;

import dev.kubeproxy.host.CommandRunner;
import dev.kubeproxy.host.ProcessCommandRunner;
import dev.kubeproxy.net.IpFamily;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Runs inside the guest (IpvsPrimitivesGuestIT): drives the IPVS client, the dummy interface, the
 * ipset tool and the graceful-termination manager against a kernel with IP_VS, and prints what
 * the kernel then holds (ipvsadm, ip, ipset and the client's own reading) in "== section" blocks.
 */
public final class IpvsPrimitivesGuestMain {
  private static final CommandRunner RUN = new ProcessCommandRunner();

  public static void main(String[] args) throws Exception {
    // The kernel refuses an IPv4 real server it has no route to: a namespace "rs" holds 10.0.0.2.
    sh("ip netns add rs; ip link add veth-rs type veth peer name eth0 netns rs;"
        + " ip addr add 10.0.0.1/24 dev veth-rs; ip link set veth-rs up;"
        + " ip -n rs addr add 10.0.0.2/24 dev eth0; ip -n rs link set eth0 up; ip -n rs link set lo up;"
        + " ip -n rs route add default via 10.0.0.1; sysctl -qw net.ipv4.vs.conntrack=1");
    try (NetlinkIpvs ipvs = NetlinkIpvs.open(null)) {
      VirtualServer web = new VirtualServer("10.96.0.10", "TCP", 80, "rr", 0, 0);
      VirtualServer dns6 = new VirtualServer("fd00::10", "UDP", 53, "wrr", VirtualServer.FLAG_PERSISTENT, 10800);
      ipvs.addVirtualServer(web);
      ipvs.addVirtualServer(dns6);
      ipvs.addRealServer(web, RealServer.of("10.0.0.2", 8080, 1));
      ipvs.addRealServer(web, RealServer.of("10.0.0.3", 8080, 1));
      ipvs.addRealServer(dns6, RealServer.of("fd00:1::2", 5353, 1));
      section("after add", ipvsadm("-Ln"));

      ipvs.updateVirtualServer(new VirtualServer("10.96.0.10", "TCP", 80, "mh", VirtualServer.FLAG_SOURCE_HASH, 0));
      ipvs.updateRealServer(web, RealServer.of("10.0.0.3", 8080, 5));
      ipvs.deleteRealServer(web, RealServer.of("10.0.0.2", 8080, 0));
      ipvs.configureTimeouts(Duration.ofSeconds(900), Duration.ofSeconds(120), Duration.ofSeconds(300));
      section("after update", ipvsadm("-Ln") + ipvsadm("-L", "--timeout"));
      section("client reading", clientReading(ipvs));

      ipvs.deleteVirtualServer(dns6);
      section("after delete", ipvsadm("-Ln"));
      ipvs.flush();
      section("after flush", ipvsadm("-Ln"));

      DummyInterface dummy = new DummyInterface(RUN);
      dummy.ensure();
      dummy.ensure(); // a second time: no error
      dummy.bind("10.96.0.10");
      dummy.bind("10.96.0.10"); // already bound: no error
      dummy.bind("fd00::10");
      section("dummy bound", String.join("\n", new java.util.TreeSet<>(dummy.boundAddresses())) + "\n"
          + "other addresses hold 10.96.0.10: " + dummy.otherLocalAddresses().contains("10.96.0.10") + "\n");
      dummy.unbind("10.96.0.10");
      section("dummy after unbind", String.join("\n", dummy.boundAddresses()) + "\n");

      IpSetTool ipset = new IpSetTool(RUN);
      StringBuilder in = new StringBuilder();
      for (IpFamily f : IpFamily.values()) {
        for (IpSet s : IpSets.all(f)) {
          in.append(s.createLine()).append('\n');
        }
      }
      in.append("add KUBE-CLUSTER-IP 10.96.0.10,tcp:80\n");
      in.append("add KUBE-LOOP-BACK 10.0.0.2,tcp:8080,10.0.0.2\n");
      in.append("add KUBE-NODE-PORT-TCP 30080\n");
      in.append("add KUBE-LOAD-BALANCER-SOURCE-CIDR 192.0.2.1,tcp:80,10.0.0.0/8\n");
      in.append("add KUBE-6-CLUSTER-IP fd00::10,udp:53\n");
      in.append("add KUBE-IPVS-IPS 10.96.0.10\n");
      ipset.restore(in.toString());
      ipset.restore(in.toString()); // again: -exist makes it idempotent
      ipset.restore("del KUBE-NODE-PORT-TCP 30080\n");
      section("ipset version", ipset.version() + " at least 6.0: " + IpSetTool.atLeastMinimum(ipset.version()) + "\n");
      section("ipsets", sets(ipset.entries("KUBE-")));
      for (IpFamily f : IpFamily.values()) {
        for (IpSet s : IpSets.all(f)) {
          ipset.destroy(s.name());
        }
      }
      ipset.destroy("KUBE-CLUSTER-IP"); // already gone: no error
      section("ipsets after destroy", sets(ipset.entries("KUBE-")));

      gracefulTermination(ipvs, dummy);
      dummy.delete();
      section("dummy deleted", "exists: " + dummy.exists() + "\n");
    }
  }

  /**
   * A TCP real server with an open connection drains at weight 0 and stays until the connection is
   * gone; one without connections, and a UDP one, go at once.
   */
  private static void gracefulTermination(NetlinkIpvs ipvs, DummyInterface dummy) throws Exception {
    Process server = new ProcessBuilder("ip", "netns", "exec", "rs", "busybox", "nc", "-l", "-p", "8080").start();
    VirtualServer tcp = new VirtualServer("10.96.0.20", "TCP", 80, "rr", 0, 0);
    VirtualServer udp = new VirtualServer("10.96.0.20", "UDP", 53, "rr", 0, 0);
    dummy.bind("10.96.0.20");
    ipvs.addVirtualServer(tcp);
    ipvs.addVirtualServer(udp);
    ipvs.addRealServer(tcp, RealServer.of("10.0.0.2", 8080, 1));
    ipvs.addRealServer(udp, RealServer.of("10.0.0.2", 5353, 1));
    Process client = null;
    int active = 0;
    for (int attempt = 0; attempt < 50 && active == 0; attempt++) {
      if (client == null || !client.isAlive()) {
        Thread.sleep(200); // the server may not listen yet: connect again
        client = new ProcessBuilder("sh", "-c", "sleep 120 | busybox nc 10.96.0.20 80").start();
      }
      Thread.sleep(200);
      active = ipvs.realServers(tcp).get(0).activeConn();
    }
    // Added after the connection: it has none.
    ipvs.addRealServer(tcp, RealServer.of("10.0.0.3", 8080, 1));
    GracefulTermination manager = new GracefulTermination(ipvs);
    manager.gracefulDelete(tcp, RealServer.of("10.0.0.2", 8080, 1));
    manager.gracefulDelete(tcp, RealServer.of("10.0.0.3", 8080, 1));
    manager.gracefulDelete(udp, RealServer.of("10.0.0.2", 5353, 1));
    manager.retry(); // the connection is still open: it stays
    section("draining", "active connections before: " + active + "\n" + ipvsadm("-Ln", "-t", "10.96.0.20:80")
        + ipvsadm("-Ln", "-u", "10.96.0.20:53") + "waiting: " + manager.waiting() + "\n");
    manager.moveOutOfList(GracefulTermination.uniqueName(tcp, RealServer.of("10.0.0.2", 8080, 1)));
    section("moved out", ipvsadm("-Ln", "-t", "10.96.0.20:80") + "waiting: " + manager.waiting() + "\n");
    client.destroyForcibly();
    server.destroyForcibly();
    ipvs.flush();
    dummy.unbind("10.96.0.20");
    sh("ip netns del rs");
  }

  private static String clientReading(NetlinkIpvs ipvs) throws Exception {
    StringBuilder out = new StringBuilder();
    Map<String, VirtualServer> byKey = new TreeMap<>();
    for (VirtualServer vs : ipvs.virtualServers()) {
      byKey.put(vs.key(), vs);
    }
    for (VirtualServer vs : byKey.values()) {
      out.append(vs.key()).append(' ').append(vs.scheduler()).append(" flags=").append(vs.flags())
          .append(" timeout=").append(vs.timeout()).append('\n');
      List<String> rss = new ArrayList<>();
      for (RealServer rs : ipvs.realServers(vs)) {
        rss.add("  -> " + rs.key() + " weight=" + rs.weight() + " active=" + rs.activeConn()
            + " inactive=" + rs.inactiveConn());
      }
      rss.sort(null);
      rss.forEach(l -> out.append(l).append('\n'));
    }
    return out.toString();
  }

  private static String sets(Map<String, Set<String>> sets) {
    StringBuilder out = new StringBuilder();
    new TreeMap<>(sets).forEach((name, entries) -> {
      List<String> sorted = new ArrayList<>(entries);
      sorted.sort(null);
      out.append(name).append(": ").append(String.join(" ", sorted)).append('\n');
    });
    return out.toString();
  }

  private static String ipvsadm(String... args) throws Exception {
    List<String> argv = new ArrayList<>(List.of("ipvsadm"));
    argv.addAll(List.of(args));
    CommandRunner.Result r = RUN.run(argv);
    return r.stdout() + r.stderr();
  }

  private static void sh(String script) throws Exception {
    CommandRunner.Result r = RUN.run(List.of("sh", "-c", script));
    if (!r.ok()) {
      throw new IllegalStateException(script + ": " + r.stderr());
    }
  }

  private static void section(String name, String body) {
    System.out.print("== " + name + "\n" + body);
    System.out.flush();
  }
}
