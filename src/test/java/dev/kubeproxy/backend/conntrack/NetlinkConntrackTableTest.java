package dev.kubeproxy.backend.conntrack;

import dev.kubeproxy.config.ProxyMode;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.kubeproxy.metrics.ProxyMetrics;
import dev.kubeproxy.host.CommandRunner;
import dev.kubeproxy.host.ProcessCommandRunner;
import dev.kubeproxy.net.IpFamily;
import dev.kubeproxy.model.NamespacedName;
import dev.kubeproxy.model.ServicePort;
import dev.kubeproxy.model.ServicePortName;
import dev.kubeproxy.testutil.tier.Kernel;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The conntrack table over netlink in a network namespace this test creates: entries made with
 * `conntrack -I` there (UDP, SCTP, IPv6, a zone) are listed with both tuples, deleted by the
 * reconciler (only the stale ones) and checked with `conntrack -L`. Needs root and conntrack.
 */
@Kernel
class NetlinkConntrackTableTest {
  private final CommandRunner host = new ProcessCommandRunner();
  private final String ns = "kp-ct-" + UUID.randomUUID().toString().substring(0, 8);
  private CommandRunner inNs;
  private boolean created;

  @BeforeEach
  void namespace() throws IOException {
    assumeTrue("root".equals(System.getProperty("user.name")), "needs root to create network namespaces");
    assumeTrue(host.run(List.of("conntrack", "--version")).ok(), "the conntrack tool (test only) is not installed");
    CommandRunner.Result r = host.run(List.of("ip", "netns", "add", ns));
    assumeTrue(r.ok(), "cannot create a network namespace: " + r.stderr());
    created = true;
    inNs = CommandRunner.inNetns(ns);
  }

  @AfterEach
  void cleanup() throws IOException {
    if (created) {
      host.run(List.of("ip", "netns", "delete", ns));
    }
  }

  /** An entry from client:sport to dst:dport, DNAT-ed to replySrc:replyPort (the conntrack tool's words). */
  private void insert(String proto, String client, int sport, String dst, int dport, String replySrc, int replyPort,
      String... extra) throws IOException {
    List<String> argv = new ArrayList<>(List.of("conntrack", "-I", "-p", proto, "-s", client, "-d", dst,
        "--sport", String.valueOf(sport), "--dport", String.valueOf(dport), "--reply-src", replySrc,
        "--reply-dst", client, "--reply-port-src", String.valueOf(replyPort), "--reply-port-dst",
        String.valueOf(sport), "-t", "300"));
    argv.addAll(List.of(extra));
    CommandRunner.Result r = inNs.run(argv);
    assertTrue(r.ok(), String.join(" ", argv) + ": " + r.stderr());
  }

  private String listed(String family) throws IOException {
    return inNs.run(List.of("conntrack", "-L", "-f", family)).stdout();
  }

  @Test
  void listsBothTuplesAndDeletesOnlyWhatItIsGiven() throws Exception {
    insert("udp", "10.244.9.9", 40000, "10.96.0.10", 53, "10.244.1.5", 5353);
    insert("udp", "10.244.9.9", 40001, "10.96.0.10", 53, "10.244.1.7", 5353, "-w", "7");
    insert("sctp", "10.244.9.9", 40002, "10.96.0.30", 9000, "10.244.1.7", 9000, "--orig-vtag", "1",
        "--reply-vtag", "2", "--state", "ESTABLISHED");
    insert("udp", "fd00:10:244::9", 40003, "fd00:10:96::a", 53, "fd00:10:244::7", 53);
    try (NetlinkConntrackTable table = NetlinkConntrackTable.open(ns)) {
      List<ConntrackFlow> v4 = table.list(IpFamily.IPv4);
      assertEquals(3, v4.size(), v4.toString());
      ConntrackFlow zoned = v4.stream().filter(f -> f.origSrcPort() == 40001).findFirst().orElseThrow();
      assertEquals(new ConntrackFlow(ConntrackFlow.UDP, "10.244.9.9", 40001, "10.96.0.10", 53, "10.244.1.7", 5353,
          "10.244.9.9", 40001, 7, zoned.id()), zoned);
      assertTrue(v4.stream().anyMatch(f -> f.protocol() == ConntrackFlow.SCTP && f.origDstPort() == 9000));
      List<ConntrackFlow> v6 = table.list(IpFamily.IPv6);
      assertEquals(List.of("fd00:10:96::a/fd00:10:244::7"),
          v6.stream().map(f -> f.origDst() + "/" + f.replySrc()).toList());

      assertEquals(1, table.delete(IpFamily.IPv4, List.of(zoned)));
      assertEquals(0, table.delete(IpFamily.IPv4, List.of(zoned)), "gone already: not an error, not counted");
      String left = listed("ipv4");
      assertFalse(left.contains("sport=40001"), left);
      assertTrue(left.contains("sport=40000") && left.contains("sport=40002"), "the others stay: " + left);
      assertTrue(listed("ipv6").contains("sport=40003"));
    }
  }

  @Test
  void theReconcilerRemovesStaleUdpAndSctpFlowsOnly() throws Exception {
    ServicePortName dns = new ServicePortName(new NamespacedName("kube-system", "dns"), "dns", "UDP");
    ServicePortName sig = new ServicePortName(new NamespacedName("demo", "sig"), "sig", "SCTP");
    ServicePortName web = new ServicePortName(new NamespacedName("demo", "web"), "http", "TCP");
    insert("udp", "10.244.9.9", 40000, "10.96.0.10", 53, "10.244.1.5", 5353); // to a serving endpoint
    insert("udp", "10.244.9.9", 40001, "10.96.0.10", 53, "10.244.1.7", 5353); // to a removed endpoint
    insert("udp", "10.244.9.9", 40004, "192.168.200.10", 30053, "10.244.1.7", 5353); // NodePort, removed endpoint
    insert("sctp", "10.244.9.9", 40002, "10.96.0.30", 9000, "10.244.1.7", 9000, "--orig-vtag", "1",
        "--reply-vtag", "2", "--state", "ESTABLISHED");
    insert("tcp", "10.244.9.9", 40005, "10.96.0.20", 80, "10.244.1.7", 8080, "--state", "ESTABLISHED");
    Map<ServicePortName, ServicePort> services = Map.of(
        dns, new ServicePort(dns, "10.96.0.10", 53, "UDP", 30053, List.of(), List.of(), List.of(), false, 0, false,
            false, 0, ""),
        sig, new ServicePort(sig, "10.96.0.30", 9000, "SCTP", 0, List.of(), List.of(), List.of(), false, 0, false,
            false, 0, ""),
        web, new ServicePort(web, "10.96.0.20", 80, "TCP", 0, List.of(), List.of(), List.of(), false, 0, false,
            false, 0, ""));
    var endpoints = Map.of(dns, List.of(new dev.kubeproxy.model.Endpoint("10.244.1.5", 5353, false, true, true, false,
        null)));
    ProxyMetrics metrics = new ProxyMetrics().registerFor(ProxyMode.IPTABLES);
    try (NetlinkConntrackTable table = NetlinkConntrackTable.open(ns)) {
      ConntrackReconciler reconciler = new ConntrackReconciler(table, metrics);
      assertEquals(3, reconciler.reconcile(IpFamily.IPv4, services, endpoints, List.of()));
      String left = listed("ipv4");
      assertTrue(left.contains("sport=40000"), "the flow to the serving endpoint stays: " + left);
      assertTrue(left.contains("sport=40005"), "TCP is left alone: " + left);
      for (String gone : List.of("sport=40001", "sport=40002", "sport=40004")) {
        assertFalse(left.contains(gone), gone + " is stale and must be gone: " + left);
      }
      assertEquals(0, reconciler.reconcile(IpFamily.IPv4, services, endpoints, List.of()));
    }
    assertTrue(metrics.registry().scrape()
        .contains("kubeproxy_conntrack_reconciler_deleted_entries_total{ip_family=\"IPv4\"} 3\n"));
  }

  @Test
  void manyDeletionsSpanSeveralDatagrams() throws Exception {
    int n = NetlinkConntrackTable.DELETES_PER_DATAGRAM * 2 + 5;
    StringBuilder script = new StringBuilder();
    for (int i = 0; i < n; i++) {
      script.append("conntrack -I -p udp -s 10.244.9.9 -d 10.96.0.10 --sport ").append(41000 + i)
          .append(" --dport 53 --reply-src 10.244.1.7 --reply-dst 10.244.9.9 --reply-port-src 53 --reply-port-dst ")
          .append(41000 + i).append(" -t 300 2>/dev/null\n");
    }
    assertTrue(inNs.run(List.of("sh", "-c", script.toString())).ok());
    try (NetlinkConntrackTable table = NetlinkConntrackTable.open(ns)) {
      List<ConntrackFlow> all = table.list(IpFamily.IPv4);
      assertEquals(n, all.size());
      assertEquals(n, table.delete(IpFamily.IPv4, all));
      assertEquals(List.of(), table.list(IpFamily.IPv4));
    }
  }
}
