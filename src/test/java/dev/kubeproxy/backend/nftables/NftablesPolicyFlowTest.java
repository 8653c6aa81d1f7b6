package dev.kubeproxy.backend.nftables;

import static dev.kubeproxy.backend.nftables.PacketFlows.EXTERNAL_CLIENT;
import static dev.kubeproxy.backend.nftables.PacketFlows.NODE_IP;
import static dev.kubeproxy.backend.nftables.PacketFlows.flow;
import static dev.kubeproxy.testutil.ModelFixtures.ready;
import static dev.kubeproxy.testutil.ModelFixtures.spn;
import static dev.kubeproxy.testutil.ModelFixtures.svc;
import static dev.kubeproxy.testutil.ModelFixtures.terminating;

import dev.kubeproxy.model.Endpoint;
import dev.kubeproxy.net.IpFamily;
import dev.kubeproxy.model.ServicePortName;
import dev.kubeproxy.backend.nftables.PacketFlows.Flow;
import dev.kubeproxy.testutil.ModelFixtures;
import dev.kubeproxy.testutil.tier.Unit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * Upstream's packet-flow tables of traffic policies and endpoint states in
 * pkg/proxy/nftables/proxier_test.go (TestInternalTrafficPolicy,
 * TestTerminatingEndpointsTrafficPolicyLocal, TestTerminatingEndpointsTrafficPolicyCluster,
 * TestInternalExternalMasquerade), traced through the table the agent programs.
 */
@Unit
class NftablesPolicyFlowTest {
  private static final String POD = "10.0.0.2";
  private static final ServicePortName SVC1 = spn("ns1", "svc1", "");

  private static Endpoint notServing(String ip, boolean local) {
    return terminating(ip, 80, local, false);
  }

  // TestInternalTrafficPolicy: each case, then the same Service with its endpoints deleted.

  @TestFactory
  Stream<DynamicTest> internalTrafficPolicy() {
    return Stream.of(
        itp("internalTrafficPolicy is cluster", false,
            new Endpoint[] {ready("10.0.1.1", 80, true), ready("10.0.1.2", 80, false), ready("10.0.1.3", 80, false)},
            flow("pod to ClusterIP hits all endpoints", POD, "172.30.1.1", 80, "10.0.1.1:80, 10.0.1.2:80, 10.0.1.3:80")),
        itp("internalTrafficPolicy is local and there is one local endpoint", true,
            new Endpoint[] {ready("10.0.1.1", 80, true), ready("10.0.1.2", 80, false), ready("10.0.1.3", 80, false)},
            flow("pod to ClusterIP hits only local endpoint", POD, "172.30.1.1", 80, "10.0.1.1:80")),
        itp("internalTrafficPolicy is local and there are multiple local endpoints", true,
            new Endpoint[] {ready("10.0.1.1", 80, true), ready("10.0.1.2", 80, true), ready("10.0.1.3", 80, false)},
            flow("pod to ClusterIP hits all local endpoints", POD, "172.30.1.1", 80, "10.0.1.1:80, 10.0.1.2:80")),
        itp("internalTrafficPolicy is local and there are no local endpoints", true,
            new Endpoint[] {ready("10.0.1.1", 80, false), ready("10.0.1.2", 80, false), ready("10.0.1.3", 80, false)},
            flow("no endpoints", POD, "172.30.1.1", 80, "DROP")))
        .flatMap(s -> s);
  }

  private static Stream<DynamicTest> itp(String name, boolean local, Endpoint[] endpoints, Flow flow) {
    PacketFlows.Node n = new PacketFlows.Node(PacketFlows.settings(IpFamily.IPv4));
    ModelFixtures.Svc s = svc(SVC1, "172.30.1.1", 80);
    n.model.put(local ? s.itpLocal() : s, endpoints);
    Stream<DynamicTest> first = n.flows("TestInternalTrafficPolicy/" + name, List.of(flow));
    n.model.endpoints(SVC1);
    Stream<DynamicTest> deleted = n.flows("TestInternalTrafficPolicy/" + name,
        List.of(flow("endpoints deleted", POD, "172.30.1.1", 80, "REJECT")));
    return Stream.concat(first, deleted);
  }

  // TestTerminatingEndpointsTrafficPolicyLocal / Cluster: a LoadBalancer Service (no NodePort), each
  // case, then its endpoints deleted.

  @TestFactory
  Stream<DynamicTest> terminatingEndpointsTrafficPolicyLocal() {
    String t = "TestTerminatingEndpointsTrafficPolicyLocal/";
    return Stream.of(
        terminatingCase(t + "ready endpoints exist", true,
            new Endpoint[] {ready("10.0.1.1", 80, true), ready("10.0.1.2", 80, true), terminating("10.0.1.3", 80, true),
                notServing("10.0.1.4", true), ready("10.0.1.5", 80, false)},
            flow("pod to clusterIP", POD, "172.30.1.1", 80, "10.0.1.1:80, 10.0.1.2:80, 10.0.1.5:80"),
            flow("external to LB", EXTERNAL_CLIENT, "1.2.3.4", 80, "10.0.1.1:80, 10.0.1.2:80")),
        terminatingCase(t + "only terminating endpoints exist", true,
            new Endpoint[] {terminating("10.0.1.2", 80, true), terminating("10.0.1.3", 80, true),
                notServing("10.0.1.4", true), ready("10.0.1.5", 80, false)},
            flow("pod to clusterIP", POD, "172.30.1.1", 80, "10.0.1.5:80"),
            flow("external to LB", EXTERNAL_CLIENT, "1.2.3.4", 80, "10.0.1.2:80, 10.0.1.3:80")),
        terminatingCase(t + "terminating endpoints on remote node", true,
            new Endpoint[] {terminating("10.0.1.5", 80, false)},
            flow("pod to clusterIP", POD, "172.30.1.1", 80, "10.0.1.5:80"),
            flow("external to LB, no locally-usable endpoints", EXTERNAL_CLIENT, "1.2.3.4", 80, "DROP")),
        // Upstream lists 10.0.1.5 twice (local, then remote), neither serving; the model keeps one.
        terminatingCase(t + "no usable endpoints on any node", true,
            new Endpoint[] {notServing("10.0.1.5", true)},
            flow("pod to clusterIP, no usable endpoints", POD, "172.30.1.1", 80, "REJECT"),
            flow("external to LB, no usable endpoints", EXTERNAL_CLIENT, "1.2.3.4", 80, "REJECT")))
        .flatMap(s -> s);
  }

  @TestFactory
  Stream<DynamicTest> terminatingEndpointsTrafficPolicyCluster() {
    String t = "TestTerminatingEndpointsTrafficPolicyCluster/";
    return Stream.of(
        terminatingCase(t + "ready endpoints exist", false,
            new Endpoint[] {ready("10.0.1.1", 80, true), ready("10.0.1.2", 80, true),
                terminating("10.0.1.3", 80, false), notServing("10.0.1.4", false), ready("10.0.1.5", 80, false)},
            flow("pod to clusterIP", POD, "172.30.1.1", 80, "10.0.1.1:80, 10.0.1.2:80, 10.0.1.5:80"),
            flow("external to LB", EXTERNAL_CLIENT, "1.2.3.4", 80, "10.0.1.1:80, 10.0.1.2:80, 10.0.1.5:80", true)),
        terminatingCase(t + "only terminating endpoints exist", false,
            new Endpoint[] {terminating("10.0.1.2", 80, true), terminating("10.0.1.3", 80, true),
                notServing("10.0.1.4", false), terminating("10.0.1.5", 80, false)},
            flow("pod to clusterIP", POD, "172.30.1.1", 80, "10.0.1.2:80, 10.0.1.3:80, 10.0.1.5:80"),
            flow("external to LB", EXTERNAL_CLIENT, "1.2.3.4", 80, "10.0.1.2:80, 10.0.1.3:80, 10.0.1.5:80", true)),
        terminatingCase(t + "terminating endpoints on remote node", false,
            new Endpoint[] {terminating("10.0.1.5", 80, false)},
            flow("pod to clusterIP", POD, "172.30.1.1", 80, "10.0.1.5:80"),
            flow("external to LB", EXTERNAL_CLIENT, "1.2.3.4", 80, "10.0.1.5:80", true)),
        terminatingCase(t + "no usable endpoints on any node", false,
            new Endpoint[] {notServing("10.0.1.5", true)},
            flow("pod to clusterIP", POD, "172.30.1.1", 80, "REJECT"),
            flow("external to LB", EXTERNAL_CLIENT, "1.2.3.4", 80, "REJECT")))
        .flatMap(s -> s);
  }

  private static Stream<DynamicTest> terminatingCase(String name, boolean etpLocal, Endpoint[] endpoints,
      Flow... flows) {
    PacketFlows.Node n = new PacketFlows.Node(PacketFlows.settings(IpFamily.IPv4));
    ModelFixtures.Svc s = svc(SVC1, "172.30.1.1", 80).loadBalancer("1.2.3.4");
    n.model.put(etpLocal ? s.etpLocal(30000) : s, endpoints);
    Stream<DynamicTest> first = n.flows(name, List.of(flows));
    n.model.endpoints(SVC1);
    Stream<DynamicTest> deleted = n.flows(name, List.of(
        flow("pod to clusterIP after endpoints deleted", POD, "172.30.1.1", 80, "REJECT"),
        flow("external to LB after endpoints deleted", EXTERNAL_CLIENT, "1.2.3.4", 80, "REJECT")));
    return Stream.concat(first, deleted);
  }

  // TestInternalExternalMasquerade: the same flows under four settings, with upstream's overrides.

  private static final List<Flow> MASQUERADE_FLOWS = List.of(
      flow("pod to ClusterIP", POD, "172.30.0.41", 80, "10.180.0.1:80, 10.180.1.1:80"),
      flow("pod to NodePort", POD, NODE_IP, 3001, "10.180.0.1:80, 10.180.1.1:80", true),
      flow("pod to LB", POD, "1.2.3.4", 80, "10.180.0.1:80, 10.180.1.1:80", true),
      flow("node to ClusterIP", NODE_IP, "172.30.0.41", 80, "10.180.0.1:80, 10.180.1.1:80", true),
      flow("node to NodePort", NODE_IP, NODE_IP, 3001, "10.180.0.1:80, 10.180.1.1:80", true),
      flow("node to LB", NODE_IP, "1.2.3.4", 80, "10.180.0.1:80, 10.180.1.1:80", true),
      flow("external to ClusterIP", EXTERNAL_CLIENT, "172.30.0.41", 80, "10.180.0.1:80, 10.180.1.1:80", true),
      flow("external to NodePort", EXTERNAL_CLIENT, NODE_IP, 3001, "10.180.0.1:80, 10.180.1.1:80", true),
      flow("external to LB", EXTERNAL_CLIENT, "1.2.3.4", 80, "10.180.0.1:80, 10.180.1.1:80", true),
      flow("pod to ClusterIP with eTP:Local", POD, "172.30.0.42", 80, "10.180.0.2:80, 10.180.1.2:80"),
      flow("pod to NodePort with eTP:Local", POD, NODE_IP, 3002, "10.180.0.2:80, 10.180.1.2:80"),
      flow("pod to LB with eTP:Local", POD, "5.6.7.8", 80, "10.180.0.2:80, 10.180.1.2:80"),
      flow("node to ClusterIP with eTP:Local", NODE_IP, "172.30.0.42", 80, "10.180.0.2:80, 10.180.1.2:80", true),
      // Upstream's case sends to 3001 (svc1's NodePort), as here.
      flow("node to NodePort with eTP:Local", NODE_IP, NODE_IP, 3001, "10.180.0.1:80, 10.180.1.1:80", true),
      flow("node to LB with eTP:Local", NODE_IP, "5.6.7.8", 80, "10.180.0.2:80, 10.180.1.2:80", true),
      flow("external to ClusterIP with eTP:Local", EXTERNAL_CLIENT, "172.30.0.42", 80,
          "10.180.0.2:80, 10.180.1.2:80", true),
      flow("external to NodePort with eTP:Local", EXTERNAL_CLIENT, NODE_IP, 3002, "10.180.0.2:80"),
      flow("external to LB with eTP:Local", EXTERNAL_CLIENT, "5.6.7.8", 80, "10.180.0.2:80"),
      flow("pod to ClusterIP with iTP:Local", POD, "172.30.0.43", 80, "10.180.0.3:80"),
      flow("pod to NodePort with iTP:Local", POD, NODE_IP, 3003, "10.180.0.3:80, 10.180.1.3:80", true),
      flow("pod to LB with iTP:Local", POD, "9.10.11.12", 80, "10.180.0.3:80, 10.180.1.3:80", true),
      flow("node to ClusterIP with iTP:Local", NODE_IP, "172.30.0.43", 80, "10.180.0.3:80", true),
      flow("node to NodePort with iTP:Local", NODE_IP, NODE_IP, 3003, "10.180.0.3:80, 10.180.1.3:80", true),
      flow("node to LB with iTP:Local", NODE_IP, "9.10.11.12", 80, "10.180.0.3:80, 10.180.1.3:80", true),
      flow("external to ClusterIP with iTP:Local", EXTERNAL_CLIENT, "172.30.0.43", 80, "10.180.0.3:80", true),
      flow("external to NodePort with iTP:Local", EXTERNAL_CLIENT, NODE_IP, 3003, "10.180.0.3:80, 10.180.1.3:80",
          true),
      flow("external to LB with iTP:Local", EXTERNAL_CLIENT, "9.10.11.12", 80, "10.180.0.3:80, 10.180.1.3:80", true));

  @TestFactory
  Stream<DynamicTest> internalExternalMasquerade() {
    Map<String, UnaryOperator<Flow>> noDetector = new HashMap<>();
    // With no LocalTrafficDetector all ClusterIP traffic is taken for pod traffic (not masqueraded)...
    for (String f : List.of("node to ClusterIP", "node to ClusterIP with eTP:Local", "node to ClusterIP with iTP:Local",
        "external to ClusterIP", "external to ClusterIP with eTP:Local", "external to ClusterIP with iTP:Local")) {
      noDetector.put(f, x -> x.withMasq(false));
    }
    // ...and pods get no eTP:Local short-circuit, so only the local endpoints.
    noDetector.put("pod to NodePort with eTP:Local", x -> x.withOutput("10.180.0.2:80"));
    noDetector.put("pod to LB with eTP:Local", x -> x.withOutput("10.180.0.2:80"));
    Map<String, UnaryOperator<Flow>> masqueradeAll = new HashMap<>();
    for (String f : List.of("pod to ClusterIP", "pod to ClusterIP with eTP:Local", "pod to ClusterIP with iTP:Local")) {
      masqueradeAll.put(f, x -> x.withMasq(true));
    }
    Map<String, UnaryOperator<Flow>> both = new HashMap<>(masqueradeAll);
    both.put("pod to NodePort with eTP:Local", noDetector.get("pod to NodePort with eTP:Local"));
    both.put("pod to LB with eTP:Local", noDetector.get("pod to LB with eTP:Local"));
    return Stream.of(
        masquerade("base", false, true, Map.of()),
        masquerade("no LocalTrafficDetector", false, false, noDetector),
        masquerade("masqueradeAll", true, true, masqueradeAll),
        masquerade("masqueradeAll, no LocalTrafficDetector", true, false, both))
        .flatMap(s -> s);
  }

  private static Stream<DynamicTest> masquerade(String name, boolean masqueradeAll, boolean localDetector,
      Map<String, UnaryOperator<Flow>> overrides) {
    PacketFlows.Node n = new PacketFlows.Node(PacketFlows.settings(IpFamily.IPv4, masqueradeAll, localDetector, null));
    n.model.put(svc(spn("ns1", "svc1", "p80"), "172.30.0.41", 80).nodePort(3001).loadBalancer("1.2.3.4"),
        ready("10.180.0.1", 80, true), ready("10.180.1.1", 80, false));
    n.model.put(svc(spn("ns2", "svc2", "p80"), "172.30.0.42", 80).nodePort(3002).loadBalancer("5.6.7.8")
        .etpLocal(30002), ready("10.180.0.2", 80, true), ready("10.180.1.2", 80, false));
    n.model.put(svc(spn("ns3", "svc3", "p80"), "172.30.0.43", 80).nodePort(3003).loadBalancer("9.10.11.12")
        .itpLocal(), ready("10.180.0.3", 80, true), ready("10.180.1.3", 80, false));
    List<Flow> flows = new ArrayList<>();
    int applied = 0;
    for (Flow f : MASQUERADE_FLOWS) {
      UnaryOperator<Flow> o = overrides.get(f.name());
      if (o != null) {
        applied++;
        Flow changed = o.apply(f);
        if (changed.equals(f)) {
          throw new IllegalStateException(name + ": the override of " + f.name() + " changes nothing");
        }
        f = changed;
      }
      flows.add(f);
    }
    if (applied != overrides.size()) {
      throw new IllegalStateException(name + ": " + (overrides.size() - applied) + " overrides name no flow");
    }
    return n.flows("TestInternalExternalMasquerade/" + name, flows);
  }
}
