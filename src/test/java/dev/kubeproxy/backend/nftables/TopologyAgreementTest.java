package dev.kubeproxy.backend.nftables;

import static dev.kubeproxy.testutil.ModelFixtures.spn;
import static dev.kubeproxy.testutil.ModelFixtures.state;
import static dev.kubeproxy.testutil.ModelFixtures.svc;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.kubeproxy.backend.ipvs.IpvsRuleset;
import dev.kubeproxy.backend.ipvs.IpvsRulesetGenerator;
import dev.kubeproxy.backend.ipvs.IpvsRulesetOptions;
import dev.kubeproxy.backend.ipvs.RealServer;
import dev.kubeproxy.backend.iptables.RulesetGenerator;
import dev.kubeproxy.backend.iptables.RulesetOptions;
import dev.kubeproxy.explain.DebugReport;
import dev.kubeproxy.explain.ReportBuilder;
import dev.kubeproxy.explain.ServiceQuery;
import dev.kubeproxy.messages.FamilySnapshot;
import dev.kubeproxy.messages.ProxierSnapshot;
import dev.kubeproxy.model.Endpoint;
import dev.kubeproxy.model.EndpointCategorizer.TopologyGates;
import dev.kubeproxy.model.ProxierSettings;
import dev.kubeproxy.model.ProxyState;
import dev.kubeproxy.model.ServicePortName;
import dev.kubeproxy.model.ServiceSyncLog;
import dev.kubeproxy.net.IpFamily;
import dev.kubeproxy.trace.Origin;
import dev.kubeproxy.trace.Packet;
import dev.kubeproxy.trace.Protocol;
import dev.kubeproxy.trace.nftables.NftablesTracer;
import dev.kubeproxy.trace.nftables.TraceHost;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.TestFactory;

/**
 * The per-port policy is decided once, with the configured topology gates, in the state every
 * backend gets: with each gate on and off, explain's report and packet path, the iptables restore
 * input, the nftables table and the IPVS real servers name the same endpoints for pod traffic to a
 * ClusterIP. The states carry their hints as given (the trackers would drop some when a gate is off),
 * so a backend that decided with other gates than the state's would program other endpoints.
 */
@Tag("unit")
class TopologyAgreementTest {
  static final String POD = "10.0.5.5";
  static final Map<String, String> ZONE_A = Map.of("topology.kubernetes.io/zone", "zone-a");
  /** Zone hints, asked for by the hints annotation (TopologyAwareHints). */
  static final ServicePortName AUTO = spn("ns", "auto", "p80");
  /** Zone hints written for trafficDistribution, no annotation (ServiceTrafficDistribution). */
  static final ServicePortName CLOSE = spn("ns", "close", "p80");
  /** Node hints written for trafficDistribution PreferSameNode. */
  static final ServicePortName SAME_NODE = spn("ns", "samenode", "p80");
  static final Map<ServicePortName, String> CLUSTER_IPS =
      Map.of(AUTO, "172.30.0.41", CLOSE, "172.30.0.42", SAME_NODE, "172.30.0.43");

  static Endpoint zoned(String ip, boolean local, String zone) {
    return new Endpoint(ip, 80, local, true, true, false, Set.of(zone), Endpoint.NodeHint.NONE, null, zone);
  }

  static Endpoint noded(String ip, boolean local, Endpoint.NodeHint hint) {
    return new Endpoint(ip, 80, local, true, true, false, Set.of("zone-a"), hint, null, "zone-a");
  }

  static ProxyState modelState(TopologyGates gates) {
    return state().labels(ZONE_A).gates(gates)
        .add(svc(AUTO, CLUSTER_IPS.get(AUTO), 80).hints("Auto"),
            zoned("10.0.1.1", true, "zone-a"), zoned("10.0.2.1", false, "zone-b"), zoned("10.0.3.1", false, "zone-a"))
        .add(svc(CLOSE, CLUSTER_IPS.get(CLOSE), 80),
            zoned("10.0.1.2", true, "zone-a"), zoned("10.0.2.2", false, "zone-b"), zoned("10.0.3.2", false, "zone-b"))
        .add(svc(SAME_NODE, CLUSTER_IPS.get(SAME_NODE), 80),
            noded("10.0.1.3", true, Endpoint.NodeHint.THIS_NODE), noded("10.0.2.3", false, Endpoint.NodeHint.OTHER_NODES),
            noded("10.0.3.3", false, Endpoint.NodeHint.OTHER_NODES))
        .build();
  }

  @TestFactory
  Stream<DynamicTest> everyBackendAndExplainProgramTheStatesPlan() {
    return Stream.of(new TopologyGates(true, true), new TopologyGates(true, false), new TopologyGates(false, true),
            new TopologyGates(false, false))
        .flatMap(gates -> {
          ProxyState state = modelState(gates);
          Map<ServicePortName, Set<String>> nftables = nftables(state);
          String iptables = iptables(state);
          IpvsRuleset ipvs = ipvs(state);
          return CLUSTER_IPS.keySet().stream().sorted().map(port -> DynamicTest.dynamicTest(gates + " " + port, () -> {
            Set<String> planned = new TreeSet<>();
            state.plan(port).clusterEndpoints().forEach(ep -> planned.add(ep.endpoint()));
            DebugReport.Port explained = explain(state, port);
            Set<String> reported = new TreeSet<>();
            explained.endpoints().stream().filter(e -> e.sets().contains("cluster"))
                .forEach(e -> reported.add(e.endpoint()));
            Set<String> traced = new TreeSet<>();
            explained.path().endpoints().forEach(c -> traced.add(c.endpoint()));
            assertEquals(planned, reported, "explain's report");
            assertEquals(planned, traced, "explain's packet path");
            assertEquals(planned, iptablesTargets(iptables, port), "iptables restore input");
            assertEquals(planned, nftables.get(port), "nftables table");
            assertEquals(planned, ipvsRealServers(ipvs, port), "ipvs real servers");
          }));
        });
  }

  /** The gates change the plans this test compares: else agreeing would prove nothing. */
  @org.junit.jupiter.api.Test
  void theGatesDecideTheZonePlans() {
    assertEquals(2, modelState(new TopologyGates(true, true)).plan(AUTO).clusterEndpoints().size());
    assertEquals(3, modelState(new TopologyGates(false, false)).plan(AUTO).clusterEndpoints().size());
    assertEquals(1, modelState(new TopologyGates(true, true)).plan(CLOSE).clusterEndpoints().size());
    assertEquals(3, modelState(new TopologyGates(true, false)).plan(CLOSE).clusterEndpoints().size());
    assertEquals(1, modelState(new TopologyGates(false, false)).plan(SAME_NODE).clusterEndpoints().size());
  }

  /** The DNAT targets the table sends a pod's packet to each ClusterIP. */
  static Map<ServicePortName, Set<String>> nftables(ProxyState state) {
    PacketFlows.Node node = new PacketFlows.Node(PacketFlows.settings(IpFamily.IPv4));
    try {
      node.proxier.sync(state);
    } catch (Exception e) {
      throw new AssertionError(e);
    }
    NftablesTracer tracer = new NftablesTracer(node.fake.ruleset(), TraceHost.of(PacketFlows.NODE_IPS));
    Map<ServicePortName, Set<String>> out = new java.util.HashMap<>();
    CLUSTER_IPS.forEach((port, ip) -> out.put(port,
        new TreeSet<>(tracer.trace(new Packet(Origin.POD, POD, ip, 80, Protocol.TCP, false)).dnatTargets())));
    return out;
  }

  static String iptables(ProxyState state) {
    return new RulesetGenerator().generate(new RulesetOptions(IpFamily.IPv4, "0x00004000", false, true,
        PacketFlows.settings(IpFamily.IPv4).localDetector(), true, false, true, List.of(), List.of()), state, true,
        List.of()).payload();
  }

  /** The DNAT destinations of the port's endpoint chains (each line names its port in a comment). */
  static Set<String> iptablesTargets(String payload, ServicePortName port) {
    Pattern dnat = Pattern.compile("^-A KUBE-SEP-\\S+ -m comment --comment " + Pattern.quote(port.toString())
        + " .*--to-destination (\\S+)$", Pattern.MULTILINE);
    Set<String> out = new TreeSet<>();
    for (Matcher m = dnat.matcher(payload); m.find(); ) {
      out.add(m.group(1));
    }
    return out;
  }

  static IpvsRuleset ipvs(ProxyState state) {
    ProxierSettings s = PacketFlows.settings(IpFamily.IPv4);
    return new IpvsRulesetGenerator().generate(new IpvsRulesetOptions(IpFamily.IPv4, "rr", false, "0x00004000",
        s.localDetector(), true, PacketFlows.NODE_IP, List.of(PacketFlows.NODE_IP), Set.of(PacketFlows.NODE_IP)),
        state);
  }

  static Set<String> ipvsRealServers(IpvsRuleset ruleset, ServicePortName port) {
    Set<String> out = new TreeSet<>();
    ruleset.owners().forEach((key, owner) -> {
      if (owner.equals(port) && ruleset.virtualServers().get(key).address().equals(CLUSTER_IPS.get(port))) {
        for (RealServer rs : ruleset.realServers().getOrDefault(key, List.of())) {
          out.add(rs.address() + ":" + rs.port());
        }
      }
    });
    return out;
  }

  static DebugReport.Port explain(ProxyState state, ServicePortName port) {
    ProxierSnapshot snapshot = new ProxierSnapshot(dev.kubeproxy.config.ProxyMode.NFTABLES, false, true,
        List.of(new FamilySnapshot(PacketFlows.settings(IpFamily.IPv4), state, new ServiceSyncLog(), Map.of())),
        List.of());
    DebugReport report = ReportBuilder.build(snapshot,
        ServiceQuery.parse(port.service().toString(), POD, CLUSTER_IPS.get(port) + ":80"));
    assertEquals(1, report.ports().size(), "explain's ports for " + port);
    return report.ports().get(0);
  }
}
