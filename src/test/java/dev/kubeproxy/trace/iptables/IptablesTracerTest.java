package dev.kubeproxy.trace.iptables;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kubeproxy.testutil.tier.Unit;
import dev.kubeproxy.trace.Origin;
import dev.kubeproxy.trace.Packet;
import dev.kubeproxy.trace.Protocol;
import dev.kubeproxy.trace.Step;
import dev.kubeproxy.trace.Trace;
import dev.kubeproxy.trace.Verdict;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The tracer's netfilter semantics on small hand-written rulesets. */
@Unit
class IptablesTracerTest {
  private static final LocalNode NODE = new LocalNode(Set.of("192.168.0.2"), "veth1a2b", "eth0");

  private static Trace trace(String rules, Origin origin, String src, String dst, int port, boolean established) {
    return new IptablesTracer(IptablesRules.parse(rules), NODE)
        .trace(new Packet(origin, src, dst, port, Protocol.TCP, established));
  }

  private static final String SERVICE = """
      *nat
      :PREROUTING ACCEPT [0:0]
      :OUTPUT ACCEPT [0:0]
      :POSTROUTING ACCEPT [0:0]
      :SVC - [0:0]
      :SEP1 - [0:0]
      :SEP2 - [0:0]
      :SEP3 - [0:0]
      :MASQ - [0:0]
      :POST - [0:0]
      -A PREROUTING -j SVC
      -A OUTPUT -j SVC
      -A POSTROUTING -j POST
      -A SVC -d 10.96.0.1/32 -p tcp --dport 80 ! -i veth+ -j MASQ
      -A SVC -d 10.96.0.1/32 -p tcp -m tcp --dport 80 -m statistic --mode random --probability 0.33 -j SEP1
      -A SVC -d 10.96.0.1/32 -p tcp -m multiport --dports 80,443 -m statistic --mode random --probability 0.5 -j SEP2
      -A SVC -d 10.96.0.1/32 -p tcp --dport 80 -j SEP3
      -A SEP1 -p tcp -j DNAT --to-destination 10.0.1.1:8080
      -A SEP2 -p tcp -j DNAT --to-destination 10.0.1.2:8080
      -A SEP3 -p tcp -j DNAT --to-destination 10.0.1.3:8080
      -A MASQ -j MARK --set-xmark 0x4000/0x4000
      -A POST -m mark ! --mark 0x4000/0x4000 -j RETURN
      -A POST -j MASQUERADE --random-fully
      COMMIT
      *filter
      :INPUT ACCEPT [0:0]
      :FORWARD DROP [0:0]
      :OUTPUT ACCEPT [0:0]
      -A FORWARD -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT
      -A FORWARD -m conntrack --ctstate DNAT -d 10.0.0.0/8 -j ACCEPT
      COMMIT
      """;

  @Test
  void everyRandomChoiceIsFollowed() {
    Trace t = trace(SERVICE, Origin.POD, "10.0.0.9", "10.96.0.1", 80, false);
    assertEquals(Set.of("10.0.1.1:8080", "10.0.1.2:8080", "10.0.1.3:8080"), t.dnatTargets());
    assertEquals(Verdict.ACCEPT, t.verdict());
    assertFalse(t.masqueraded(), "from a pod interface: not marked");
  }

  @Test
  void theMarkSetInPreroutingIsMasqueradedInPostrouting() {
    Trace t = trace(SERVICE, Origin.OUTSIDE, "203.0.113.2", "10.96.0.1", 80, false);
    assertTrue(t.masqueraded());
    assertTrue(t.path().contains(new Step("nat/POST", "-A POST -j MASQUERADE --random-fully")), t.path()::toString);
  }

  @Test
  void forwardPolicyDropsWhatNoRuleAccepts() {
    Trace t = trace(SERVICE, Origin.POD, "10.0.0.9", "10.96.0.2", 80, false);
    assertEquals(Verdict.DROP, t.verdict());
    assertEquals(Set.of(), t.dnatTargets());
  }

  @Test
  void anEstablishedPacketSkipsNatAndMatchesItsConntrackState() {
    Trace t = trace(SERVICE, Origin.OUTSIDE, "203.0.113.2", "10.0.1.1", 8080, true);
    assertEquals(Verdict.ACCEPT, t.verdict());
    assertEquals(List.of(new Step("filter/FORWARD",
        "-A FORWARD -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT")), t.path());
  }

  @Test
  void gotoReturnsPastItsChainAndRejectEnds() {
    String rules = """
        *filter
        :OUTPUT ACCEPT [0:0]
        :A - [0:0]
        :B - [0:0]
        -A OUTPUT -g A
        -A OUTPUT -j REJECT
        -A A -j B
        -A A -p udp -j DROP
        -A B -j RETURN
        COMMIT
        """;
    // B returns into A, A falls off its end and, reached by -g, returns past OUTPUT's REJECT to the policy.
    Trace t = trace(rules, Origin.NODE, "192.168.0.2", "198.51.100.7", 443, false);
    assertEquals(Verdict.ACCEPT, t.verdict());
    assertEquals(List.of("-A OUTPUT -g A", "-A A -j B", "-A B -j RETURN"),
        t.path().stream().map(Step::rule).toList());
  }

  @Test
  void nodeOriginatedPacketsForTheNodeComeBackThroughInput() {
    String rules = """
        *filter
        :INPUT ACCEPT [0:0]
        -A INPUT -i lo -m addrtype --dst-type LOCAL -p tcp --dport 22 -j DROP
        COMMIT
        """;
    assertEquals(Verdict.DROP, trace(rules, Origin.NODE, "127.0.0.1", "192.168.0.2", 22, false).verdict());
    assertEquals(Verdict.ACCEPT, trace(rules, Origin.OUTSIDE, "203.0.113.2", "192.168.0.2", 22, false).verdict());
  }

  @Test
  void ipv6DnatTargetsAreBracketed() {
    String rules = """
        *nat
        :PREROUTING ACCEPT [0:0]
        -A PREROUTING -d fd00:96::1 -p tcp --dport 80 -j DNAT --to-destination [fd00:10::5]:8080
        COMMIT
        """;
    Trace t = trace(rules, Origin.POD, "fd00:10::9", "fd00:96::1", 80, false);
    assertEquals(Set.of("[fd00:10::5]:8080"), t.dnatTargets());
  }

  @Test
  void rulesWithMatchesItCannotEvaluateNeverMatchAndAreListed() {
    IptablesRules rules = IptablesRules.parse("""
        *filter
        :INPUT ACCEPT [0:0]
        -A INPUT -m hashlimit --hashlimit-upto 5/sec -j DROP
        COMMIT
        """);
    assertEquals(List.of("-A INPUT -m hashlimit --hashlimit-upto 5/sec -j DROP (match module hashlimit)"), rules.unsupported());
    Trace t = new IptablesTracer(rules, NODE)
        .trace(new Packet(Origin.OUTSIDE, "203.0.113.2", "192.168.0.2", 80, Protocol.TCP, false));
    assertEquals(Verdict.ACCEPT, t.verdict());
  }

  @Test
  void restoreSemanticsFlushDeclaredChainsAndKeepBuiltinOnes() {
    IptablesRules rules = IptablesRules.parse("""
        *filter
        :INPUT ACCEPT [0:0]
        :X - [0:0]
        -A INPUT -j X
        -A X -j DROP
        COMMIT
        """);
    rules.apply("*filter\n:INPUT DROP [0:0]\n:X - [0:0]\n-A X -j ACCEPT\nCOMMIT\n");
    assertEquals(1, rules.chain("filter", "INPUT").size(), "--noflush keeps the built-in chain's rules");
    assertEquals("DROP", rules.policy("filter", "INPUT"));
    assertEquals(List.of("-A X -j ACCEPT"), rules.chain("filter", "X").stream().map(Rule::text).toList());
  }

  @Test
  void badTextIsRefusedNamingTheLine() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> IptablesRules.parse("*filter\n-A NOPE -j DROP\nCOMMIT\n"));
    assertTrue(e.getMessage().contains("line 2") && e.getMessage().contains("no chain NOPE"), e.getMessage());
  }
}
