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

import dev.kubeproxy.testutil.tier.Unit;
import dev.kubeproxy.trace.iptables.FlowHarness.Flow;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Upstream's masquerading table (pkg/proxy/iptables/proxier_test.go TestInternalExternalMasquerade): the same 30
 * flows through a Cluster, an eTP:Local and an iTP:Local LoadBalancer Service, with and without a local-traffic
 * detector and --masquerade-all, each case's overrides applied to the base expectations.
 */
@Unit
class UpstreamMasqueradeFlowTest {
  private static final String SVC1 = "10.180.0.1:80, 10.180.1.1:80";
  private static final String SVC2 = "10.180.0.2:80, 10.180.1.2:80";
  private static final String SVC3 = "10.180.0.3:80, 10.180.1.3:80";

  private static List<Flow> baseFlows() {
    return List.of(
        flow("pod to ClusterIP", "10.0.0.2", "172.30.0.41", 80, SVC1, false),
        flow("pod to NodePort", "10.0.0.2", NODE_IP, 3001, SVC1, true),
        flow("pod to LB", "10.0.0.2", "1.2.3.4", 80, SVC1, true),
        flow("node to ClusterIP", NODE_IP, "172.30.0.41", 80, SVC1, true),
        flow("node to NodePort", NODE_IP, NODE_IP, 3001, SVC1, true),
        flow("localhost to NodePort", "127.0.0.1", "127.0.0.1", 3001, SVC1, true),
        flow("node to LB", NODE_IP, "1.2.3.4", 80, SVC1, true),
        flow("external to ClusterIP", EXTERNAL_CLIENT, "172.30.0.41", 80, SVC1, true),
        flow("external to NodePort", EXTERNAL_CLIENT, NODE_IP, 3001, SVC1, true),
        flow("external to LB", EXTERNAL_CLIENT, "1.2.3.4", 80, SVC1, true),
        flow("pod to ClusterIP with eTP:Local", "10.0.0.2", "172.30.0.42", 80, SVC2, false),
        flow("pod to NodePort with eTP:Local", "10.0.0.2", NODE_IP, 3002, SVC2, false),
        flow("pod to LB with eTP:Local", "10.0.0.2", "5.6.7.8", 80, SVC2, false),
        flow("node to ClusterIP with eTP:Local", NODE_IP, "172.30.0.42", 80, SVC2, true),
        flow("node to NodePort with eTP:Local", NODE_IP, NODE_IP, 3001, SVC1, true),
        flow("localhost to NodePort with eTP:Local", "127.0.0.1", "127.0.0.1", 3002, SVC2, true),
        flow("node to LB with eTP:Local", NODE_IP, "5.6.7.8", 80, SVC2, true),
        flow("external to ClusterIP with eTP:Local", EXTERNAL_CLIENT, "172.30.0.42", 80, SVC2, true),
        flow("external to NodePort with eTP:Local", EXTERNAL_CLIENT, NODE_IP, 3002, "10.180.0.2:80", false),
        flow("external to LB with eTP:Local", EXTERNAL_CLIENT, "5.6.7.8", 80, "10.180.0.2:80", false),
        flow("pod to ClusterIP with iTP:Local", "10.0.0.2", "172.30.0.43", 80, "10.180.0.3:80", false),
        flow("pod to NodePort with iTP:Local", "10.0.0.2", NODE_IP, 3003, SVC3, true),
        flow("pod to LB with iTP:Local", "10.0.0.2", "9.10.11.12", 80, SVC3, true),
        flow("node to ClusterIP with iTP:Local", NODE_IP, "172.30.0.43", 80, "10.180.0.3:80", true),
        flow("node to NodePort with iTP:Local", NODE_IP, NODE_IP, 3003, SVC3, true),
        flow("localhost to NodePort with iTP:Local", "127.0.0.1", "127.0.0.1", 3003, SVC3, true),
        flow("node to LB with iTP:Local", NODE_IP, "9.10.11.12", 80, SVC3, true),
        flow("external to ClusterIP with iTP:Local", EXTERNAL_CLIENT, "172.30.0.43", 80, "10.180.0.3:80", true),
        flow("external to NodePort with iTP:Local", EXTERNAL_CLIENT, NODE_IP, 3003, SVC3, true),
        flow("external to LB with iTP:Local", EXTERNAL_CLIENT, "9.10.11.12", 80, SVC3, true));
  }

  /** An override of one base flow: a new output (null: keep) and a new masquerade (null: keep). */
  private record Override(String output, Boolean masq) {}

  private static final Override NO_MASQ = new Override(null, false);
  private static final Override MASQ = new Override(null, true);
  private static final Override LOCAL_ONLY = new Override("10.180.0.2:80", null);

  static Stream<Arguments> cases() {
    return Stream.of(
        Arguments.of("base", false, true, Map.of()),
        Arguments.of("no LocalTrafficDetector", false, false, Map.of(
            "node to ClusterIP", NO_MASQ, "node to ClusterIP with eTP:Local", NO_MASQ,
            "node to ClusterIP with iTP:Local", NO_MASQ, "external to ClusterIP", NO_MASQ,
            "external to ClusterIP with eTP:Local", NO_MASQ, "external to ClusterIP with iTP:Local", NO_MASQ,
            "pod to NodePort with eTP:Local", LOCAL_ONLY, "pod to LB with eTP:Local", LOCAL_ONLY)),
        Arguments.of("masqueradeAll", true, true, Map.of(
            "pod to ClusterIP", MASQ, "pod to ClusterIP with eTP:Local", MASQ, "pod to ClusterIP with iTP:Local",
            MASQ)),
        Arguments.of("masqueradeAll, no LocalTrafficDetector", true, false, Map.of(
            "pod to ClusterIP", MASQ, "pod to ClusterIP with eTP:Local", MASQ, "pod to ClusterIP with iTP:Local",
            MASQ, "pod to NodePort with eTP:Local", LOCAL_ONLY, "pod to LB with eTP:Local", LOCAL_ONLY)));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void internalExternalMasquerade(String name, boolean masqueradeAll, boolean localDetector,
      Map<String, Override> overrides) {
    var state = state()
        .add(svc(spn("ns1", "svc1", "p80"), "172.30.0.41", 80).nodePort(3001).loadBalancer("1.2.3.4"),
            ready("10.180.0.1", 80, true), ready("10.180.1.1", 80, false))
        .add(svc(spn("ns2", "svc2", "p80"), "172.30.0.42", 80).nodePort(3002).loadBalancer("5.6.7.8")
            .etpLocal(30002), ready("10.180.0.2", 80, true), ready("10.180.1.2", 80, false))
        .add(svc(spn("ns3", "svc3", "p80"), "172.30.0.43", 80).nodePort(3003).loadBalancer("9.10.11.12")
            .itpLocal(), ready("10.180.0.3", 80, true), ready("10.180.1.3", 80, false));
    List<Flow> flows = new ArrayList<>();
    int applied = 0;
    for (Flow base : baseFlows()) {
      Override o = overrides.get(base.name());
      Flow f = base;
      if (o != null) {
        applied++;
        f = o.output() != null ? f.withOutput(o.output()) : f;
        f = o.masq() != null ? f.withMasq(o.masq()) : f;
      }
      flows.add(f);
    }
    assertEquals(overrides.size(), applied, "every override names a base flow");
    var setup = new FlowHarness.Setup().with(s -> {
      s.masqueradeAll = masqueradeAll;
      s.localDetector = localDetector;
    });
    run(tracer(setup, state.build()), flows);
  }
}
