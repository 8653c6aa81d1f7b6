package dev.kubeproxy.trace.nftables;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kubeproxy.net.IpFamily;
import dev.kubeproxy.backend.nftables.objects.Chain;
import dev.kubeproxy.backend.nftables.objects.Element;
import dev.kubeproxy.backend.nftables.objects.ElementValue;
import dev.kubeproxy.backend.nftables.objects.Match;
import dev.kubeproxy.backend.nftables.objects.Match.Field;
import dev.kubeproxy.backend.nftables.objects.NftMap;
import dev.kubeproxy.backend.nftables.objects.NftSet;
import dev.kubeproxy.backend.nftables.objects.Rule;
import dev.kubeproxy.backend.nftables.objects.Statement;
import dev.kubeproxy.backend.nftables.objects.Transaction;
import dev.kubeproxy.backend.nftables.objects.Verdict;
import dev.kubeproxy.testutil.tier.Unit;
import dev.kubeproxy.trace.Origin;
import dev.kubeproxy.trace.Packet;
import dev.kubeproxy.trace.Protocol;
import dev.kubeproxy.trace.Step;
import dev.kubeproxy.trace.Trace;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The tracer's reading of nf_tables semantics, on small hand-written tables. */
@Unit
class NftablesTracerTest {
  private static final TraceHost HOST = TraceHost.of(List.of("192.168.0.2", "2001:db8::1"));
  private static final String MARK = "0x4000";

  /** prerouting/output nat chains jumping to "services", postrouting masquerading on the mark. */
  private static NftRuleset.Builder base(IpFamily family) {
    NftRuleset.Builder b = new NftRuleset.Builder(family)
        .chain(Chain.base("nat-prerouting", "nat", "prerouting", -100))
        .chain(Chain.base("nat-output", "nat", "output", -100))
        .chain(Chain.base("nat-postrouting", "nat", "postrouting", 100))
        .chain(Chain.base("filter-forward", "filter", "forward", 0))
        .chain(Chain.base("filter-input", "filter", "input", 0))
        .chain(Chain.regular("services"))
        .chain(Chain.regular("mark-for-masquerade"))
        .chain(Chain.regular("masquerading"));
    b.rule(new Rule("nat-prerouting", Verdict.jump("services")))
        .rule(new Rule("nat-output", Verdict.jump("services")))
        .rule(new Rule("nat-postrouting", Verdict.jump("masquerading")))
        .rule(new Rule("mark-for-masquerade", new Statement.SetMark(false, MARK)))
        .rule(new Rule("masquerading", List.of(new Match.MarkUnset(MARK)), Verdict.RETURN))
        .rule(new Rule("masquerading", new Statement.SetMark(true, MARK)))
        .rule(new Rule("masquerading", new Statement.Masquerade()));
    return b;
  }

  private static Trace trace(NftRuleset t, Origin origin, String src, String dst, int port) {
    return new NftablesTracer(t, HOST).trace(new Packet(origin, src, dst, port, Protocol.TCP, false));
  }

  @Test
  void jumpReturnsGotoDoesNotAndTheLastVerdictOfABaseChainIsItsPolicy() {
    NftRuleset.Builder b = base(IpFamily.IPv4).chain(Chain.regular("a")).chain(Chain.regular("b"));
    b.rule(new Rule("services", List.of(new Match.DestinationPort("tcp", 80)), Verdict.jump("a")))
        .rule(new Rule("services", List.of(new Match.DestinationPort("tcp", 80)), Verdict.jump("mark-for-masquerade")))
        .rule(new Rule("a", Verdict.goTo("b")))
        .rule(new Rule("a", Verdict.DROP))
        .rule(new Rule("b", List.of(new Match.Address(Field.SOURCE, true, "10.0.0.0/8")), Verdict.DROP));
    Trace t = trace(b.build(), Origin.POD, "10.0.0.2", "10.1.0.1", 80);
    // "goto b" leaves a, so a's drop never runs; b ends, which returns to services, not to a.
    assertEquals(dev.kubeproxy.trace.Verdict.ACCEPT, t.verdict());
    assertTrue(t.masqueraded(), "services went on to mark the packet after a and b");
    assertEquals(List.of(new Step("services", "tcp dport 80 jump a"), new Step("a", "goto b"),
        new Step("services", "tcp dport 80 jump mark-for-masquerade"),
        new Step("mark-for-masquerade", "mark set mark or 0x4000"),
        new Step("nat-postrouting", "jump masquerading"), new Step("masquerading", "mark set mark xor 0x4000"),
        new Step("masquerading", "masquerade fully-random")), t.path().subList(1, t.path().size()));
    assertEquals(dev.kubeproxy.trace.Verdict.DROP, trace(b.build(), Origin.OUTSIDE, "203.0.113.2", "10.1.0.1", 80).verdict());
  }

  @Test
  void verdictMapsAndRandomChoicesReachEveryEndpoint() {
    NftRuleset.Builder b = base(IpFamily.IPv4).chain(Chain.regular("svc")).chain(Chain.regular("ep1"))
        .chain(Chain.regular("ep2"))
        .container(new NftMap("service-ips", "ipv4_addr . inet_proto . inet_service : verdict", null));
    b.rule(new Rule("services", new Statement.DestinationVmap(true, "service-ips")))
        .element(Element.ofMap("service-ips", List.of("172.30.0.41", "tcp", "80"), Verdict.goTo("svc"), null))
        .rule(new Rule("svc", new Statement.RandomGoto(List.of("ep1", "ep2"))))
        .rule(new Rule("ep1", List.of(new Match.Address(Field.SOURCE, false, "10.180.0.1")),
            Verdict.jump("mark-for-masquerade")))
        .rule(new Rule("ep1", List.of(new Match.Protocol("tcp")), new Statement.Dnat("10.180.0.1", 80)))
        .rule(new Rule("ep2", List.of(new Match.Protocol("tcp")), new Statement.Dnat("10.180.2.1", 8080)));
    NftRuleset table = b.build();
    Trace t = trace(table, Origin.POD, "10.180.0.1", "172.30.0.41", 80);
    assertEquals(Set.of("10.180.0.1:80", "10.180.2.1:8080"), t.dnatTargets());
    assertTrue(t.masqueraded(), "the walk through ep1 (the client itself) masquerades");
    assertTrue(t.path().contains(new Step("ep2", "meta l4proto tcp dnat to 10.180.2.1:8080")), t.path().toString());
    // A key the map does not hold: no rule matches, the packet goes on unchanged.
    Trace miss = trace(table, Origin.POD, "10.180.0.1", "172.30.0.41", 81);
    assertEquals(Set.of(), miss.dnatTargets());
    assertEquals(new Step("nat-prerouting", "jump services"), miss.path().get(0));
    assertFalse(miss.path().stream().anyMatch(step -> step.chain().equals("svc")), miss.path().toString());
  }

  @Test
  void endpointRangesGiveTheEndpointsTheirKeysMeetAndAMissWhereNoRangeHoldsAKey() {
    NftRuleset.Builder b = base(IpFamily.IPv6).chain(Chain.regular("svc"))
        .container(new NftMap("ranges", "typeof numgen random mod 1 : ip6 daddr . tcp dport", List.of("interval"), null));
    b.rule(new Rule("services", List.of(new Match.DestinationPort("tcp", 80)), Verdict.goTo("svc")))
        .rule(new Rule("svc", List.of(new Match.Protocol("tcp")), new Statement.DnatFromMap(10, 100, "ranges")))
        .rule(new Rule("svc", new Statement.Reject()))
        .element(Element.ofMap("ranges", List.of("0-99"), new ElementValue.Target("fd00::9", 80), null))
        .element(Element.ofMap("ranges", List.of("100-104"), new ElementValue.Target("fd00::1", 80), null))
        .element(Element.ofMap("ranges", List.of("105-108"), new ElementValue.Target("fd00::2", 80), null));
    Trace t = trace(b.build(), Origin.OUTSIDE, "2600::1", "fd00:96::1", 80);
    // Keys 100..109: fd00::1 and fd00::2 can be drawn (never fd00::9); key 109 misses and falls to the reject.
    assertEquals(Set.of("[fd00::1]:80", "[fd00::2]:80"), t.dnatTargets());
    assertEquals(dev.kubeproxy.trace.Verdict.ACCEPT, t.verdict());
    assertTrue(t.path().contains(new Step("svc", "reject")), t.path().toString());
  }

  @Test
  void theNodesOwnPacketsGoOutputThenPostroutingAndLoopBackToInputWhenLocal() {
    NftRuleset.Builder b = base(IpFamily.IPv4)
        .container(NftSet.of("closed", "ipv4_addr", null));
    b.rule(new Rule("filter-input", List.of(new Match.NewConnection(), new Match.AddressInSet(Field.DESTINATION, "closed")),
            new Statement.Reject()))
        .rule(new Rule("filter-forward", new Statement.Reject()))
        .element(Element.ofSet("closed", "192.168.0.2"));
    NftRuleset table = b.build();
    Trace fromNode = trace(table, Origin.NODE, "192.168.0.2", "192.168.0.2", 22);
    assertEquals(dev.kubeproxy.trace.Verdict.REJECT, fromNode.verdict());
    assertEquals("nat-output", fromNode.path().get(0).chain(), "the output path, not prerouting");
    // Forwarded traffic meets filter-forward; traffic to the node does not.
    assertEquals(dev.kubeproxy.trace.Verdict.REJECT, trace(table, Origin.OUTSIDE, "203.0.113.2", "10.9.9.9", 22).verdict());
    assertEquals(dev.kubeproxy.trace.Verdict.REJECT, trace(table, Origin.OUTSIDE, "203.0.113.2", "192.168.0.2", 22).verdict());
    // An established packet skips nat chains and "ct state new" rules.
    Trace established = new NftablesTracer(table, HOST)
        .trace(new Packet(Origin.OUTSIDE, "203.0.113.2", "192.168.0.2", 22, Protocol.TCP, true));
    assertEquals(dev.kubeproxy.trace.Verdict.ACCEPT, established.verdict());
    assertEquals(List.of(), established.path());
  }

  @Test
  void interfaceMatchesNeedThePodInterfaceAndOtherFamiliesPassUntouched() {
    NftRuleset.Builder b = base(IpFamily.IPv4);
    b.rule(new Rule("services", List.of(new Match.InterfaceName(false, "veth*")), Verdict.DROP));
    NftRuleset table = b.build();
    Packet fromPod = new Packet(Origin.POD, "10.0.0.2", "10.1.0.1", 80, Protocol.TCP, false);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> new NftablesTracer(table, HOST).trace(fromPod));
    assertTrue(e.getMessage().contains("give the tracer the interface"), e.getMessage());
    TraceHost withPods = new TraceHost(Set.of("192.168.0.2"), "veth1234");
    assertEquals(dev.kubeproxy.trace.Verdict.DROP, new NftablesTracer(table, withPods).trace(fromPod).verdict());
    assertEquals(dev.kubeproxy.trace.Verdict.ACCEPT, new NftablesTracer(table, withPods)
        .trace(new Packet(Origin.OUTSIDE, "10.0.0.2", "10.1.0.1", 80, Protocol.TCP, false)).verdict());
    Trace v6 = new NftablesTracer(table, withPods).trace(new Packet(Origin.POD, "fd00::2", "fd00::1", 80, Protocol.TCP,
        false));
    assertEquals(List.of(), v6.path(), "an IPv6 packet never meets the ip table");
    assertThrows(IllegalArgumentException.class, () -> new NftablesTracer(table, withPods)
        .trace(new Packet(Origin.POD, "10.0.0.2", "fd00::1", 80, Protocol.TCP, false)));
  }

  @Test
  void replayAppliesFlushesAndDeletesAsTheKernelDoes() {
    Transaction first = new Transaction();
    first.add(Chain.regular("c")).add(new Rule("c", Verdict.DROP))
        .add(NftSet.of("s", "ipv4_addr", null)).add(Element.ofSet("s", "10.0.0.1")).add(Element.ofSet("s", "10.0.0.2"));
    Transaction second = new Transaction();
    second.flush(Chain.regular("c")).add(new Rule("c", Verdict.ACCEPT)).delete(Element.ofSet("s", "10.0.0.1"));
    NftRuleset t = NftRuleset.replay(IpFamily.IPv4, List.of(first, second));
    assertEquals(List.of(new Rule("c", Verdict.ACCEPT)), t.rules("c"));
    assertEquals(List.of(Element.ofSet("s", "10.0.0.2")), t.elements("s"));
    Transaction bad = new Transaction();
    bad.add(new Rule("missing", Verdict.DROP));
    IllegalStateException e = assertThrows(IllegalStateException.class,
        () -> NftRuleset.replay(IpFamily.IPv4, List.of(bad)));
    assertTrue(e.getMessage().contains("no chain missing"), e.getMessage());
    assertFalse(t.chains().get("c").isBase());
  }
}
