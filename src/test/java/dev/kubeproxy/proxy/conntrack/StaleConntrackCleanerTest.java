package dev.kubeproxy.proxy.conntrack;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.kubeproxy.platform.CommandRunner;
import dev.kubeproxy.proxy.Endpoint;
import dev.kubeproxy.proxy.EndpointsMap;
import dev.kubeproxy.proxy.IpFamily;
import dev.kubeproxy.proxy.NamespacedName;
import dev.kubeproxy.proxy.ServiceChangeTracker;
import dev.kubeproxy.proxy.ServicePortMap;
import dev.kubeproxy.proxy.ServicePortName;
import dev.kubeproxy.metrics.ProxyMetrics;
import io.kubernetes.client.openapi.models.V1LoadBalancerIngress;
import io.kubernetes.client.openapi.models.V1LoadBalancerStatus;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1Service;
import io.kubernetes.client.openapi.models.V1ServicePort;
import io.kubernetes.client.openapi.models.V1ServiceSpec;
import io.kubernetes.client.openapi.models.V1ServiceStatus;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class StaleConntrackCleanerTest {
  private static final NamespacedName DNS_SVC = new NamespacedName("kube-system", "dns");
  private static final ServicePortName DNS = new ServicePortName(DNS_SVC, "dns", "UDP");

  private static ServicePortMap mapWith(V1Service svc, IpFamily family) {
    ServiceChangeTracker t = new ServiceChangeTracker(family, true, new ProxyMetrics());
    t.update(null, svc);
    ServicePortMap map = new ServicePortMap();
    map.update(t);
    return map;
  }

  private static V1Service dns(String clusterIP, int nodePort, String extIP, String lbIP) {
    V1ServicePort p = new V1ServicePort().name("dns").port(53).protocol("UDP");
    if (nodePort != 0) {
      p.nodePort(nodePort);
    }
    V1ServiceSpec spec = new V1ServiceSpec().type(nodePort != 0 ? "LoadBalancer" : "ClusterIP").clusterIP(clusterIP)
        .clusterIPs(new ArrayList<>(List.of(clusterIP)))
        .ipFamilies(new ArrayList<>(List.of(IpFamily.ofText(clusterIP).name())))
        .ports(new ArrayList<>(List.of(p)));
    if (extIP != null) {
      spec.externalIPs(new ArrayList<>(List.of(extIP)));
    }
    V1Service svc = new V1Service().metadata(new V1ObjectMeta().namespace("kube-system").name("dns")).spec(spec);
    if (lbIP != null) {
      svc.status(new V1ServiceStatus().loadBalancer(new V1LoadBalancerStatus()
          .ingress(new ArrayList<>(List.of(new V1LoadBalancerIngress().ip(lbIP))))));
    }
    return svc;
  }

  private static EndpointsMap.UpdateResult endpoints(Set<ServicePortName> newlyActive,
      List<EndpointsMap.DeletedUdpEndpoint> deleted) {
    return new EndpointsMap.UpdateResult(Set.of(), deleted, newlyActive, Map.of());
  }

  @Test
  void newlyActiveServiceClearsItsVipsAndNodePort() {
    ServicePortMap map = mapWith(dns("10.96.0.10", 30053, "192.168.200.10", "192.168.200.50"), IpFamily.IPv4);
    List<List<String>> cmds = StaleConntrackCleaner.commands(IpFamily.IPv4, map,
        new ServicePortMap.UpdateResult(Set.of(), Set.of("10.96.0.99")), endpoints(Set.of(DNS), List.of()));
    assertEquals(List.of(
        List.of("conntrack", "-D", "--orig-dst", "10.96.0.10", "-p", "udp"),
        List.of("conntrack", "-D", "--orig-dst", "10.96.0.99", "-p", "udp"),
        List.of("conntrack", "-D", "--orig-dst", "192.168.200.10", "-p", "udp"),
        List.of("conntrack", "-D", "--orig-dst", "192.168.200.50", "-p", "udp"),
        List.of("conntrack", "-D", "-p", "udp", "--dport", "30053")), cmds);
  }

  @Test
  void deletedEndpointClearsNatEntriesToIt() {
    ServicePortMap map = mapWith(dns("10.96.0.10", 30053, "192.168.200.10", null), IpFamily.IPv4);
    Endpoint gone = new Endpoint("10.244.0.5", 53, false, true, true, false, null);
    List<List<String>> cmds = StaleConntrackCleaner.commands(IpFamily.IPv4, map,
        new ServicePortMap.UpdateResult(Set.of(), Set.of()),
        endpoints(Set.of(), List.of(new EndpointsMap.DeletedUdpEndpoint(gone, DNS),
            new EndpointsMap.DeletedUdpEndpoint(gone, new ServicePortName(DNS_SVC, "gone", "UDP")))));
    assertEquals(List.of(
        List.of("conntrack", "-D", "-p", "udp", "--dport", "30053", "--dst-nat", "10.244.0.5"),
        List.of("conntrack", "-D", "--orig-dst", "10.96.0.10", "--dst-nat", "10.244.0.5", "-p", "udp"),
        List.of("conntrack", "-D", "--orig-dst", "192.168.200.10", "--dst-nat", "10.244.0.5", "-p", "udp")), cmds);
  }

  @Test
  void ipv6AddsTheFamilyFlag() {
    ServicePortMap map = mapWith(dns("fd00:10:96::a", 0, null, null), IpFamily.IPv6);
    Endpoint gone = new Endpoint("fd00:10:244::5", 53, false, true, true, false, null);
    List<List<String>> cmds = StaleConntrackCleaner.commands(IpFamily.IPv6, map,
        new ServicePortMap.UpdateResult(Set.of(), Set.of()),
        endpoints(Set.of(DNS), List.of(new EndpointsMap.DeletedUdpEndpoint(gone, DNS))));
    assertEquals(List.of(
        List.of("conntrack", "-D", "--orig-dst", "fd00:10:96::a", "-p", "udp", "-f", "ipv6"),
        List.of("conntrack", "-D", "--orig-dst", "fd00:10:96::a", "--dst-nat", "fd00:10:244::5", "-p", "udp",
            "-f", "ipv6")), cmds);
  }

  @Test
  void nothingToDoRunsNothingAndErrorsAreIgnored() throws Exception {
    List<List<String>> ran = new ArrayList<>();
    CommandRunner fake = new CommandRunner() {
      @Override
      public Result run(List<String> argv) throws IOException {
        ran.add(argv);
        if (ran.size() == 1) {
          return new Result(1, "", "conntrack v1.4.7 (conntrack-tools): 0 flow entries have been deleted.\n");
        }
        throw new IOException("no conntrack binary");
      }
    };
    ServicePortMap map = mapWith(dns("10.96.0.10", 30053, null, null), IpFamily.IPv4);
    StaleConntrackCleaner cleaner = new StaleConntrackCleaner(fake);
    cleaner.cleanup(IpFamily.IPv4, map, new ServicePortMap.UpdateResult(Set.of(), Set.of()),
        endpoints(Set.of(), List.of()));
    assertEquals(0, ran.size());
    cleaner.cleanup(IpFamily.IPv4, map, new ServicePortMap.UpdateResult(Set.of(), Set.of()),
        endpoints(Set.of(DNS), List.of()));
    assertEquals(2, ran.size(), "an error does not stop the rest");
  }
}
