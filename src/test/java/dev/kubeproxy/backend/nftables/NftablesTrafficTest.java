package dev.kubeproxy.backend.nftables;

import static dev.kubeproxy.backend.nftables.Fixtures.*;
import static dev.kubeproxy.testutil.ModelFixtures.*;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.kubeproxy.host.CommandRunner;
import dev.kubeproxy.host.ProcessCommandRunner;
import dev.kubeproxy.net.IpFamily;
import dev.kubeproxy.model.ServicePortName;
import dev.kubeproxy.testutil.CountingMetrics;
import dev.kubeproxy.testutil.tier.Kernel;
import java.io.File;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Real packets through this backend's layout (one dnat map per service, hairpin set): a "node"
 * namespace routes between two "pod" namespaces; each pod runs a tiny TCP server that answers with
 * the source address it saw. Everything lives in namespaces this test creates; no link to the
 * root namespace. Skipped when not root or when ip, nft or python3 are missing.
 */
@Kernel
class NftablesTrafficTest {
  private static final String PY = new File("/usr/bin/python3").canExecute() ? "/usr/bin/python3" : "python3";
  private static final String SERVER = "import socket\n"
      + "s=socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind(('0.0.0.0', 8080)); s.listen(16)\n"
      + "s.settimeout(60)\n"
      + "for _ in range(50):\n"
      + "  c,a=s.accept(); c.sendall((NAME+' '+a[0]+'\\n').encode()); c.close()\n";
  private static final String CLIENT = "import socket,sys\n"
      + "c=socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=3)\n"
      + "print(c.recv(100).decode().strip())\n";

  private final String id = UUID.randomUUID().toString().substring(0, 6);
  private final String node = "kp-nft-n" + id;
  private final String podA = "kp-nft-a" + id;
  private final String podB = "kp-nft-b" + id;
  private final List<Process> servers = new ArrayList<>();
  private final CommandRunner root = new ProcessCommandRunner();

  @BeforeEach
  void topology() throws Exception {
    assumeTrue("root".equals(System.getProperty("user.name")), "needs root to create network namespaces");
    assumeTrue(ok("ip", "-V") && ok("nft", "--version") && ok(PY, "-c", "pass"), "needs ip, nft and python3");
    for (String ns : List.of(node, podA, podB)) {
      sh("ip netns add " + ns);
    }
    sh("ip netns exec " + node + " sysctl -qw net.ipv4.ip_forward=1");
    pod(podA, "a", "10.244.1");
    pod(podB, "b", "10.244.2");
    // Like a node's default route: service addresses that are not DNAT-ed get routed (towards pod A).
    sh("ip -n " + node + " route add 10.96.0.0/16 dev kpna" + id);
    startServer(podA, "pod-a");
    startServer(podB, "pod-b");
  }

  private void pod(String ns, String tag, String net) throws Exception {
    sh("ip link add kpn" + tag + id + " netns " + node + " type veth peer name eth0 netns " + ns);
    sh("ip -n " + node + " addr add " + net + ".1/24 dev kpn" + tag + id);
    sh("ip -n " + node + " link set kpn" + tag + id + " up");
    sh("ip -n " + ns + " addr add " + net + (tag.equals("a") ? ".5" : ".7") + "/24 dev eth0");
    sh("ip -n " + ns + " link set eth0 up");
    sh("ip -n " + ns + " link set lo up");
    sh("ip -n " + ns + " route add default via " + net + ".1");
  }

  private void startServer(String ns, String name) throws Exception {
    Process p = new ProcessBuilder("ip", "netns", "exec", ns, PY, "-c", "NAME='" + name + "'\n" + SERVER)
        .redirectErrorStream(true).start();
    servers.add(p);
    for (int i = 0; i < 50; i++) {
      if (root.run(List.of("ip", "netns", "exec", ns, "ss", "-ltn")).stdout().contains(":8080")) {
        return;
      }
      Thread.sleep(100);
    }
    throw new IllegalStateException("server in " + ns + " did not start");
  }

  @AfterEach
  void teardown() throws Exception {
    for (Process p : servers) {
      p.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
    }
    for (String ns : List.of(node, podA, podB)) {
      root.run(List.of("ip", "netns", "del", ns));
    }
  }

  private boolean ok(String... argv) {
    try {
      return root.run(List.of(argv)).ok();
    } catch (Exception e) {
      return false;
    }
  }

  private void sh(String cmd) throws Exception {
    CommandRunner.Result r = root.run(List.of("sh", "-c", cmd));
    if (!r.ok()) {
      throw new IllegalStateException(cmd + ": " + r.stderr());
    }
  }

  private String connect(String fromNs, String ip, int port) throws Exception {
    CommandRunner.Result r = root.run(List.of("ip", "netns", "exec", fromNs, PY, "-c", CLIENT, ip, Integer.toString(port)));
    return r.ok() ? r.stdout().strip() : "failed: " + r.stderr().lines().reduce((a, b) -> b).orElse("");
  }

  @Test
  void clusterIpReachesEndpointsAndHairpinIsMasqueraded() throws Exception {
    CommandRunner inNode = CommandRunner.inNetns(node);
    NftablesProxier p = new NftablesProxier(settings(IpFamily.IPv4), inNode, new NftCommand(IpFamily.IPv4, inNode),
        new CountingMetrics(), new TestClock(), List::of);
    ServicePortName web = spn("demo", "web", "http");
    Model m = new Model().put(svc(web, "10.96.0.10", 80), ready("10.244.1.5", 8080, true));
    p.sync(m.state());
    assertFalse(inNode.run(List.of("nft", "list", "chain", "ip", "kube-proxy", ChainNames.serviceChain(web))).ok(),
        "one endpoint, cluster IP only: no chain, an element of single-endpoint-services");
    // Pod B to the service: DNAT to pod A, source kept (pod traffic is not masqueraded).
    assertEquals("pod-a 10.244.2.7", connect(podB, "10.96.0.10", 80));
    // Pod A to its own service: hairpin, so it must arrive masqueraded (node address).
    assertEquals("pod-a 10.244.1.1", connect(podA, "10.96.0.10", 80));
    // Undefined port of a cluster IP: rejected.
    String refused = connect(podB, "10.96.0.10", 81);
    assertTrue(refused.startsWith("failed: ConnectionRefusedError"), refused);

    // Two endpoints through the numgen dnat map: both answer within a bounded number of tries.
    m.endpoints(web, ready("10.244.1.5", 8080, true), ready("10.244.2.7", 8080, true));
    // A service sorted first takes the first block of the endpoint map, so web's keys start at 2^25.
    m.put(svc(spn("demo", "aaa", "x"), "10.96.0.9", 80), ready("10.244.1.5", 8080, true), ready("10.244.2.7", 8080, true));
    p.sync(m.state());
    assertTrue(inNode.run(List.of("nft", "list", "chain", "ip", "kube-proxy", ChainNames.serviceChain(web)))
        .stdout().contains("numgen random mod 24504480 offset 33554432 map @endpoint-ranges-tcp-0"));
    java.util.Set<String> seen = new java.util.TreeSet<>();
    for (int i = 0; i < 30 && seen.size() < 2; i++) {
      seen.add(connect(podB, "10.96.0.10", 80));
    }
    assertEquals(java.util.Set.of("pod-a 10.244.2.7", "pod-b 10.244.2.1"), seen,
        "pod B reaching itself is hairpin-masqueraded; pod A is reached with B's address");

    // No endpoints: rejected.
    m.endpoints(web);
    p.sync(m.state());
    refused = connect(podB, "10.96.0.10", 80);
    assertTrue(refused.startsWith("failed: ConnectionRefusedError"), refused);
  }

  /**
   * kubernetes#131765, fixed by #132456 (v1.34): a process on the node reaching the external IP of
   * an externalTrafficPolicy: Local service with no endpoint on this node is short-circuited to the
   * cluster endpoints by the nat chains; the no-endpoint check runs at filter priority 0, after
   * that DNAT, so it no longer drops this traffic. Traffic from outside is still dropped.
   */
  @Test
  void localTrafficToAnExternalIpWithoutLocalEndpointsIsShortCircuited() throws Exception {
    CommandRunner inNode = CommandRunner.inNetns(node);
    NftablesProxier p = new NftablesProxier(settings(IpFamily.IPv4), inNode, new NftCommand(IpFamily.IPv4, inNode),
        new CountingMetrics(), new TestClock(), List::of);
    ServicePortName web = spn("demo", "web", "http");
    // The external IP is routed towards pod A's link only so that the node picks a source address.
    sh("ip -n " + node + " route add 192.0.2.0/24 dev kpna" + id);
    Model m = new Model().put(svc(web, "10.96.0.10", 80).externalIPs("192.0.2.50").etpLocal(),
        ready("10.244.1.5", 8080, false));
    p.sync(m.state());
    assertTrue(inNode.run(List.of("nft", "list", "map", "ip", "kube-proxy", "no-endpoint-services"))
        .stdout().contains("192.0.2.50 . tcp . 80"), "external traffic without local endpoints is dropped");
    String fromNode = connect(node, "192.0.2.50", 80);
    assertTrue(fromNode.startsWith("pod-a "), "the node's own traffic reaches the remote endpoint: " + fromNode);
  }
}
