package dev.kubeproxy.trace.iptables;

import static dev.kubeproxy.testutil.ModelFixtures.ready;
import static dev.kubeproxy.testutil.ModelFixtures.spn;
import static dev.kubeproxy.testutil.ModelFixtures.state;
import static dev.kubeproxy.testutil.ModelFixtures.svc;
import static dev.kubeproxy.trace.iptables.FlowHarness.EXTERNAL_CLIENT;
import static dev.kubeproxy.trace.iptables.FlowHarness.NODE_IP;
import static dev.kubeproxy.trace.iptables.FlowHarness.flow;
import static dev.kubeproxy.trace.iptables.FlowHarness.run;
import static dev.kubeproxy.trace.iptables.FlowHarness.tracer;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kubeproxy.model.LocalTrafficDetector;
import dev.kubeproxy.testutil.tier.Unit;
import dev.kubeproxy.trace.Origin;
import dev.kubeproxy.trace.Packet;
import dev.kubeproxy.trace.Protocol;
import dev.kubeproxy.trace.Trace;
import dev.kubeproxy.trace.Verdict;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/**
 * Flows upstream's tables leave out, over the agent's rules: pod traffic told by interface (the BridgeInterface
 * and InterfaceNamePrefix detectors: the packet's input interface decides), and packets of established
 * connections (no NAT lookup; the conntrack rule accepts them).
 */
@Unit
class AgentRulesFlowTest {
  private static final String BOTH = "10.180.0.2:80, 10.180.1.2:80";

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"BridgeInterface=cni0", "InterfaceNamePrefix=cni"})
  void podTrafficToldByInterface(String detector) {
    String[] mode = detector.split("=");
    var setup = new FlowHarness.Setup().with(s -> s.detector = new LocalTrafficDetector(mode[0], mode[1]));
    var state = state().add(svc(spn("ns2", "svc2", "p80"), "172.30.0.42", 80).nodePort(3002)
        .loadBalancer("5.6.7.8").etpLocal(30002), ready("10.180.0.2", 80, true), ready("10.180.1.2", 80, false));
    run(tracer(setup, state.build()), List.of(
        flow("pod to ClusterIP", "10.0.0.2", "172.30.0.42", 80, BOTH, false),
        flow("external to ClusterIP", EXTERNAL_CLIENT, "172.30.0.42", 80, BOTH, true),
        flow("pod to LB with eTP:Local (short-circuit)", "10.0.0.2", "5.6.7.8", 80, BOTH, false),
        flow("external to LB with eTP:Local", EXTERNAL_CLIENT, "5.6.7.8", 80, "10.180.0.2:80", false),
        flow("node to NodePort with eTP:Local", NODE_IP, NODE_IP, 3002, BOTH, true)));
  }

  /** A new client has no "recent" entry: the affinity rules do not match and every endpoint can be chosen. */
  @Test
  void sessionAffinityLetsANewClientReachEveryEndpoint() {
    var state = state().add(svc(spn("ns5", "svc5", "p80"), "172.30.0.45", 80).loadBalancer("5.6.7.8").affinity(),
        ready("10.180.0.3", 80, false), ready("10.180.0.4", 80, false));
    run(tracer(state.build()), List.of(
        flow("pod to ClusterIP with affinity", "10.0.0.2", "172.30.0.45", 80, "10.180.0.3:80, 10.180.0.4:80", false),
        flow("external to LB with affinity", EXTERNAL_CLIENT, "5.6.7.8", 80, "10.180.0.3:80, 10.180.0.4:80",
            true)));
  }

  @Test
  void establishedPacketsAreAcceptedByTheConntrackRuleWithoutNat() {
    IptablesTracer tracer = tracer(state().add(svc(spn("ns1", "svc1", "p80"), "172.30.0.41", 80).nodePort(3001),
        ready("10.180.0.1", 80, false)).build());
    Trace reply = tracer.trace(new Packet(Origin.OUTSIDE, EXTERNAL_CLIENT, "10.180.0.1", 80, Protocol.TCP, true));
    assertEquals(Verdict.ACCEPT, reply.verdict());
    assertEquals(Set.of(), reply.dnatTargets());
    assertTrue(reply.path().stream().anyMatch(s -> s.chain().equals("filter/KUBE-FORWARD")
        && s.rule().contains("--ctstate RELATED,ESTABLISHED -j ACCEPT")), reply.path()::toString);
    assertTrue(reply.path().stream().noneMatch(s -> s.chain().startsWith("nat/")), reply.path()::toString);
  }
}
