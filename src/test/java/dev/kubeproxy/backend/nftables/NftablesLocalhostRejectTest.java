package dev.kubeproxy.backend.nftables;

import static dev.kubeproxy.backend.nftables.Fixtures.*;
import static dev.kubeproxy.testutil.ModelFixtures.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kubeproxy.backend.nftables.objects.Chain;
import dev.kubeproxy.backend.nftables.objects.NftCounter;
import dev.kubeproxy.backend.nftables.objects.Transaction;
import dev.kubeproxy.config.ProxyMode;
import dev.kubeproxy.trace.Origin;
import dev.kubeproxy.trace.Packet;
import dev.kubeproxy.trace.Protocol;
import dev.kubeproxy.trace.Trace;
import dev.kubeproxy.trace.Verdict;
import dev.kubeproxy.trace.nftables.NftRuleset;
import dev.kubeproxy.trace.nftables.NftablesTracer;
import dev.kubeproxy.trace.nftables.TraceHost;
import dev.kubeproxy.trace.nftables.json.NftJsonReader;
import dev.kubeproxy.trace.nftables.script.NftScriptReader;
import java.util.Set;
import dev.kubeproxy.metrics.ProxyMetrics;
import dev.kubeproxy.model.ProxierSettings;
import dev.kubeproxy.model.ServicePortName;
import dev.kubeproxy.net.IpFamily;
import dev.kubeproxy.testutil.CountingMetrics;
import dev.kubeproxy.testutil.tier.Unit;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The loopback NodePort rejects of feature gate KubeProxyNFTablesLocalhostNodePorts
 * (pkg/proxy/nftables/proxier.go setupNFTables, syncProxyRules): which protocols per gate and proxy
 * state, their map, chains, counters and rule, elements that follow the NodePorts, and a resync that
 * finds nothing to change.
 */
@Unit
class NftablesLocalhostRejectTest {
  private static final ServicePortName web = spn("demo", "web", "http");
  private static final ServicePortName dns = spn("demo", "dns", "dns", "UDP");
  private static final ServicePortName sig = spn("demo", "sig", "sig", "SCTP");
  private static final String METRIC = "kubeproxy_nftables_localhost_nodeport_rejected_packets_total";
  private static final String RULE = "ip daddr 127.0.0.0/8 meta l4proto . th dport vmap @localhost-nodeport-reject-ports";

  private final TestClock clock = new TestClock();
  private NftablesProxier proxier;

  @AfterEach
  void close() {
    if (proxier != null) {
      proxier.close();
    }
  }

  private NftablesProxier proxier(IpFamily family, FakeNftables fake, List<String> nodePortAddresses, boolean gate) {
    ProxierSettings s = with(settings(family), false, settings(family).localDetector(), nodePortAddresses);
    proxier = Fixtures.proxier(s, fake, new CountingMetrics(), clock);
    if (gate) {
      proxier.enableLocalhostNodePorts();
    }
    return proxier;
  }

  /** Three NodePorts: TCP and UDP with endpoints, SCTP without. */
  private static Model model() {
    return new Model()
        .put(svc(web, "10.96.12.34", 80).nodePort(30080), ready("10.244.1.5", 8080, false))
        .put(svc(dns, "10.96.0.10", 53).nodePort(30053), ready("10.244.1.6", 53, false))
        .put(svc(sig, "10.96.0.11", 9).nodePort(30009));
  }

  @Test
  void gateOffWritesNothingOfIt() throws Exception {
    FakeNftables fake = new FakeNftables(IpFamily.IPv4);
    proxier(IpFamily.IPv4, fake, List.of("127.0.0.0/8", "192.168.1.10/32"), false).sync(model().state());
    assertNull(fake.elements(LocalhostRejects.MAP));
    assertEquals(Map.of(), fake.counters());
    for (String protocol : List.of("tcp", "udp", "sctp")) {
      assertNull(fake.rules("localhost-nodeport-reject-" + protocol));
    }
    assertTrue(fake.rules("nodeport-endpoints-check").stream().noneMatch(r -> r.contains("127.0.0.0/8")));
  }

  @Test
  void withTheProxyUdpAndSctpNodePortsAreRejectedAndCounted() throws Exception {
    FakeNftables fake = new FakeNftables(IpFamily.IPv4);
    proxier(IpFamily.IPv4, fake, List.of("127.0.0.0/8", "192.168.1.10/32"), true).sync(model().state());
    assertEquals(List.of("sctp . 30009 : goto localhost-nodeport-reject-sctp",
        "udp . 30053 : goto localhost-nodeport-reject-udp"), sorted(fake.elements(LocalhostRejects.MAP)));
    assertEquals(List.of("counter name \"localhost-nodeport-rejected-udp\" reject"),
        fake.rules("localhost-nodeport-reject-udp"));
    assertEquals(List.of("counter name \"localhost-nodeport-rejected-sctp\" reject"),
        fake.rules("localhost-nodeport-reject-sctp"));
    assertNull(fake.rules("localhost-nodeport-reject-tcp"), "TCP is served by the userspace proxy");
    assertEquals(Map.of("localhost-nodeport-rejected-udp", 0L, "localhost-nodeport-rejected-sctp", 0L),
        fake.counters());
    assertEquals(RULE, fake.rules("nodeport-endpoints-check").get(0), "before the no-endpoint check");
    String text = proxier.lastTransaction().render(IpFamily.IPv4);
    assertTrue(text.contains("add counter ip kube-proxy localhost-nodeport-rejected-udp\n"), text);
    assertTrue(text.contains("add map ip kube-proxy localhost-nodeport-reject-ports { type inet_proto . inet_service"
        + " : verdict ; comment \"localhost NodePorts rejected by kube-proxy\" ; }"), text);
  }

  @Test
  void withoutTheProxyEveryProtocolIsRejected() throws Exception {
    FakeNftables fake = new FakeNftables(IpFamily.IPv4);
    // "all" names no loopback CIDR explicitly: no userspace proxy
    proxier(IpFamily.IPv4, fake, List.of("0.0.0.0/0"), true).sync(model().state());
    assertEquals(List.of("sctp . 30009 : goto localhost-nodeport-reject-sctp",
        "tcp . 30080 : goto localhost-nodeport-reject-tcp", "udp . 30053 : goto localhost-nodeport-reject-udp"),
        sorted(fake.elements(LocalhostRejects.MAP)));
    assertEquals(List.of("counter name \"localhost-nodeport-rejected-tcp\" reject"),
        fake.rules("localhost-nodeport-reject-tcp"));
    assertEquals(3, fake.counters().size());
  }

  @Test
  void aRestartWithTheGateOffRemovesWhatTheGateLeft() throws Exception {
    FakeNftables fake = new FakeNftables(IpFamily.IPv4);
    proxier(IpFamily.IPv4, fake, List.of("127.0.0.0/8", "192.168.1.10/32"), true).sync(model().state());
    proxier.close();
    NftablesProxier off = proxier(IpFamily.IPv4, fake, List.of("127.0.0.0/8", "192.168.1.10/32"), false);
    off.sync(model().state());
    assertNull(fake.elements(LocalhostRejects.MAP));
    assertEquals(Map.of(), fake.counters());
    assertNull(fake.rules("localhost-nodeport-reject-udp"));
    assertTrue(fake.rules("nodeport-endpoints-check").stream().noneMatch(r -> r.contains("127.0.0.0/8")));
  }

  @Test
  void ipv6MatchesTheLoopbackAddress() throws Exception {
    FakeNftables fake = new FakeNftables(IpFamily.IPv6);
    proxier(IpFamily.IPv6, fake, List.of("::1/128"), true).sync(new Model()
        .put(svc(dns, "fd00:10:96::10", 53).nodePort(30053), ready("fd00:10:244::6", 53, false)).state());
    assertEquals("ip6 daddr ::1 meta l4proto . th dport vmap @localhost-nodeport-reject-ports",
        fake.rules("nodeport-endpoints-check").get(0));
    assertEquals(List.of("udp . 30053 : goto localhost-nodeport-reject-udp"), fake.elements(LocalhostRejects.MAP));
  }

  @Test
  void elementsFollowTheNodePortsInPartialSyncsAndAResyncFindsNoDrift() throws Exception {
    FakeNftables fake = new FakeNftables(IpFamily.IPv4);
    NftablesProxier p = proxier(IpFamily.IPv4, fake, List.of("127.0.0.1/32"), true);
    Model m = model();
    p.sync(m.state());
    fake.count("localhost-nodeport-rejected-udp", 7);

    m.put(svc(dns, "10.96.0.10", 53).nodePort(31053), ready("10.244.1.6", 53, false));
    assertTrue(!p.sync(m.state()).full());
    assertEquals(List.of("sctp . 30009 : goto localhost-nodeport-reject-sctp",
        "udp . 31053 : goto localhost-nodeport-reject-udp"), sorted(fake.elements(LocalhostRejects.MAP)));
    m.remove(sig);
    p.sync(m.state());
    assertEquals(List.of("udp . 31053 : goto localhost-nodeport-reject-udp"), fake.elements(LocalhostRejects.MAP));

    clock.advance(Duration.ofMinutes(61));
    assertTrue(p.sync(m.state()).full());
    assertTrue(p.lastFullSyncReconciled());
    assertEquals("", p.lastTransaction().render(IpFamily.IPv4), "nothing differs: nothing is sent");
    assertEquals(7L, fake.counters().get("localhost-nodeport-rejected-udp"), "a resync keeps the counts");
  }

  @Test
  void aReconcileThatRewritesTheRejectChainAddsItsCounterFirst() throws Exception {
    FakeNftables fake = new FakeNftables(IpFamily.IPv4);
    NftablesProxier p = proxier(IpFamily.IPv4, fake, List.of("127.0.0.1/32"), true);
    Model m = model();
    p.sync(m.state());
    // something else empties the chain and deletes the counter
    fake.tamper(new Transaction()
        .flush(Chain.regular("localhost-nodeport-reject-udp"))
        .delete(new NftCounter("localhost-nodeport-rejected-udp")));
    p.requestFullSync();
    p.sync(m.state());
    assertTrue(p.lastFullSyncReconciled());
    assertEquals(List.of("counter name \"localhost-nodeport-rejected-udp\" reject"),
        fake.rules("localhost-nodeport-reject-udp"));
    assertTrue(fake.counters().containsKey("localhost-nodeport-rejected-udp"));
  }

  @Test
  void theMetricReadsTheCountersAtScrape() throws Exception {
    FakeNftables fake = new FakeNftables(IpFamily.IPv4);
    ProxyMetrics metrics = new ProxyMetrics().registerFor(ProxyMode.NFTABLES);
    ProxierSettings s = with(settings(IpFamily.IPv4), false, settings(IpFamily.IPv4).localDetector(),
        List.of("127.0.0.0/8"));
    proxier = Fixtures.proxier(s, fake, metrics, clock);
    assertFalse(metrics.registry().scrape().contains(METRIC), "nothing rejected, nothing to report");
    proxier.enableLocalhostNodePorts();
    proxier.sync(model().state());
    fake.count("localhost-nodeport-rejected-udp", 3);
    String scrape = metrics.registry().scrape();
    assertTrue(scrape.contains(METRIC + "{ip_family=\"IPv4\",protocol=\"UDP\"} 3\n"), scrape);
    assertTrue(scrape.contains(METRIC + "{ip_family=\"IPv4\",protocol=\"SCTP\"} 0\n"), scrape);
    assertFalse(scrape.contains("protocol=\"TCP\""), scrape);
    fake.count("localhost-nodeport-rejected-udp", 5);
    assertTrue(metrics.registry().scrape().contains(METRIC + "{ip_family=\"IPv4\",protocol=\"UDP\"} 5\n"));
  }

  @Test
  void nftCounterListingIsParsed() {
    String listing = """
        table ip kube-proxy {
        	counter localhost-nodeport-rejected-udp {
        		packets 12 bytes 840
        	}
        	counter localhost-nodeport-rejected-sctp {
        		packets 0 bytes 0
        	}
        }
        """;
    assertEquals(Map.of("localhost-nodeport-rejected-udp", 12L, "localhost-nodeport-rejected-sctp", 0L),
        NftCommand.parseCounters(listing));
  }

  @Test
  void tracingUdpToALoopbackNodePortSaysRejectInTheTableTheScriptAndTheJson() throws Exception {
    PacketFlows.Node node = new PacketFlows.Node(PacketFlows.settings(IpFamily.IPv4, false, true,
        List.of("127.0.0.0/8", PacketFlows.NODE_IP + "/32")));
    node.proxier.enableLocalhostNodePorts();
    node.model.put(svc(dns, "172.30.0.10", 53).nodePort(30053), ready("10.0.1.6", 53, false))
        .put(svc(web, "172.30.0.41", 80).nodePort(30080), ready("10.0.1.5", 8080, false));
    node.proxier.sync(node.model.state());
    TraceHost host = TraceHost.of(PacketFlows.NODE_IPS);
    Packet udp = new Packet(Origin.NODE, "127.0.0.1", "127.0.0.1", 30053, Protocol.UDP, false);
    Packet tcp = new Packet(Origin.NODE, "127.0.0.1", "127.0.0.1", 30080, Protocol.TCP, false);

    NftablesTracer tracer = new NftablesTracer(node.fake.ruleset(), host);
    Trace rejected = tracer.trace(udp);
    assertEquals(Verdict.REJECT, rejected.verdict());
    assertTrue(rejected.path().stream().anyMatch(s -> s.chain().equals("localhost-nodeport-reject-udp")),
        rejected.path().toString());
    Trace served = tracer.trace(tcp);
    assertEquals(Verdict.ACCEPT, served.verdict(), "TCP goes on to the userspace proxy's listener");
    assertEquals(Set.of(), served.dnatTargets());

    String script = node.proxier.lastTransaction().renderOnePerLine(IpFamily.IPv4, true);
    assertEquals(Verdict.REJECT, new NftablesTracer(NftScriptReader.read(IpFamily.IPv4, script), host)
        .trace(udp).verdict(), "the dry run's script");
  }

  @Test
  void theJsonReaderReadsTheNamedCounterAndTheReject() {
    // as nft -j list ruleset prints the objects (nft 1.0.6)
    String json = """
        {"nftables": [{"metainfo": {"version": "1.0.6", "json_schema_version": 1}},
        {"table": {"family": "ip", "name": "kube-proxy", "handle": 1}},
        {"counter": {"family": "ip", "name": "localhost-nodeport-rejected-udp", "table": "kube-proxy", "handle": 5,
          "packets": 4, "bytes": 280}},
        {"chain": {"family": "ip", "table": "kube-proxy", "name": "filter-input", "handle": 9, "type": "filter",
          "hook": "input", "prio": 0, "policy": "accept"}},
        {"map": {"family": "ip", "name": "localhost-nodeport-reject-ports", "table": "kube-proxy",
          "type": ["inet_proto", "inet_service"], "handle": 2, "map": "verdict",
          "elem": [[{"concat": ["udp", 30053]}, {"goto": {"target": "localhost-nodeport-reject-udp"}}]]}},
        {"chain": {"family": "ip", "table": "kube-proxy", "name": "localhost-nodeport-reject-udp", "handle": 6}},
        {"rule": {"family": "ip", "table": "kube-proxy", "chain": "filter-input", "handle": 8, "expr": [
          {"match": {"op": "==", "left": {"payload": {"protocol": "ip", "field": "daddr"}},
            "right": {"prefix": {"addr": "127.0.0.0", "len": 8}}}},
          {"vmap": {"key": {"concat": [{"meta": {"key": "l4proto"}}, {"payload": {"protocol": "th", "field": "dport"}}]},
            "data": "@localhost-nodeport-reject-ports"}}]}},
        {"rule": {"family": "ip", "table": "kube-proxy", "chain": "localhost-nodeport-reject-udp", "handle": 7,
          "expr": [{"counter": "localhost-nodeport-rejected-udp"},
            {"reject": {"type": "icmp", "expr": "port-unreachable"}}]}}]}
        """;
    NftRuleset table = NftJsonReader.read(IpFamily.IPv4, json);
    Trace t = new NftablesTracer(table, TraceHost.of(List.of("192.168.0.2")))
        .trace(new Packet(Origin.NODE, "127.0.0.1", "127.0.0.1", 30053, Protocol.UDP, false));
    assertEquals(Verdict.REJECT, t.verdict());
    assertTrue(t.path().stream().anyMatch(s -> s.rule().equals("counter name \"localhost-nodeport-rejected-udp\" reject")),
        t.path().toString());
  }

  private static List<String> sorted(List<String> l) {
    return l.stream().sorted().toList();
  }
}
