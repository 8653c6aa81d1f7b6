package dev.kubeproxy.backend.conntrack;

import dev.kubeproxy.config.ProxyMode;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kubeproxy.metrics.ProxyMetrics;
import dev.kubeproxy.model.Endpoint;
import dev.kubeproxy.net.IpFamily;
import dev.kubeproxy.model.NamespacedName;
import dev.kubeproxy.model.ServicePort;
import dev.kubeproxy.model.ServicePortName;
import dev.kubeproxy.testutil.tier.Unit;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The reconciler's rule (upstream cleanup_test.go in spirit): which entries of a table are stale
 * for a given set of Services and endpoints, and what it reports in its metrics.
 */
@Unit
class ConntrackReconcilerTest {
  static final ServicePortName DNS = new ServicePortName(new NamespacedName("kube-system", "dns"), "dns", "UDP");
  static final ServicePortName WEB = new ServicePortName(new NamespacedName("demo", "web"), "http", "TCP");
  static final ServicePortName SIG = new ServicePortName(new NamespacedName("demo", "sig"), "sctp", "SCTP");
  static final String CLIENT = "10.244.9.9";

  static ServicePort port(ServicePortName name, String clusterIP, int port, int nodePort, List<String> externalIPs,
      List<String> lbIPs) {
    return new ServicePort(name, clusterIP, port, name.protocol(), nodePort, externalIPs, lbIPs, List.of(), false, 0,
        false, false, 0, "");
  }

  static Endpoint ep(String ip, int port, boolean serving) {
    return new Endpoint(ip, port, false, serving, serving, false, null);
  }

  static Endpoint terminatingServing(String ip, int port) {
    return new Endpoint(ip, port, false, false, true, true, null);
  }

  /** A DNAT-ed flow from the client to dst:dport answered by replySrc:replyPort. */
  static ConntrackFlow flow(int protocol, String dst, int dport, String replySrc, int replyPort) {
    return new ConntrackFlow(protocol, CLIENT, 40000, dst, dport, replySrc, replyPort, CLIENT, 40000, 0, 7);
  }

  static final ServicePort DNS_PORT = port(DNS, "10.96.0.10", 53, 30053, List.of("203.0.113.5"),
      List.of("198.51.100.7"));

  @Test
  void flowsToServingEndpointsStayAndOthersGo() {
    ConntrackFlow toServing = flow(ConntrackFlow.UDP, "10.96.0.10", 53, "10.244.1.5", 5353);
    ConntrackFlow toTerminating = flow(ConntrackFlow.UDP, "10.96.0.10", 53, "10.244.1.6", 5353);
    ConntrackFlow toGone = flow(ConntrackFlow.UDP, "10.96.0.10", 53, "10.244.1.7", 5353);
    ConntrackFlow notServing = flow(ConntrackFlow.UDP, "10.96.0.10", 53, "10.244.1.8", 5353);
    ConntrackFlow blackHoled = flow(ConntrackFlow.UDP, "10.96.0.10", 53, "10.96.0.10", 53); // no DNAT (no rules yet)
    ConntrackFlow otherPort = flow(ConntrackFlow.UDP, "10.96.0.10", 54, "10.96.0.10", 54);
    ConntrackFlow unrelated = flow(ConntrackFlow.UDP, "10.96.99.99", 53, "10.244.1.7", 5353);
    List<ConntrackFlow> stale = ConntrackReconciler.staleFlows(Map.of(DNS, DNS_PORT),
        Map.of(DNS, List.of(ep("10.244.1.5", 5353, true), terminatingServing("10.244.1.6", 5353),
            ep("10.244.1.8", 5353, false))),
        List.of(), List.of(toServing, toTerminating, toGone, notServing, blackHoled, otherPort, unrelated));
    assertEquals(List.of(toGone, notServing, blackHoled), stale);
  }

  @Test
  void theTargetPortCountsNotOnlyTheAddress() {
    // #130542: the endpoint now listens on another port; the old flow is stale.
    ConntrackFlow oldPort = flow(ConntrackFlow.UDP, "10.96.0.10", 53, "10.244.1.5", 53);
    ConntrackFlow newPort = flow(ConntrackFlow.UDP, "10.96.0.10", 53, "10.244.1.5", 5353);
    assertEquals(List.of(oldPort), ConntrackReconciler.staleFlows(Map.of(DNS, DNS_PORT),
        Map.of(DNS, List.of(ep("10.244.1.5", 5353, true))), List.of(), List.of(oldPort, newPort)));
  }

  @Test
  void everyFrontendOfTheServiceIsChecked() {
    ConntrackFlow viaExternal = flow(ConntrackFlow.UDP, "203.0.113.5", 53, "10.244.1.7", 5353);
    ConntrackFlow viaLb = flow(ConntrackFlow.UDP, "198.51.100.7", 53, "10.244.1.7", 5353);
    ConntrackFlow viaNodePort = flow(ConntrackFlow.UDP, "192.168.200.10", 30053, "10.244.1.7", 5353);
    ConntrackFlow viaNodePortOk = flow(ConntrackFlow.UDP, "192.168.200.10", 30053, "10.244.1.5", 5353);
    ConntrackFlow externalOk = flow(ConntrackFlow.UDP, "203.0.113.5", 53, "10.244.1.5", 5353);
    assertEquals(List.of(viaExternal, viaLb, viaNodePort), ConntrackReconciler.staleFlows(Map.of(DNS, DNS_PORT),
        Map.of(DNS, List.of(ep("10.244.1.5", 5353, true))), List.of(),
        List.of(viaExternal, viaLb, viaNodePort, viaNodePortOk, externalOk)));
  }

  @Test
  void aServiceScaledToZeroLosesItsOldFlows() {
    // #139628: no serving endpoint left is an empty set, not a reason to skip the Service.
    ConntrackFlow toGone = flow(ConntrackFlow.UDP, "10.96.0.10", 53, "10.244.1.5", 5353);
    ConntrackFlow viaNodePort = flow(ConntrackFlow.UDP, "192.168.200.10", 30053, "10.244.1.5", 5353);
    assertEquals(List.of(toGone, viaNodePort), ConntrackReconciler.staleFlows(Map.of(DNS, DNS_PORT),
        Map.of(), List.of(), List.of(toGone, viaNodePort)));
  }

  @Test
  void aDeletedServiceLosesItsFlowsUnlessItsAddressWasTakenOver() {
    // #141371: the deleted port is no longer in the map; its frontends are checked with an empty set.
    ConntrackFlow toDeleted = flow(ConntrackFlow.UDP, "10.96.0.10", 53, "10.244.1.5", 5353);
    ConntrackFlow viaNodePort = flow(ConntrackFlow.UDP, "192.168.200.10", 30053, "10.244.1.5", 5353);
    assertEquals(List.of(toDeleted, viaNodePort),
        ConntrackReconciler.staleFlows(Map.of(), Map.of(), List.of(DNS_PORT), List.of(toDeleted, viaNodePort)));

    // A new Service got the same cluster IP and port: its endpoints decide.
    ServicePortName reused = new ServicePortName(new NamespacedName("kube-system", "dns2"), "dns", "UDP");
    ServicePort newPort = port(reused, "10.96.0.10", 53, 0, List.of(), List.of());
    assertEquals(List.of(viaNodePort), ConntrackReconciler.staleFlows(Map.of(reused, newPort),
        Map.of(reused, List.of(ep("10.244.1.5", 5353, true))), List.of(DNS_PORT), List.of(toDeleted, viaNodePort)));
  }

  @Test
  void tcpIsLeftAloneSctpIsCheckedAndProtocolsDoNotMix() {
    ServicePort web = port(WEB, "10.96.0.20", 80, 0, List.of(), List.of());
    ServicePort sig = port(SIG, "10.96.0.30", 9000, 0, List.of(), List.of());
    ConntrackFlow tcpToGone = flow(ConntrackFlow.TCP, "10.96.0.20", 80, "10.244.1.7", 8080);
    ConntrackFlow sctpToGone = flow(ConntrackFlow.SCTP, "10.96.0.30", 9000, "10.244.1.7", 9000);
    ConntrackFlow sctpOk = flow(ConntrackFlow.SCTP, "10.96.0.30", 9000, "10.244.1.5", 9000);
    ConntrackFlow udpToSctpFrontend = flow(ConntrackFlow.UDP, "10.96.0.30", 9000, "10.244.1.7", 9000);
    assertEquals(List.of(sctpToGone), ConntrackReconciler.staleFlows(Map.of(WEB, web, SIG, sig),
        Map.of(SIG, List.of(ep("10.244.1.5", 9000, true))), List.of(),
        List.of(tcpToGone, sctpToGone, sctpOk, udpToSctpFrontend)));
  }

  @Test
  void reconcileDeletesAndRecordsItsMetricsPerFamily() {
    FakeTable table = new FakeTable();
    table.flows.add(flow(ConntrackFlow.UDP, "10.96.0.10", 53, "10.244.1.7", 5353));
    table.flows.add(flow(ConntrackFlow.UDP, "10.96.0.10", 53, "10.244.1.5", 5353));
    ProxyMetrics metrics = new ProxyMetrics().registerFor(ProxyMode.IPTABLES);
    ConntrackReconciler reconciler = new ConntrackReconciler(table, metrics);
    assertEquals(1, reconciler.reconcile(IpFamily.IPv4, Map.of(DNS, DNS_PORT),
        Map.of(DNS, List.of(ep("10.244.1.5", 5353, true))), List.of()));
    assertEquals(List.of("10.244.1.5"), table.flows.stream().map(ConntrackFlow::replySrc).toList());
    assertEquals(0, reconciler.reconcile(IpFamily.IPv4, Map.of(DNS, DNS_PORT),
        Map.of(DNS, List.of(ep("10.244.1.5", 5353, true))), List.of()));
    String scrape = metrics.registry().scrape();
    assertTrue(scrape.contains("""
        # HELP kubeproxy_conntrack_reconciler_deleted_entries_total [ALPHA] Cumulative conntrack flows deleted by conntrack reconciler
        # TYPE kubeproxy_conntrack_reconciler_deleted_entries_total counter
        kubeproxy_conntrack_reconciler_deleted_entries_total{ip_family="IPv4"} 1
        """), scrape);
    assertTrue(scrape.contains("# HELP kubeproxy_conntrack_reconciler_sync_duration_seconds [ALPHA]"
        + " ReconcileConntrackFlowsLatency latency in seconds\n"), scrape);
    assertTrue(scrape.contains("kubeproxy_conntrack_reconciler_sync_duration_seconds_bucket{ip_family=\"IPv4\","
        + "le=\"0.001\"}"), scrape);
    assertTrue(scrape.contains("kubeproxy_conntrack_reconciler_sync_duration_seconds_count{ip_family=\"IPv4\"} 2\n"),
        scrape);
  }

  @Test
  void aTableThatCannotBeReadDeletesNothingAndIsTriedAgain() {
    FakeTable table = new FakeTable();
    table.failList = true;
    ProxyMetrics metrics = new ProxyMetrics().registerFor(ProxyMode.NFTABLES);
    ConntrackReconciler reconciler = new ConntrackReconciler(table, metrics);
    assertEquals(0, reconciler.reconcile(IpFamily.IPv6, Map.of(), Map.of(), List.of()));
    assertTrue(metrics.registry().scrape()
        .contains("kubeproxy_conntrack_reconciler_sync_duration_seconds_count{ip_family=\"IPv6\"} 1\n"));
    table.failList = false;
    assertEquals(0, reconciler.reconcile(IpFamily.IPv6, Map.of(), Map.of(), List.of()));
    assertEquals(2, table.lists);
  }

  static final class FakeTable implements ConntrackTable {
    final List<ConntrackFlow> flows = new ArrayList<>();
    boolean failList;
    int lists;

    @Override
    public List<ConntrackFlow> list(IpFamily family) throws IOException {
      lists++;
      if (failList) {
        throw new IOException("netlink receive: Interrupted system call");
      }
      return List.copyOf(flows);
    }

    @Override
    public int delete(IpFamily family, List<ConntrackFlow> gone) {
      int n = 0;
      for (ConntrackFlow f : gone) {
        n += flows.remove(f) ? 1 : 0;
      }
      return n;
    }
  }
}
