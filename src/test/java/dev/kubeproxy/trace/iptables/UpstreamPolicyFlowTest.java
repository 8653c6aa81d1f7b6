package dev.kubeproxy.trace.iptables;

import static dev.kubeproxy.testutil.ModelFixtures.ready;
import static dev.kubeproxy.testutil.ModelFixtures.spn;
import static dev.kubeproxy.testutil.ModelFixtures.state;
import static dev.kubeproxy.testutil.ModelFixtures.svc;
import static dev.kubeproxy.testutil.ModelFixtures.terminating;
import static dev.kubeproxy.trace.iptables.FlowHarness.EXTERNAL_CLIENT;
import static dev.kubeproxy.trace.iptables.FlowHarness.NODE_IP;
import static dev.kubeproxy.trace.iptables.FlowHarness.NODE_IPV6;
import static dev.kubeproxy.trace.iptables.FlowHarness.NODE_IPV6_ALT;
import static dev.kubeproxy.trace.iptables.FlowHarness.NODE_IP_ALT;
import static dev.kubeproxy.trace.iptables.FlowHarness.flow;
import static dev.kubeproxy.trace.iptables.FlowHarness.run;
import static dev.kubeproxy.trace.iptables.FlowHarness.tracer;

import dev.kubeproxy.model.Endpoint;
import dev.kubeproxy.net.IpFamily;
import dev.kubeproxy.testutil.ModelFixtures.Svc;
import dev.kubeproxy.testutil.tier.Unit;
import dev.kubeproxy.trace.iptables.FlowHarness.Flow;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Upstream's table-driven packet-flow tests of NodePort addresses and traffic policies
 * (pkg/proxy/iptables/proxier_test.go TestNodePorts, TestInternalTrafficPolicy,
 * TestTerminatingEndpointsTrafficPolicyLocal, TestTerminatingEndpointsTrafficPolicyCluster), traced through
 * the agent's own rules.
 */
@Unit
class UpstreamPolicyFlowTest {

  static Stream<Arguments> nodePortCases() {
    return Stream.of(
        Arguments.of("ipv4, localhost-nodeports enabled", IpFamily.IPv4, true, List.of(), true),
        Arguments.of("ipv4, localhost-nodeports disabled", IpFamily.IPv4, false, List.of(), true),
        Arguments.of("ipv4, localhost-nodeports disabled, localhost in nodeport-addresses", IpFamily.IPv4, false,
            List.of("192.168.0.0/24", "127.0.0.1/32"), false),
        Arguments.of("ipv4, localhost-nodeports enabled, multiple nodeport-addresses", IpFamily.IPv4, false,
            List.of("192.168.0.0/24", "192.168.1.0/24", "2001:db8::/64"), true),
        Arguments.of("ipv6, localhost-nodeports enabled", IpFamily.IPv6, true, List.of(), true),
        Arguments.of("ipv6, localhost-nodeports disabled", IpFamily.IPv6, false, List.of(), true),
        Arguments.of("ipv6, localhost-nodeports disabled, multiple nodeport-addresses", IpFamily.IPv6, false,
            List.of("192.168.0.0/24", "192.168.1.0/24", "2001:db8::/64"), false));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("nodePortCases")
  void nodePorts(String name, IpFamily family, boolean localhostNodePorts, List<String> nodePortAddresses,
      boolean allowAltNodeIP) {
    boolean v4 = family == IpFamily.IPv4;
    String svcIP = v4 ? "172.30.0.41" : "fd00:172:30::41";
    String ep1 = v4 ? "10.180.0.1" : "fd00:10:180::1";
    String ep2 = v4 ? "10.180.2.1" : "fd00:10:180::2:1";
    var state = state().add(svc(spn("ns1", "svc1", "p80"), svcIP, 80).nodePort(3001),
        ready(ep1, 80, false), ready(ep2, 80, true));
    var setup = new FlowHarness.Setup().with(s -> {
      s.family = family;
      s.localhostNodePorts = localhostNodePorts;
      s.nodePortAddresses = nodePortAddresses;
    });
    String podIP = v4 ? "10.0.0.2" : "fd00:10::2";
    String external = v4 ? EXTERNAL_CLIENT : "2600:5200::1";
    String nodeIP = v4 ? NODE_IP : NODE_IPV6;
    String altNodeIP = v4 ? NODE_IP_ALT : NODE_IPV6_ALT;
    String localhost = v4 ? "127.0.0.1" : "::1";
    String output = v4 ? ep1 + ":80, " + ep2 + ":80" : "[" + ep1 + "]:80, [" + ep2 + "]:80";
    List<Flow> flows = new ArrayList<>(List.of(
        flow("pod to cluster IP", podIP, svcIP, 80, output, false),
        flow("external to nodePort", external, nodeIP, 3001, output, true),
        flow("node to nodePort", nodeIP, nodeIP, 3001, output, true)));
    flows.add(v4 && localhostNodePorts
        ? flow("localhost to nodePort gets masqueraded", localhost, localhost, 3001, output, true)
        : flow("localhost to nodePort is ignored", localhost, localhost, 3001, ""));
    flows.add(allowAltNodeIP
        ? flow("external to nodePort on secondary IP", external, altNodeIP, 3001, output, true)
        : flow("secondary nodeIP ignores NodePorts", external, altNodeIP, 3001, ""));
    run(tracer(setup, state.build()), flows);
  }

  static Stream<Arguments> internalTrafficPolicyCases() {
    return Stream.of(
        Arguments.of("internalTrafficPolicy is cluster", false, List.of(true, false, false),
            "10.0.1.1:80, 10.0.1.2:80, 10.0.1.3:80"),
        Arguments.of("internalTrafficPolicy is local and there is one local endpoint", true,
            List.of(true, false, false), "10.0.1.1:80"),
        Arguments.of("internalTrafficPolicy is local and there are multiple local endpoints", true,
            List.of(true, true, false), "10.0.1.1:80, 10.0.1.2:80"),
        Arguments.of("internalTrafficPolicy is local and there are no local endpoints", true,
            List.of(false, false, false), "DROP"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("internalTrafficPolicyCases")
  void internalTrafficPolicy(String name, boolean itpLocal, List<Boolean> local, String output) {
    Svc service = svc(spn("ns1", "svc1", ""), "172.30.1.1", 80);
    if (itpLocal) {
      service.itpLocal();
    }
    var endpoints = new Endpoint[] {ready("10.0.1.1", 80, local.get(0)), ready("10.0.1.2", 80, local.get(1)),
        ready("10.0.1.3", 80, local.get(2))};
    run(tracer(state().add(service, endpoints).build()), List.of(
        flow("pod to ClusterIP", "10.0.0.2", "172.30.1.1", 80, output)));
    run(tracer(state().add(service).build()), List.of(
        flow("endpoints deleted", "10.0.0.2", "172.30.1.1", 80, "REJECT")));
  }

  static Stream<Arguments> terminatingLocalCases() {
    return Stream.of(
        Arguments.of("ready endpoints exist", List.of(ready("10.0.1.1", 80, true), ready("10.0.1.2", 80, true),
            terminating("10.0.1.3", 80, true, true), terminating("10.0.1.4", 80, true, false),
            ready("10.0.1.5", 80, false)), "10.0.1.1:80, 10.0.1.2:80, 10.0.1.5:80", "10.0.1.1:80, 10.0.1.2:80"),
        Arguments.of("only terminating endpoints exist", List.of(terminating("10.0.1.2", 80, true, true),
            terminating("10.0.1.3", 80, true, true), terminating("10.0.1.4", 80, true, false),
            ready("10.0.1.5", 80, false)), "10.0.1.5:80", "10.0.1.2:80, 10.0.1.3:80"),
        Arguments.of("terminating endpoints on remote node", List.of(terminating("10.0.1.5", 80, false, true)),
            "10.0.1.5:80", "DROP"),
        // Upstream lists 10.0.1.5 twice (on this node and another, neither serving): one endpoint in the model.
        Arguments.of("no usable endpoints on any node", List.of(terminating("10.0.1.5", 80, true, false)),
            "REJECT", "REJECT"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("terminatingLocalCases")
  void terminatingEndpointsTrafficPolicyLocal(String name, List<Endpoint> endpoints, String toClusterIP,
      String toLB) {
    Svc service = svc(spn("ns1", "svc1", ""), "172.30.1.1", 80).loadBalancer("1.2.3.4").etpLocal(30000);
    run(tracer(state().add(service, endpoints.toArray(Endpoint[]::new)).build()), List.of(
        flow("pod to clusterIP", "10.0.0.2", "172.30.1.1", 80, toClusterIP),
        flow("external to LB", EXTERNAL_CLIENT, "1.2.3.4", 80, toLB)));
    runDeleted(service);
  }

  static Stream<Arguments> terminatingClusterCases() {
    return Stream.of(
        Arguments.of("ready endpoints exist", List.of(ready("10.0.1.1", 80, true), ready("10.0.1.2", 80, true),
            terminating("10.0.1.3", 80, false, true), terminating("10.0.1.4", 80, false, false),
            ready("10.0.1.5", 80, false)), "10.0.1.1:80, 10.0.1.2:80, 10.0.1.5:80"),
        Arguments.of("only terminating endpoints exist", List.of(terminating("10.0.1.2", 80, true, true),
            terminating("10.0.1.3", 80, true, true), terminating("10.0.1.4", 80, false, false),
            terminating("10.0.1.5", 80, false, true)), "10.0.1.2:80, 10.0.1.3:80, 10.0.1.5:80"),
        Arguments.of("terminating endpoints on remote node", List.of(terminating("10.0.1.5", 80, false, true)),
            "10.0.1.5:80"),
        Arguments.of("no usable endpoints on any node", List.of(terminating("10.0.1.5", 80, true, false)),
            "REJECT"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("terminatingClusterCases")
  void terminatingEndpointsTrafficPolicyCluster(String name, List<Endpoint> endpoints, String output) {
    Svc service = svc(spn("ns1", "svc1", ""), "172.30.1.1", 80).loadBalancer("1.2.3.4");
    boolean reached = output.contains(":");
    run(tracer(state().add(service, endpoints.toArray(Endpoint[]::new)).build()), List.of(
        flow("pod to clusterIP", "10.0.0.2", "172.30.1.1", 80, output, false),
        flow("external to LB", EXTERNAL_CLIENT, "1.2.3.4", 80, output, reached)));
    runDeleted(service);
  }

  private static void runDeleted(Svc service) {
    run(tracer(state().add(service).build()), List.of(
        flow("pod to clusterIP after endpoints deleted", "10.0.0.2", "172.30.1.1", 80, "REJECT"),
        flow("external to LB after endpoints deleted", EXTERNAL_CLIENT, "1.2.3.4", 80, "REJECT")));
  }
}
