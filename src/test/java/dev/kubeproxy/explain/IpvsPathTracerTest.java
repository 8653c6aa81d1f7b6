package dev.kubeproxy.explain;

import dev.kubeproxy.config.ProxyMode;

import static dev.kubeproxy.explain.Model.NODE_IP;
import static dev.kubeproxy.explain.Model.ready;
import static dev.kubeproxy.explain.Model.service;
import static dev.kubeproxy.explain.Model.settings;
import static dev.kubeproxy.explain.PathTracerTest.OUTSIDE;
import static dev.kubeproxy.explain.PathTracerTest.POD;
import static dev.kubeproxy.explain.PathTracerTest.THREE;
import static dev.kubeproxy.explain.PathTracerTest.endpoints;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kubeproxy.explain.PacketPath.Choice;
import dev.kubeproxy.explain.PacketPath.Hop;
import dev.kubeproxy.explain.PacketPath.Verdict;
import dev.kubeproxy.model.Endpoint;
import dev.kubeproxy.model.EndpointCategorizer;
import dev.kubeproxy.net.IpFamily;
import dev.kubeproxy.model.LocalTrafficDetector;
import dev.kubeproxy.model.NamespacedName;
import dev.kubeproxy.model.ProxierSettings;
import dev.kubeproxy.model.ServicePort;
import dev.kubeproxy.model.ServicePortName;
import dev.kubeproxy.model.ServicePortPlan;
import dev.kubeproxy.testutil.tier.Unit;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** ipvs mode's packet path: the sets its rules match, the virtual server, its real servers and masquerading. */
@Unit
class IpvsPathTracerTest {
  static PacketPath trace(ServicePort svc, List<Endpoint> eps, String from, String to, int port) {
    return new PathTracer(ProxyMode.IPVS, settings()).trace(ServicePortPlan.of(svc, eps, Map.of(), EndpointCategorizer.TopologyGates.DEFAULT), from, to, port);
  }

  static List<String> hops(PacketPath p) {
    return p.hops().stream().map(h -> h.chain() + ": " + h.action()).toList();
  }

  @Test
  void clusterIpFromOutsideTheClusterCidr() {
    PacketPath p = trace(service("web", 10).build(), THREE, NODE_IP, "10.96.0.10", 80);
    assertEquals(List.of(
        "nat KUBE-SERVICES: matches set KUBE-CLUSTER-IP (dst,dst 10.96.0.10,tcp:80) -> KUBE-MARK-MASQ, then ACCEPT:"
            + " IPVS takes it",
        "IPVS TCP 10.96.0.10:80: picks one of 3 real server(s), weight 1 each, by its scheduler; forwards by NAT (Masq)",
        "nat KUBE-POSTROUTING: masquerades the marked packet"), hops(p));
    assertEquals(Verdict.DNAT, p.verdict());
    assertTrue(p.endpoints().stream().allMatch(Choice::masquerade));
  }

  @Test
  void hairpinGoesThroughTheLoopBackSet() {
    PacketPath p = trace(service("web", 10).build(), THREE, "10.244.1.5", "10.96.0.10", 80);
    assertEquals("nat KUBE-POSTROUTING: masquerades it when it goes back to its own source (KUBE-LOOP-BACK)",
        hops(p).get(2));
    Choice self = p.endpoints().stream().filter(c -> c.endpoint().equals("10.244.1.5:8080")).findFirst().orElseThrow();
    assertTrue(self.masquerade() && self.why().contains("KUBE-LOOP-BACK"), self.toString());
  }

  @Test
  void nodePortLocalKeepsTheSourceAndUsesOnlyLocalRealServersFromEverywhere() {
    ServicePort svc = service("shop", 30).nodePort(30080).etpLocal().affinity().build();
    for (String from : List.of(OUTSIDE, NODE_IP, POD)) {
      PacketPath p = trace(svc, THREE, from, NODE_IP, 30080);
      assertEquals("NodePort", p.entry());
      assertEquals(Set.of("10.244.1.5:8080", "10.244.1.6:8080"), endpoints(p), from);
      assertTrue(p.endpoints().stream().noneMatch(Choice::masquerade), from);
      assertEquals(List.of("nat KUBE-SERVICES: destination is a local address -> KUBE-NODE-PORT",
          "nat KUBE-NODE-PORT: matches set KUBE-NODE-PORT-LOCAL-TCP (port 30080): RETURN, not marked",
          "IPVS TCP 192.168.1.10:30080: picks one of 2 real server(s), weight 1 each, by its scheduler (persistent"
              + " 10800 s); forwards by NAT (Masq)"), hops(p));
    }
    // no local endpoint: upstream's syncEndpoint falls back to every endpoint, still unmarked
    PacketPath fallback = trace(svc, List.of(ready("10.244.2.5", false)), OUTSIDE, NODE_IP, 30080);
    assertEquals(Verdict.DNAT, fallback.verdict());
    assertEquals(Set.of("10.244.2.5:8080"), endpoints(fallback));
    assertTrue(hops(fallback).get(2).contains("falls back to every endpoint"), hops(fallback).toString());
  }

  @Test
  void nodePortClusterIsMarked() {
    PacketPath p = trace(service("api", 20).nodePort(30443).build(), THREE, OUTSIDE, NODE_IP, 30443);
    assertEquals("nat KUBE-NODE-PORT: matches set KUBE-NODE-PORT-TCP (port 30443) -> KUBE-MARK-MASQ", hops(p).get(1));
    assertTrue(p.endpoints().stream().allMatch(Choice::masquerade));
  }

  @Test
  void noRealServerIsRefusedByTheNode() {
    PacketPath p = trace(service("empty", 12).build(), List.of(), POD, "10.96.0.12", 80);
    assertEquals(Verdict.REJECT, p.verdict());
    assertEquals("IPVS TCP 10.96.0.12:80: has no real server (ns/empty:p80 has no usable endpoint): IPVS leaves the"
        + " packet to the node's own stack, which refuses it", hops(p).get(1));
  }

  @Test
  void loadBalancerSourceRangesAndLocalPolicy() {
    ServicePort svc = service("lb", 40).nodePort(30040).loadBalancer("192.0.2.40").sourceRanges("198.51.100.0/24")
        .etpLocal()
        .build();
    PacketPath allowed = trace(svc, THREE, "198.51.100.7", "192.0.2.40", 80);
    assertEquals(List.of(
        "nat KUBE-SERVICES: matches set KUBE-LOAD-BALANCER (dst,dst 192.0.2.40,tcp:80) -> KUBE-LOAD-BALANCER",
        "nat KUBE-LOAD-BALANCER: matches set KUBE-LOAD-BALANCER-LOCAL: RETURN, not marked",
        "filter KUBE-PROXY-FIREWALL: matches set KUBE-LOAD-BALANCER-FW -> KUBE-SOURCE-RANGES-FIREWALL",
        "filter KUBE-SOURCE-RANGES-FIREWALL: RETURN: source in loadBalancerSourceRanges 198.51.100.0/24",
        "IPVS TCP 192.0.2.40:80: picks one of 2 real server(s), weight 1 each, by its scheduler; forwards by NAT"
            + " (Masq)"), hops(allowed));
    PacketPath denied = trace(svc, THREE, OUTSIDE, "192.0.2.40", 80);
    assertEquals(Verdict.DROP, denied.verdict());
    Hop last = denied.hops().get(denied.hops().size() - 1);
    assertEquals("filter KUBE-SOURCE-RANGES-FIREWALL", last.chain());
    assertTrue(last.action().endsWith(": DROP"), last.action());
  }

  @Test
  void internalPolicyLocalWithoutLocalEndpointsHasNoRealServer() {
    // as IpvsRulesetGenerator: the cluster IP's virtual server gets the local endpoints, here none
    ServicePort svc = service("itp", 50).itpLocal().build();
    PacketPath p = trace(svc, List.of(ready("10.244.2.5", false)), POD, "10.96.0.50", 80);
    assertEquals(Verdict.REJECT, p.verdict());
    assertEquals("ns/itp:p80 has no endpoint on this node for its Local policy", p.reason());
  }

  @Test
  void ipv6SetsAreTheKube6Ones() {
    ProxierSettings v6 = new ProxierSettings(IpFamily.IPv6, "node-1", List.of("fd00:1::10"), List.of(), false, 14,
        true, new LocalTrafficDetector("ClusterCIDR", "fd00:244::/64"), Duration.ofSeconds(30), Duration.ofSeconds(1),
        null);
    ServicePort svc = new ServicePort(new ServicePortName(new NamespacedName("ns", "web6"), "p80", "TCP"),
        "fd00:96::10", 80, "TCP", 0, List.of(), List.of(), List.of(), false, 0, false, false, 0, "");
    Endpoint ep = new Endpoint("fd00:244::5", 8080, true, true, true, false, null, Endpoint.NodeHint.NONE, "node-1",
        null);
    PacketPath p = new PathTracer(ProxyMode.IPVS, v6).trace(ServicePortPlan.of(svc, List.of(ep), Map.of(), EndpointCategorizer.TopologyGates.DEFAULT), "fd00:1::10",
        "fd00:96::10", 80);
    assertEquals(List.of(
        "nat KUBE-SERVICES: matches set KUBE-6-CLUSTER-IP (dst,dst fd00:96::10,tcp:80) -> KUBE-MARK-MASQ, then ACCEPT:"
            + " IPVS takes it",
        "IPVS TCP [fd00:96::10]:80: picks one of 1 real server(s), weight 1 each, by its scheduler; forwards by NAT"
            + " (Masq)",
        "nat KUBE-POSTROUTING: masquerades the marked packet"), hops(p));
  }
}
