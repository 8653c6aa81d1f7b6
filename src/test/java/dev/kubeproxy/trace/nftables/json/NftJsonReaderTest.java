package dev.kubeproxy.trace.nftables.json;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kubeproxy.backend.nftables.objects.Chain;
import dev.kubeproxy.backend.nftables.objects.Element;
import dev.kubeproxy.backend.nftables.objects.ElementValue;
import dev.kubeproxy.backend.nftables.objects.Match;
import dev.kubeproxy.backend.nftables.objects.Match.Field;
import dev.kubeproxy.backend.nftables.objects.NftMap;
import dev.kubeproxy.backend.nftables.objects.NftSet;
import dev.kubeproxy.backend.nftables.objects.Rule;
import dev.kubeproxy.backend.nftables.objects.Statement;
import dev.kubeproxy.backend.nftables.objects.Verdict;
import dev.kubeproxy.net.IpFamily;
import dev.kubeproxy.testutil.tier.Unit;
import dev.kubeproxy.trace.Origin;
import dev.kubeproxy.trace.Packet;
import dev.kubeproxy.trace.Protocol;
import dev.kubeproxy.trace.Trace;
import dev.kubeproxy.trace.nftables.NftRuleset;
import dev.kubeproxy.trace.nftables.NftablesTracer;
import dev.kubeproxy.trace.nftables.TraceHost;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The reader of {@code nft -j list table} over real output, captured from scratch namespaces where
 * the agent had programmed its test cluster (kube-proxy-ip.json, kube-proxy-ip6.json; and
 * kube-proxy-ip-interface.json with masqueradeAll, an interface-prefix detector, nodePortAddresses
 * and Service CIDRs, after a partial sync).
 */
@Unit
class NftJsonReaderTest {
  private static final String NODE = "192.168.50.1";

  static String canned(String name) throws IOException {
    try (InputStream in = NftJsonReaderTest.class.getResourceAsStream(name)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  @Test
  void readsChainsRulesSetsAndMapsIntoTheTypedForm() throws Exception {
    NftRuleset t = NftJsonReader.read(IpFamily.IPv4, canned("kube-proxy-ip.json"));
    assertEquals(IpFamily.IPv4, t.family());
    assertEquals(new Chain("nat-prerouting", "nat", "prerouting", -100, null), t.chains().get("nat-prerouting"));
    assertEquals(new Chain("filter-prerouting-pre-dnat", "filter", "prerouting", -110, null),
        t.chains().get("filter-prerouting-pre-dnat"));
    // this nft prints no chain comments in JSON
    assertEquals(Chain.regular("reject-chain"), t.chains().get("reject-chain"));
    String mark = "0x00004000";
    assertEquals(List.of(
        new Rule("masquerading", List.of(new Match.DestinationNatted(), new Match.TupleInSet("hairpin-connections")),
            Verdict.jump("mark-for-masquerade")),
        new Rule("masquerading", List.of(new Match.MarkUnset(mark)), Verdict.RETURN),
        new Rule("masquerading", new Statement.SetMark(true, mark)),
        new Rule("masquerading", new Statement.Masquerade())), t.rules("masquerading"));
    assertEquals(List.of(new Rule("mark-for-masquerade", new Statement.SetMark(false, mark))),
        t.rules("mark-for-masquerade"));
    assertEquals(List.of(new Rule("services", new Statement.DestinationVmap(true, "service-ips")),
        new Rule("services", List.of(new Match.LocalAddress(Field.DESTINATION),
            new Match.Address(Field.DESTINATION, true, "127.0.0.0/8")), new Statement.DestinationVmap(false,
            "service-nodeports"))), t.rules("services"));
    assertEquals(new Rule("cluster-ips-check", List.of(new Match.AddressInSet(Field.DESTINATION, "cluster-ips")),
        new Statement.Reject(), "Reject traffic to invalid ports of ClusterIPs"), t.rules("cluster-ips-check").get(0));
    assertEquals(List.of(new Rule("filter-input", List.of(new Match.NewConnection()),
        Verdict.jump("nodeport-endpoints-check")), new Rule("filter-input", List.of(new Match.NewConnection()),
        Verdict.jump("service-endpoints-check"))), t.rules("filter-input"));

    String svc = "service-MMFGVKAO-ns/plain/tcp/p";
    assertEquals(List.of(
        new Rule(svc, List.of(new Match.Address(Field.DESTINATION, false, "10.96.0.10"),
            new Match.DestinationPort("tcp", 80), new Match.Address(Field.SOURCE, true, "10.244.0.0/16")),
            Verdict.jump("mark-for-masquerade")),
        new Rule(svc, List.of(new Match.Protocol("tcp")), new Statement.DnatFromMap(24504480, 67108864,
            "endpoint-ranges-tcp-0"))), t.rules(svc));

    String affinity = "service-ZQB5U4R4-ns/affinity/tcp/p";
    String ep = "endpoint-T6Y4GC2W-ns/affinity/tcp/p__10.244.1.17/8080";
    assertEquals(new Rule(affinity, new Statement.RandomGoto(List.of(ep,
        "endpoint-DP5Z7K7V-ns/affinity/tcp/p__10.244.2.17/8080"))), t.rules(affinity).get(3));
    assertEquals(new Rule(affinity, List.of(new Match.AddressInSet(Field.SOURCE,
        "affinity-T6Y4GC2W-ns/affinity/tcp/p__10.244.1.17/8080")), Verdict.goTo(ep)), t.rules(affinity).get(1));
    assertEquals(List.of(
        new Rule(ep, List.of(new Match.Address(Field.SOURCE, false, "10.244.1.17")), Verdict.jump("mark-for-masquerade")),
        new Rule(ep, new Statement.RememberSource("affinity-T6Y4GC2W-ns/affinity/tcp/p__10.244.1.17/8080")),
        new Rule(ep, List.of(new Match.Protocol("tcp")), new Statement.Dnat("10.244.1.17", 8080))), t.rules(ep));
    assertEquals(List.of(new Rule("external-67ICMIKH-ns/etp-local/tcp/p", List.of(new Match.LocalAddress(Field.SOURCE)),
        Verdict.jump("mark-for-masquerade"), "masquerade local traffic")),
        t.rules("external-67ICMIKH-ns/etp-local/tcp/p").subList(1, 2));
    assertEquals(List.of(new Rule("firewall-7XESENFC-ns/lb/tcp/p",
        List.of(new Match.Address(Field.SOURCE, true, "198.51.100.0/24")), Verdict.DROP)),
        t.rules("firewall-7XESENFC-ns/lb/tcp/p"));

    assertEquals(new NftSet("affinity-T6Y4GC2W-ns/affinity/tcp/p__10.244.1.17/8080", "ipv4_addr",
        List.of("timeout"), 10800, null), t.container("affinity-T6Y4GC2W-ns/affinity/tcp/p__10.244.1.17/8080"));
    assertEquals(new NftMap("endpoint-ranges-tcp-0", "integer : ipv4_addr . inet_service", List.of("interval"),
        "endpoints of up to 64 tcp services, a key range each"), t.container("endpoint-ranges-tcp-0"));
    assertEquals(new Element("endpoint-ranges-tcp-0", true, List.of("0-12252239"),
        new ElementValue.Target("10.244.0.14", 8080), null), t.elements("endpoint-ranges-tcp-0").get(0));
    assertEquals(Element.ofMap("no-endpoint-services", List.of("10.96.0.19", "tcp", "80"),
        Verdict.goTo("reject-chain"), "ns/none:p"), t.elements("no-endpoint-services").get(1));
    assertEquals(Element.ofMap("service-nodeports", List.of("tcp", "30011"),
        Verdict.goTo("external-D53LWNJ4-ns/node-port/tcp/p"), null), t.elements("service-nodeports").get(0));
    assertEquals(Element.ofSet("hairpin-connections", "10.244.1.20", "10.244.1.20", "udp", "53"),
        t.elements("hairpin-connections").get(0));
    assertEquals(11, t.elements("cluster-ips").size());
  }

  @Test
  void theTableReadTracesAsTheKernelRuns() throws Exception {
    NftablesTracer tracer = new NftablesTracer(NftJsonReader.read(IpFamily.IPv4, canned("kube-proxy-ip.json")),
        TraceHost.of(List.of(NODE)));
    Trace plain = tracer.trace(new Packet(Origin.POD, "10.244.0.2", "10.96.0.10", 80, Protocol.TCP, false));
    assertEquals(dev.kubeproxy.trace.Verdict.ACCEPT, plain.verdict());
    assertEquals(Set.of("10.244.0.10:8080", "10.244.1.10:8080"), plain.dnatTargets());
    assertFalse(plain.masqueraded());
    Trace nodePort = tracer.trace(new Packet(Origin.OUTSIDE, "192.168.50.2", NODE, 30011, Protocol.TCP, false));
    assertEquals(Set.of("10.244.1.11:8080"), nodePort.dnatTargets());
    assertTrue(nodePort.masqueraded());
    assertEquals(dev.kubeproxy.trace.Verdict.REJECT,
        tracer.trace(new Packet(Origin.OUTSIDE, "192.168.50.2", NODE, 30019, Protocol.TCP, false)).verdict());
    assertEquals(dev.kubeproxy.trace.Verdict.DROP,
        tracer.trace(new Packet(Origin.OUTSIDE, "192.168.50.2", "203.0.113.12", 80, Protocol.TCP, false)).verdict());
    assertEquals(Set.of("10.244.1.12:8080", "10.244.2.12:8080"),
        tracer.trace(new Packet(Origin.OUTSIDE, "198.51.100.7", "203.0.113.12", 80, Protocol.TCP, false)).dnatTargets());

    NftablesTracer six = new NftablesTracer(NftJsonReader.read(IpFamily.IPv6, canned("kube-proxy-ip6.json")),
        TraceHost.of(List.of("fd00:50::1")));
    Trace v6 = six.trace(new Packet(Origin.POD, "fd00:10:244::2", "fd00:96::10", 80, Protocol.TCP, false));
    assertEquals(Set.of("[fd00:10:244::10]:8080", "[fd00:10:244:1::10]:8080"), v6.dnatTargets());
  }

  @Test
  void readsAnonymousSetsInterfacePrefixesAndNodePortAddresses() throws Exception {
    NftRuleset t = NftJsonReader.read(IpFamily.IPv4, canned("kube-proxy-ip-interface.json"));
    assertEquals(new Rule("cluster-ips-check", List.of(new Match.AddressIn(Field.DESTINATION, false,
        List.of("10.96.0.0/16", "10.100.0.0/16"))), Verdict.DROP, "Drop traffic to unallocated ClusterIPs"),
        t.rules("cluster-ips-check").get(1));
    assertEquals(new Rule("external-67ICMIKH-ns/etp-local/tcp/p", List.of(new Match.InterfaceName(false, "kpod*")),
        Verdict.goTo("service-67ICMIKH-ns/etp-local/tcp/p"), "short-circuit pod traffic"),
        t.rules("external-67ICMIKH-ns/etp-local/tcp/p").get(0));
    assertEquals(List.of(Element.ofSet("nodeport-ips", NODE)), t.elements("nodeport-ips"));
    NftablesTracer tracer = new NftablesTracer(t, new TraceHost(Set.of(NODE), "kpod0"));
    // masqueradeAll (mark 0x20 here): even a pod's packet to a cluster IP is masqueraded
    Trace pod = tracer.trace(new Packet(Origin.POD, "10.244.0.2", "10.96.0.11", 80, Protocol.TCP, false));
    assertEquals(Set.of("10.244.1.11:8080"), pod.dnatTargets());
    assertTrue(pod.masqueraded());
    // an unallocated cluster IP inside the Service CIDRs is dropped
    assertEquals(dev.kubeproxy.trace.Verdict.DROP,
        tracer.trace(new Packet(Origin.POD, "10.244.0.2", "10.100.0.99", 80, Protocol.TCP, false)).verdict());
  }

  @Test
  void refusesWhatTheTracerCouldNotFollow() throws Exception {
    String json = canned("kube-proxy-ip.json");
    IllegalArgumentException log = assertThrows(IllegalArgumentException.class, () -> NftJsonReader.read(
        IpFamily.IPv4, json.replace("{\"masquerade\": {\"flags\": \"fully-random\"}}", "{\"log\": {\"prefix\": \"x\"}}")));
    assertTrue(log.getMessage().contains("chain masquerading: a statement the tracer does not read"), log.getMessage());

    IllegalArgumentException policy = assertThrows(IllegalArgumentException.class, () -> NftJsonReader.read(
        IpFamily.IPv4, json.replaceFirst("\"policy\": \"accept\"", "\"policy\": \"drop\"")));
    assertTrue(policy.getMessage().contains("has policy drop"), policy.getMessage());

    IllegalArgumentException family = assertThrows(IllegalArgumentException.class,
        () -> NftJsonReader.read(IpFamily.IPv6, json));
    assertTrue(family.getMessage().contains("not of ip6 kube-proxy"), family.getMessage());

    assertThrows(IllegalArgumentException.class, () -> NftJsonReader.read(IpFamily.IPv4, "table ip kube-proxy {"));
    IllegalArgumentException none = assertThrows(IllegalArgumentException.class, () -> NftJsonReader.read(
        IpFamily.IPv4, "{\"nftables\": [{\"metainfo\": {\"json_schema_version\": 1}}]}"));
    assertTrue(none.getMessage().contains("no table ip kube-proxy"), none.getMessage());
  }

  @Test
  void countersAreSkippedAndLearnedAffinitySourcesLeftOut() throws Exception {
    String json = canned("kube-proxy-ip.json")
        .replace("[{\"masquerade\": {\"flags\": \"fully-random\"}}]",
            "[{\"counter\": {\"packets\": 0, \"bytes\": 0}}, {\"masquerade\": {\"flags\": \"fully-random\"}}]")
        .replaceFirst("\"flags\": \\[\"timeout\"\\], \"timeout\": 10800}",
            "\"flags\": [\"timeout\"], \"timeout\": 10800, \"elem\": [{\"elem\": {\"val\": \"10.244.0.2\","
            + " \"timeout\": 10800, \"expires\": 10000}}]}");
    assertTrue(json.contains("\"counter\"") && json.contains("\"expires\": 10000"), "the canned output changed");
    NftRuleset t = NftJsonReader.read(IpFamily.IPv4, json);
    assertEquals(new Rule("masquerading", new Statement.Masquerade()), t.rules("masquerading").get(3));
    assertEquals(List.of(), t.elements("affinity-T6Y4GC2W-ns/affinity/tcp/p__10.244.1.17/8080"));
  }
}
