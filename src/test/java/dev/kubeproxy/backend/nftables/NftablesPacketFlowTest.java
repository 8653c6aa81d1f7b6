package dev.kubeproxy.backend.nftables;

import static dev.kubeproxy.backend.nftables.PacketFlows.EXTERNAL_CLIENT;
import static dev.kubeproxy.backend.nftables.PacketFlows.EXTERNAL_CLIENT_BLOCKED;
import static dev.kubeproxy.backend.nftables.PacketFlows.NODE_IP;
import static dev.kubeproxy.backend.nftables.PacketFlows.flow;
import static dev.kubeproxy.testutil.ModelFixtures.ready;
import static dev.kubeproxy.testutil.ModelFixtures.spn;
import static dev.kubeproxy.testutil.ModelFixtures.svc;

import dev.kubeproxy.net.IpFamily;
import dev.kubeproxy.model.ServicePortName;
import dev.kubeproxy.testutil.tier.Unit;
import dev.kubeproxy.trace.Protocol;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * Upstream's packet-flow tables of pkg/proxy/nftables/proxier_test.go (TestNoEndpointsReject,
 * TestClusterIPGeneral, TestLoadBalancer, TestNodePorts, TestExternalTrafficPolicyLocal,
 * TestExternalTrafficPolicyCluster), each flow traced through the table the agent programs for the
 * same Services and endpoints.
 */
@Unit
class NftablesPacketFlowTest {
  private static final String POD = "10.0.0.2";

  private static PacketFlows.Node node() {
    return new PacketFlows.Node(PacketFlows.settings(IpFamily.IPv4));
  }

  @TestFactory
  Stream<DynamicTest> noEndpointsReject() {
    PacketFlows.Node n = node();
    n.model.put(svc(spn("ns1", "svc1", "p80"), "172.30.0.41", 80).nodePort(3001).externalIPs("192.168.99.11")
        .loadBalancer("1.2.3.4"));
    return n.flows("TestNoEndpointsReject", List.of(
        flow("pod to cluster IP with no endpoints", POD, "172.30.0.41", 80, "REJECT"),
        flow("external to external IP with no endpoints", EXTERNAL_CLIENT, "192.168.99.11", 80, "REJECT"),
        flow("pod to NodePort with no endpoints", POD, NODE_IP, 3001, "REJECT"),
        flow("external to NodePort with no endpoints", EXTERNAL_CLIENT, NODE_IP, 3001, "REJECT"),
        flow("pod to LoadBalancer IP with no endpoints", POD, "1.2.3.4", 80, "REJECT"),
        flow("external to LoadBalancer IP with no endpoints", EXTERNAL_CLIENT, "1.2.3.4", 80, "REJECT")));
  }

  @TestFactory
  Stream<DynamicTest> clusterIpGeneral() {
    PacketFlows.Node n = node();
    n.model.put(svc(spn("ns1", "svc1", "http"), "172.30.0.41", 80), ready("10.180.0.1", 80, true));
    ServicePortName http = spn("ns2", "svc2", "http");
    ServicePortName https = spn("ns2", "svc2", "https");
    ServicePortName dnsUdp = spn("ns2", "svc2", "dns-udp", "UDP");
    ServicePortName dnsTcp = spn("ns2", "svc2", "dns-tcp");
    ServicePortName dnsSctp = spn("ns2", "svc2", "dns-sctp", "SCTP");
    n.model.put(svc(http, "172.30.0.42", 80), ready("10.180.0.1", 80, true), ready("10.180.2.1", 80, false));
    n.model.put(svc(https, "172.30.0.42", 443), ready("10.180.0.1", 8443, true), ready("10.180.2.1", 8443, false));
    n.model.put(svc(dnsUdp, "172.30.0.42", 53), ready("10.180.0.1", 53, true), ready("10.180.2.1", 53, false));
    n.model.put(svc(dnsTcp, "172.30.0.42", 53), ready("10.180.0.1", 5353, true), ready("10.180.2.1", 5353, false));
    n.model.put(svc(dnsSctp, "172.30.0.42", 53), ready("10.180.0.1", 53, true), ready("10.180.2.1", 53, false));
    String pod = "10.180.0.2";
    return n.flows("TestClusterIPGeneral", List.of(
        flow("simple clusterIP", pod, "172.30.0.41", 80, "10.180.0.1:80"),
        flow("hairpin to cluster IP", "10.180.0.1", "172.30.0.41", 80, "10.180.0.1:80", true),
        flow("clusterIP with multiple endpoints", pod, "172.30.0.42", 80, "10.180.0.1:80, 10.180.2.1:80"),
        flow("clusterIP with TargetPort", pod, "172.30.0.42", 443, "10.180.0.1:8443, 10.180.2.1:8443"),
        flow("clusterIP with TCP, UDP, and SCTP on same port (TCP)", pod, Protocol.TCP, "172.30.0.42", 53,
            "10.180.0.1:5353, 10.180.2.1:5353"),
        flow("clusterIP with TCP, UDP, and SCTP on same port (UDP)", pod, Protocol.UDP, "172.30.0.42", 53,
            "10.180.0.1:53, 10.180.2.1:53"),
        flow("clusterIP with TCP, UDP, and SCTP on same port (SCTP)", pod, Protocol.SCTP, "172.30.0.42", 53,
            "10.180.0.1:53, 10.180.2.1:53"),
        flow("TCP-only port does not match UDP traffic", pod, Protocol.UDP, "172.30.0.42", 80, "REJECT"),
        flow("svc1 does not accept svc2's ports", pod, "172.30.0.41", 443, "REJECT"),
        flow("packet to unallocated cluster ip", pod, "172.30.0.50", 80, "DROP")));
  }

  @TestFactory
  Stream<DynamicTest> loadBalancer() {
    PacketFlows.Node n = node();
    n.model.put(svc(spn("ns1", "svc1", "p80"), "172.30.0.41", 80).nodePort(3001).loadBalancer("1.2.3.4", "5.6.7.8")
        .sourceRanges("192.168.0.0/24", "203.0.113.0/25"), ready("10.180.0.1", 80, false));
    String ep = "10.180.0.1:80";
    return n.flows("TestLoadBalancer", List.of(
        flow("pod to cluster IP", POD, "172.30.0.41", 80, ep),
        flow("external to nodePort", EXTERNAL_CLIENT, NODE_IP, 3001, ep, true),
        flow("nodePort bypasses LoadBalancerSourceRanges", EXTERNAL_CLIENT_BLOCKED, NODE_IP, 3001, ep, true),
        flow("accepted external to LB1", EXTERNAL_CLIENT, "1.2.3.4", 80, ep, true),
        flow("accepted external to LB2", EXTERNAL_CLIENT, "5.6.7.8", 80, ep, true),
        flow("blocked external to LB1", EXTERNAL_CLIENT_BLOCKED, "1.2.3.4", 80, "DROP"),
        flow("blocked external to LB2", EXTERNAL_CLIENT_BLOCKED, "5.6.7.8", 80, "DROP"),
        flow("pod to LB1 (blocked by LoadBalancerSourceRanges)", POD, "1.2.3.4", 80, "DROP"),
        flow("pod to LB2 (blocked by LoadBalancerSourceRanges)", POD, "5.6.7.8", 80, "DROP"),
        flow("node to LB1 (allowed by LoadBalancerSourceRanges)", NODE_IP, "1.2.3.4", 80, ep, true),
        flow("node to LB2 (allowed by LoadBalancerSourceRanges)", NODE_IP, "5.6.7.8", 80, ep, true),
        flow("same node to LB1, SNATted to LB1 (implicitly allowed)", "1.2.3.4", "1.2.3.4", 80, ep, true),
        flow("same node to LB2, SNATted to LB2 (implicitly allowed)", "5.6.7.8", "5.6.7.8", 80, ep, true)));
  }

  @TestFactory
  Stream<DynamicTest> nodePorts() {
    return Stream.of(
        nodePorts("ipv4", IpFamily.IPv4, null, false),
        nodePorts("ipv4, multiple nodeport-addresses", IpFamily.IPv4,
            List.of("192.168.0.0/24", "192.168.1.0/24", "2001:db8::/64"), true),
        nodePorts("ipv6", IpFamily.IPv6, null, false),
        nodePorts("ipv6, multiple nodeport-addresses", IpFamily.IPv6,
            List.of("192.168.0.0/24", "192.168.1.0/24", "2001:db8::/64", "2001:db8:1::2/128"), true))
        .flatMap(s -> s);
  }

  private static Stream<DynamicTest> nodePorts(String name, IpFamily family, List<String> nodePortAddresses,
      boolean allowAltNodeIP) {
    boolean v4 = family == IpFamily.IPv4;
    PacketFlows.Node n = new PacketFlows.Node(PacketFlows.settings(family, false, true, nodePortAddresses));
    String svcIP = v4 ? "172.30.0.41" : "fd00:172:30::41";
    String ep1 = v4 ? "10.180.0.1" : "fd00:10:180::1";
    String ep2 = v4 ? "10.180.2.1" : "fd00:10:180::2:1";
    String nodeIP = v4 ? NODE_IP : PacketFlows.NODE_IPV6;
    n.model.put(svc(spn("ns1", "svc1", "p80"), svcIP, 80).nodePort(3001), ready(ep1, 80, false), ready(ep2, 80, true));
    String pod = v4 ? POD : "fd00:10::2";
    String external = v4 ? EXTERNAL_CLIENT : "2600:5200::1";
    String alt = v4 ? PacketFlows.NODE_IP_ALT : PacketFlows.NODE_IPV6_ALT;
    String output = v4 ? ep1 + ":80, " + ep2 + ":80" : "[" + ep1 + "]:80, [" + ep2 + "]:80";
    return n.flows("TestNodePorts/" + name, List.of(
        flow("pod to cluster IP", pod, svcIP, 80, output),
        flow("external to nodePort", external, nodeIP, 3001, output, true),
        flow("node to nodePort", nodeIP, nodeIP, 3001, output, true),
        allowAltNodeIP ? flow("external to nodePort on secondary IP", external, alt, 3001, output, true)
            : flow("secondary nodeIP ignores NodePorts", external, alt, 3001, "")));
  }

  @TestFactory
  Stream<DynamicTest> externalTrafficPolicyLocal() {
    PacketFlows.Node n = node();
    n.model.put(svc(spn("ns1", "svc1", "p80"), "172.30.0.41", 80).nodePort(3001).externalIPs("192.168.99.11")
        .loadBalancer("1.2.3.4").etpLocal(30000), ready("10.180.0.1", 80, false), ready("10.180.2.1", 80, true));
    String both = "10.180.0.1:80, 10.180.2.1:80";
    String local = "10.180.2.1:80";
    return n.flows("TestExternalTrafficPolicyLocal", List.of(
        flow("pod to cluster IP hits both endpoints, unmasqueraded", POD, "172.30.0.41", 80, both),
        flow("pod to external IP hits both endpoints, unmasqueraded", POD, "192.168.99.11", 80, both),
        flow("external to external IP hits only local endpoint, unmasqueraded", EXTERNAL_CLIENT, "192.168.99.11", 80,
            local),
        flow("pod to LB IP hits only both endpoints, unmasqueraded", POD, "1.2.3.4", 80, both),
        flow("external to LB IP hits only local endpoint, unmasqueraded", EXTERNAL_CLIENT, "1.2.3.4", 80, local),
        flow("pod to NodePort hits both endpoints, unmasqueraded", POD, NODE_IP, 3001, both),
        flow("external to NodePort hits only local endpoint, unmasqueraded", EXTERNAL_CLIENT, NODE_IP, 3001, local)));
  }

  @TestFactory
  Stream<DynamicTest> externalTrafficPolicyCluster() {
    PacketFlows.Node n = node();
    n.model.put(svc(spn("ns1", "svc1", "p80"), "172.30.0.41", 80).nodePort(3001).externalIPs("192.168.99.11")
        .loadBalancer("1.2.3.4"), ready("10.180.0.1", 80, false), ready("10.180.2.1", 80, true));
    String both = "10.180.0.1:80, 10.180.2.1:80";
    return n.flows("TestExternalTrafficPolicyCluster", List.of(
        flow("pod to cluster IP hits both endpoints, unmasqueraded", POD, "172.30.0.41", 80, both),
        flow("pod to external IP hits both endpoints, masqueraded", POD, "192.168.99.11", 80, both, true),
        flow("external to external IP hits both endpoints, masqueraded", EXTERNAL_CLIENT, "192.168.99.11", 80, both,
            true),
        flow("pod to LB IP hits both endpoints, masqueraded", POD, "1.2.3.4", 80, both, true),
        flow("external to LB IP hits both endpoints, masqueraded", EXTERNAL_CLIENT, "1.2.3.4", 80, both, true),
        flow("pod to NodePort hits both endpoints, masqueraded", POD, NODE_IP, 3001, both, true),
        flow("external to NodePort hits both endpoints, masqueraded", EXTERNAL_CLIENT, NODE_IP, 3001, both, true)));
  }

  /**
   * Not an upstream table: the filter-priority-0 layout of pkg/proxy/nftables/proxier.go
   * nftablesBaseChains (v1.34) lets local traffic to an eTP:Local Service's external addresses reach
   * the remote endpoints when this node has none, while external traffic is still dropped.
   */
  @TestFactory
  Stream<DynamicTest> externalTrafficPolicyLocalWithoutLocalEndpoints() {
    PacketFlows.Node n = node();
    n.model.put(svc(spn("ns1", "svc1", "p80"), "172.30.0.41", 80).nodePort(3001).externalIPs("192.168.99.11")
        .loadBalancer("1.2.3.4").etpLocal(30000), ready("10.180.0.1", 80, false), ready("10.180.2.1", 80, false));
    String both = "10.180.0.1:80, 10.180.2.1:80";
    return n.flows("eTP:Local without local endpoints", List.of(
        flow("pod to external IP reaches the remote endpoints", POD, "192.168.99.11", 80, both),
        flow("pod to LB IP reaches the remote endpoints", POD, "1.2.3.4", 80, both),
        flow("node to LB IP reaches the remote endpoints, masqueraded", NODE_IP, "1.2.3.4", 80, both, true),
        flow("external to external IP is dropped", EXTERNAL_CLIENT, "192.168.99.11", 80, "DROP"),
        flow("external to LB IP is dropped", EXTERNAL_CLIENT, "1.2.3.4", 80, "DROP"),
        flow("external to NodePort is dropped", EXTERNAL_CLIENT, NODE_IP, 3001, "DROP")));
  }
}
