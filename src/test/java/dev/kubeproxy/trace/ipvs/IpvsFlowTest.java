package dev.kubeproxy.trace.ipvs;

import static dev.kubeproxy.testutil.ModelFixtures.ready;
import static dev.kubeproxy.testutil.ModelFixtures.spn;
import static dev.kubeproxy.testutil.ModelFixtures.state;
import static dev.kubeproxy.testutil.ModelFixtures.svc;
import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.kubeproxy.backend.ipvs.IpSets;
import dev.kubeproxy.backend.ipvs.IpvsReadBack;
import dev.kubeproxy.backend.ipvs.IpvsRuleset;
import dev.kubeproxy.backend.ipvs.IpvsRulesetGenerator;
import dev.kubeproxy.backend.ipvs.IpvsRulesetOptions;
import dev.kubeproxy.model.LocalTrafficDetector;
import dev.kubeproxy.model.ProxyState;
import dev.kubeproxy.net.IpFamily;
import dev.kubeproxy.testutil.tier.Unit;
import dev.kubeproxy.trace.Origin;
import dev.kubeproxy.trace.Packet;
import dev.kubeproxy.trace.Protocol;
import dev.kubeproxy.trace.Step;
import dev.kubeproxy.trace.Trace;
import dev.kubeproxy.trace.iptables.LocalNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/**
 * Packet flows through ipvs mode's own state (virtual servers, kube-ipvs0 addresses, ipsets, iptables rules),
 * with upstream's test conventions (pkg/proxy/iptables/proxier_test.go: pods 10.0.0.0/8, node 192.168.0.2,
 * external client 203.0.113.2, source range 203.0.113.0/25). Upstream has no packet-flow tables for ipvs mode;
 * these are the iptables tables' flows where ipvs mode means the same.
 */
@Unit
class IpvsFlowTest {
  private static final String NODE_IP = "192.168.0.2";
  private static final String EXTERNAL = "203.0.113.2";
  private static final String BLOCKED = "203.0.113.130";
  private static final LocalNode NODE = new LocalNode(Set.of(NODE_IP), "cni0", "eth0");

  private static IpvsTracer tracer(ProxyState state) {
    IpvsRulesetOptions options = new IpvsRulesetOptions(IpFamily.IPv4, "rr", false, "0x00004000",
        new LocalTrafficDetector("ClusterCIDR", "10.0.0.0/8"), true, NODE_IP, List.of(NODE_IP), Set.of(NODE_IP));
    IpvsRuleset ruleset = new IpvsRulesetGenerator().generate(options, state);
    // in the tools' own texts, as the agent hands them to explain
    return IpvsTracer.of(IpvsReadBack.fromDryRun(ruleset, IpSets.all(IpFamily.IPv4)), NODE);
  }

  private record Flow(String name, Origin origin, String source, String destination, int port, String output,
      boolean masq) {}

  private static Flow flow(String name, Origin origin, String source, String destination, int port, String output,
      boolean masq) {
    return new Flow(name, origin, source, destination, port, output, masq);
  }

  private static void run(IpvsTracer tracer, List<Flow> flows) {
    List<Executable> checks = new ArrayList<>();
    for (Flow f : flows) {
      Trace t = tracer.trace(new Packet(f.origin(), f.source(), f.destination(), f.port(), Protocol.TCP, false));
      String output = t.dnatTargets().isEmpty() ? t.verdict().name() : String.join(", ", t.dnatTargets());
      checks.add(() -> assertEquals(f.output() + " masq=" + f.masq(), output + " masq=" + t.masqueraded(),
          () -> f.name() + " by\n" + t.path().stream().map(Step::toString).collect(Collectors.joining("\n"))));
    }
    assertAll(checks);
  }

  @Test
  void clusterIPAndNodePort() {
    var state = state().add(svc(spn("ns1", "svc1", "p80"), "172.30.0.41", 80).nodePort(3001),
        ready("10.180.0.1", 80, true), ready("10.180.2.1", 80, false));
    String both = "10.180.0.1:80, 10.180.2.1:80";
    run(tracer(state.build()), List.of(
        flow("pod to cluster IP", Origin.POD, "10.0.0.2", "172.30.0.41", 80, both, false),
        flow("hairpin to cluster IP", Origin.POD, "10.180.0.1", "172.30.0.41", 80, both, true),
        flow("node to cluster IP", Origin.NODE, NODE_IP, "172.30.0.41", 80, both, true),
        flow("external to cluster IP", Origin.OUTSIDE, EXTERNAL, "172.30.0.41", 80, both, true),
        flow("external to nodePort", Origin.OUTSIDE, EXTERNAL, NODE_IP, 3001, both, true),
        flow("pod to nodePort", Origin.POD, "10.0.0.2", NODE_IP, 3001, both, true),
        flow("cluster IP on a port without a service", Origin.POD, "10.0.0.2", "172.30.0.41", 81, "REJECT", false),
        flow("nodePort of no service", Origin.OUTSIDE, EXTERNAL, NODE_IP, 3999, "ACCEPT", false)));
  }

  @Test
  void loadBalancerWithSourceRangesAndLocalPolicy() {
    var state = state()
        .add(svc(spn("ns1", "svc1", "p80"), "172.30.0.41", 80).nodePort(3001).loadBalancer("1.2.3.4")
            .sourceRanges("203.0.113.0/25"), ready("10.180.0.1", 80, false))
        .add(svc(spn("ns2", "svc2", "p80"), "172.30.0.42", 80).nodePort(3002).loadBalancer("5.6.7.8")
            .externalIPs("192.168.99.22").etpLocal(30002), ready("10.180.0.2", 80, true),
            ready("10.180.1.2", 80, false));
    run(tracer(state.build()), List.of(
        flow("accepted external to LB", Origin.OUTSIDE, EXTERNAL, "1.2.3.4", 80, "10.180.0.1:80", true),
        flow("blocked external to LB", Origin.OUTSIDE, BLOCKED, "1.2.3.4", 80, "DROP", false),
        flow("nodePort bypasses LoadBalancerSourceRanges", Origin.OUTSIDE, BLOCKED, NODE_IP, 3001, "10.180.0.1:80",
            true),
        flow("external to LB with eTP:Local hits the local endpoint", Origin.OUTSIDE, EXTERNAL, "5.6.7.8", 80,
            "10.180.0.2:80", false),
        flow("external to NodePort with eTP:Local hits the local endpoint", Origin.OUTSIDE, EXTERNAL, NODE_IP, 3002,
            "10.180.0.2:80", false),
        flow("external to external IP with eTP:Local", Origin.OUTSIDE, EXTERNAL, "192.168.99.22", 80,
            "10.180.0.2:80", false),
        flow("pod to cluster IP with eTP:Local hits both", Origin.POD, "10.0.0.2", "172.30.0.42", 80,
            "10.180.0.2:80, 10.180.1.2:80", false)));
  }

  @Test
  void aServiceWithoutEndpointsRefusesConnections() {
    var state = state().add(svc(spn("ns1", "svc1", "p80"), "172.30.0.41", 80).nodePort(3001));
    run(tracer(state.build()), List.of(
        flow("pod to cluster IP with no endpoints", Origin.POD, "10.0.0.2", "172.30.0.41", 80, "REJECT", false),
        flow("external to NodePort with no endpoints", Origin.OUTSIDE, EXTERNAL, NODE_IP, 3001, "REJECT", false)));
  }
}
