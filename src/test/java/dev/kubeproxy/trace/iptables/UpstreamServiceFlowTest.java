package dev.kubeproxy.trace.iptables;

import static dev.kubeproxy.testutil.ModelFixtures.ready;
import static dev.kubeproxy.testutil.ModelFixtures.spn;
import static dev.kubeproxy.testutil.ModelFixtures.state;
import static dev.kubeproxy.testutil.ModelFixtures.svc;
import static dev.kubeproxy.trace.iptables.FlowHarness.EXTERNAL_CLIENT;
import static dev.kubeproxy.trace.iptables.FlowHarness.EXTERNAL_CLIENT_BLOCKED;
import static dev.kubeproxy.trace.iptables.FlowHarness.NODE_IP;
import static dev.kubeproxy.trace.iptables.FlowHarness.flow;
import static dev.kubeproxy.trace.iptables.FlowHarness.run;
import static dev.kubeproxy.trace.iptables.FlowHarness.tracer;

import dev.kubeproxy.testutil.tier.Unit;
import dev.kubeproxy.trace.Protocol;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Upstream's packet-flow tables for Service kinds (pkg/proxy/iptables/proxier_test.go TestTracePacket over the
 * Services of TestOverallIPTablesRules, TestNoEndpointsReject,
 * TestClusterIPGeneral, TestLoadBalancer, TestHealthCheckNodePort, TestExternalTrafficPolicyLocal,
 * TestExternalTrafficPolicyCluster), traced through the agent's own rules.
 */
@Unit
class UpstreamServiceFlowTest {

  /** TestTracePacket's flows; its static rules are those of TestOverallIPTablesRules' Services. */
  @Test
  void tracePacketOverTheOverallServices() {
    var state = state()
        .add(svc(spn("ns1", "svc1", "p80"), "172.30.0.41", 80), ready("10.180.0.1", 80, false))
        .add(svc(spn("ns2", "svc2", "p80"), "172.30.0.42", 80).nodePort(3001).loadBalancer("1.2.3.4")
            .externalIPs("192.168.99.22").etpLocal(30000), ready("10.180.0.2", 80, false))
        .add(svc(spn("ns3", "svc3", "p80"), "172.30.0.43", 80).nodePort(3003), ready("10.180.0.3", 80, false))
        .add(svc(spn("ns4", "svc4", "p80"), "172.30.0.44", 80).externalIPs("192.168.99.33"),
            ready("10.180.0.4", 80, false), ready("10.180.0.5", 80, true))
        .add(svc(spn("ns5", "svc5", "p80"), "172.30.0.45", 80).nodePort(3002).loadBalancer("5.6.7.8")
            .sourceRanges(" 203.0.113.0/25").affinity(10800), ready("10.180.0.3", 80, false))
        .add(svc(spn("ns6", "svc6", "p80"), "172.30.0.46", 80));
    run(tracer(state.build()), List.of(
        flow("no match", "10.0.0.2", "10.0.0.3", 80, ""),
        flow("single endpoint", "10.0.0.2", "172.30.0.41", 80, "10.180.0.1:80"),
        flow("multiple endpoints", "10.0.0.2", "172.30.0.44", 80, "10.180.0.4:80, 10.180.0.5:80"),
        flow("LOCAL, KUBE-MARK-MASQ", NODE_IP, "192.168.99.22", 80, "10.180.0.2:80", true),
        flow("DROP", EXTERNAL_CLIENT, "192.168.99.22", 80, "DROP"),
        flow("ACCEPT (NodePortHealthCheck)", NODE_IP, NODE_IP, 30000, "ACCEPT"),
        flow("REJECT", "10.0.0.2", "172.30.0.46", 80, "REJECT")));
  }

  @Test
  void noEndpointsReject() {
    var state = state().add(svc(spn("ns1", "svc1", "p80"), "172.30.0.41", 80).nodePort(3001)
        .externalIPs("192.168.99.11").loadBalancer("1.2.3.4"));
    run(tracer(state.build()), List.of(
        flow("pod to cluster IP with no endpoints", "10.0.0.2", "172.30.0.41", 80, "REJECT"),
        flow("external to external IP with no endpoints", EXTERNAL_CLIENT, "192.168.99.11", 80, "REJECT"),
        flow("pod to NodePort with no endpoints", "10.0.0.2", NODE_IP, 3001, "REJECT"),
        flow("external to NodePort with no endpoints", EXTERNAL_CLIENT, NODE_IP, 3001, "REJECT"),
        flow("pod to LoadBalancer IP with no endpoints", "10.0.0.2", "1.2.3.4", 80, "REJECT"),
        flow("external to LoadBalancer IP with no endpoints", EXTERNAL_CLIENT, "1.2.3.4", 80, "REJECT")));
  }

  @Test
  void clusterIPGeneral() {
    var state = state()
        .add(svc(spn("ns1", "svc1", "http"), "172.30.0.41", 80), ready("10.180.0.1", 80, true))
        .add(svc(spn("ns2", "svc2", "http"), "172.30.0.42", 80),
            ready("10.180.0.1", 80, true), ready("10.180.2.1", 80, false))
        .add(svc(spn("ns2", "svc2", "https"), "172.30.0.42", 443),
            ready("10.180.0.1", 8443, true), ready("10.180.2.1", 8443, false))
        .add(svc(spn("ns2", "svc2", "dns-udp", "UDP"), "172.30.0.42", 53),
            ready("10.180.0.1", 53, true), ready("10.180.2.1", 53, false))
        .add(svc(spn("ns2", "svc2", "dns-tcp"), "172.30.0.42", 53),
            ready("10.180.0.1", 5353, true), ready("10.180.2.1", 5353, false))
        .add(svc(spn("ns2", "svc2", "dns-sctp", "SCTP"), "172.30.0.42", 53),
            ready("10.180.0.1", 53, true), ready("10.180.2.1", 53, false));
    run(tracer(state.build()), List.of(
        flow("simple clusterIP", "10.180.0.2", "172.30.0.41", 80, "10.180.0.1:80", false),
        flow("hairpin to cluster IP", "10.180.0.1", "172.30.0.41", 80, "10.180.0.1:80", true),
        flow("clusterIP with multiple endpoints", "10.180.0.2", "172.30.0.42", 80, "10.180.0.1:80, 10.180.2.1:80"),
        flow("clusterIP with TargetPort", "10.180.0.2", "172.30.0.42", 443, "10.180.0.1:8443, 10.180.2.1:8443"),
        flow("clusterIP with TCP, UDP, and SCTP on same port (TCP)", "10.180.0.2", Protocol.TCP, "172.30.0.42", 53,
            "10.180.0.1:5353, 10.180.2.1:5353"),
        flow("clusterIP with TCP, UDP, and SCTP on same port (UDP)", "10.180.0.2", Protocol.UDP, "172.30.0.42", 53,
            "10.180.0.1:53, 10.180.2.1:53"),
        flow("clusterIP with TCP, UDP, and SCTP on same port (SCTP)", "10.180.0.2", Protocol.SCTP, "172.30.0.42",
            53, "10.180.0.1:53, 10.180.2.1:53"),
        flow("TCP-only port does not match UDP traffic", "10.180.0.2", Protocol.UDP, "172.30.0.42", 80, ""),
        flow("svc1 does not accept svc2's ports", "10.180.0.2", "172.30.0.41", 443, "")));
  }

  @Test
  void loadBalancer() {
    var state = state().add(svc(spn("ns1", "svc1", "p80"), "172.30.0.41", 80).nodePort(3001)
        .loadBalancer("1.2.3.4", "5.6.7.8").sourceRanges("192.168.0.0/24", " 203.0.113.0/25"),
        ready("10.180.0.1", 80, false));
    String ep = "10.180.0.1:80";
    run(tracer(state.build()), List.of(
        flow("pod to cluster IP", "10.0.0.2", "172.30.0.41", 80, ep, false),
        flow("external to nodePort", EXTERNAL_CLIENT, NODE_IP, 3001, ep, true),
        flow("nodePort bypasses LoadBalancerSourceRanges", EXTERNAL_CLIENT_BLOCKED, NODE_IP, 3001, ep, true),
        flow("accepted external to LB1", EXTERNAL_CLIENT, "1.2.3.4", 80, ep, true),
        flow("accepted external to LB2", EXTERNAL_CLIENT, "5.6.7.8", 80, ep, true),
        flow("blocked external to LB1", EXTERNAL_CLIENT_BLOCKED, "1.2.3.4", 80, "DROP"),
        flow("blocked external to LB2", EXTERNAL_CLIENT_BLOCKED, "5.6.7.8", 80, "DROP"),
        flow("pod to LB1 (blocked by LoadBalancerSourceRanges)", "10.0.0.2", "1.2.3.4", 80, "DROP"),
        flow("pod to LB2 (blocked by LoadBalancerSourceRanges)", "10.0.0.2", "5.6.7.8", 80, "DROP"),
        flow("node to LB1 (allowed by LoadBalancerSourceRanges)", NODE_IP, "1.2.3.4", 80, ep, true),
        flow("node to LB2 (allowed by LoadBalancerSourceRanges)", NODE_IP, "5.6.7.8", 80, ep, true),
        flow("same node to LB1, SNATted to LB1 (implicitly allowed)", "1.2.3.4", "1.2.3.4", 80, ep, true),
        flow("same node to LB2, SNATted to LB2 (implicitly allowed)", "5.6.7.8", "5.6.7.8", 80, ep, true)));
  }

  @Test
  void healthCheckNodePort() {
    var service = svc(spn("ns1", "svc1", "p80"), "172.30.0.42", 80).nodePort(3001).etpLocal(30000);
    FlowHarness.Setup setup = new FlowHarness.Setup().with(s -> s.nodePortAddresses = List.of("127.0.0.0/8"));
    run(tracer(setup, state().add(service).build()), List.of(
        flow("firewall accepts HealthCheckNodePort", "1.2.3.4", NODE_IP, 30000, "ACCEPT")));
    run(tracer(setup, state().build()), List.of(
        flow("HealthCheckNodePort no longer has any rule", "1.2.3.4", NODE_IP, 30000, "")));
  }

  @Test
  void externalTrafficPolicyLocal() {
    var state = state().add(svc(spn("ns1", "svc1", "p80"), "172.30.0.41", 80).nodePort(3001)
        .externalIPs("192.168.99.11").loadBalancer("1.2.3.4").etpLocal(30000),
        ready("10.180.0.1", 80, false), ready("10.180.2.1", 80, true));
    String both = "10.180.0.1:80, 10.180.2.1:80";
    String local = "10.180.2.1:80";
    run(tracer(state.build()), List.of(
        flow("pod to cluster IP hits both endpoints, unmasqueraded", "10.0.0.2", "172.30.0.41", 80, both),
        flow("pod to external IP hits both endpoints, unmasqueraded", "10.0.0.2", "192.168.99.11", 80, both),
        flow("external to external IP hits only local endpoint, unmasqueraded", EXTERNAL_CLIENT, "192.168.99.11", 80,
            local),
        flow("pod to LB IP hits only both endpoints, unmasqueraded", "10.0.0.2", "1.2.3.4", 80, both),
        flow("external to LB IP hits only local endpoint, unmasqueraded", EXTERNAL_CLIENT, "1.2.3.4", 80, local),
        flow("pod to NodePort hits both endpoints, unmasqueraded", "10.0.0.2", NODE_IP, 3001, both),
        flow("external to NodePort hits only local endpoint, unmasqueraded", EXTERNAL_CLIENT, NODE_IP, 3001,
            local)));
  }

  @Test
  void externalTrafficPolicyCluster() {
    var state = state().add(svc(spn("ns1", "svc1", "p80"), "172.30.0.41", 80).nodePort(3001)
        .externalIPs("192.168.99.11").loadBalancer("1.2.3.4"),
        ready("10.180.0.1", 80, false), ready("10.180.2.1", 80, true));
    String both = "10.180.0.1:80, 10.180.2.1:80";
    run(tracer(state.build()), List.of(
        flow("pod to cluster IP hits both endpoints, unmasqueraded", "10.0.0.2", "172.30.0.41", 80, both, false),
        flow("pod to external IP hits both endpoints, masqueraded", "10.0.0.2", "192.168.99.11", 80, both, true),
        flow("external to external IP hits both endpoints, masqueraded", EXTERNAL_CLIENT, "192.168.99.11", 80, both,
            true),
        flow("pod to LB IP hits both endpoints, masqueraded", "10.0.0.2", "1.2.3.4", 80, both, true),
        flow("external to LB IP hits both endpoints, masqueraded", EXTERNAL_CLIENT, "1.2.3.4", 80, both, true),
        flow("pod to NodePort hits both endpoints, masqueraded", "10.0.0.2", NODE_IP, 3001, both, true),
        flow("external to NodePort hits both endpoints, masqueraded", EXTERNAL_CLIENT, NODE_IP, 3001, both, true)));
  }
}
