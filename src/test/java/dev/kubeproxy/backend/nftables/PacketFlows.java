package dev.kubeproxy.backend.nftables;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.kubeproxy.net.Cidr;
import dev.kubeproxy.host.CommandRunner;
import dev.kubeproxy.host.ProcessCommandRunner;
import dev.kubeproxy.net.IpFamily;
import dev.kubeproxy.model.LocalTrafficDetector;
import dev.kubeproxy.model.ProxierSettings;
import dev.kubeproxy.testutil.CountingMetrics;
import dev.kubeproxy.trace.Origin;
import dev.kubeproxy.trace.Packet;
import dev.kubeproxy.trace.Protocol;
import dev.kubeproxy.trace.Trace;
import dev.kubeproxy.trace.Verdict;
import dev.kubeproxy.trace.nftables.NftablesTracer;
import dev.kubeproxy.trace.nftables.TraceHost;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;

/**
 * Upstream's packet-flow tests (pkg/proxy/nftables/proxier_test.go runPacketFlowTests, with
 * NewFakeProxier's conventions) over the agent's real table: the proxier syncs a model into the
 * fake kernel, and each flow is traced through the table the fake then holds.
 *
 * <p>Upstream's conventions: pod IPs 10.0.0.0/8 (fd00:10::/64), ClusterIPs 172.30.0.0/16
 * (fd00:10:96::/112), node IP 192.168.0.2 with 192.168.1.2 and 192.168.99.11 also local
 * (2001:db8::1, 2001:db8:1::2), NodePorts on 192.168.0.2/32 (2001:db8::1/128), mark 0x4000.
 */
final class PacketFlows {
  static final String NODE_IP = "192.168.0.2";
  static final String NODE_IP_ALT = "192.168.1.2";
  static final String NODE_IPV6 = "2001:db8::1";
  static final String NODE_IPV6_ALT = "2001:db8:1::2";
  static final String EXTERNAL_CLIENT = "203.0.113.2";
  static final String EXTERNAL_CLIENT_BLOCKED = "203.0.113.130";
  static final List<String> NODE_IPS = List.of(NODE_IP, NODE_IP_ALT, "192.168.99.11", NODE_IPV6, NODE_IPV6_ALT);
  private static final TraceHost HOST = TraceHost.of(NODE_IPS);

  private PacketFlows() {}

  /** A packet-flow case as upstream writes it: output "ip:port, ip:port", "DROP", "REJECT" or "" (accepted as is). */
  record Flow(String name, String sourceIp, Protocol protocol, String destIp, int destPort, String output,
      boolean masq) {
    Flow withOutput(String o) {
      return new Flow(name, sourceIp, protocol, destIp, destPort, o, masq);
    }

    Flow withMasq(boolean m) {
      return new Flow(name, sourceIp, protocol, destIp, destPort, output, m);
    }
  }

  static Flow flow(String name, String source, String dest, int port, String output, boolean masq) {
    return new Flow(name, source, Protocol.TCP, dest, port, output, masq);
  }

  static Flow flow(String name, String source, String dest, int port, String output) {
    return flow(name, source, dest, port, output, false);
  }

  static Flow flow(String name, String source, Protocol protocol, String dest, int port, String output) {
    return new Flow(name, source, protocol, dest, port, output, false);
  }

  /** NewFakeProxier's settings; nodePortAddresses null for its default (the node IP's /32 or /128). */
  static ProxierSettings settings(IpFamily family, boolean masqueradeAll, boolean localDetector,
      List<String> nodePortAddresses) {
    boolean v4 = family == IpFamily.IPv4;
    List<String> npa = nodePortAddresses != null ? nodePortAddresses : List.of(NODE_IP + "/32", NODE_IPV6 + "/128");
    LocalTrafficDetector detector = localDetector
        ? new LocalTrafficDetector("ClusterCIDR", v4 ? "10.0.0.0/8" : "fd00:10::/64") : LocalTrafficDetector.noop();
    return new ProxierSettings(family, "test-node", List.of(v4 ? NODE_IP : NODE_IPV6),
        npa.stream().filter(c -> IpFamily.ofText(c) == family).toList(), masqueradeAll, 14, false, detector,
        Duration.ofSeconds(30), Duration.ofSeconds(1), null);
  }

  static ProxierSettings settings(IpFamily family) {
    return settings(family, false, true, null);
  }

  /** A fake kernel table and the agent's proxier writing into it. */
  static final class Node {
    final ProxierSettings settings;
    final FakeNftables fake;
    final NftablesProxier proxier;
    final Fixtures.Model model = new Fixtures.Model();

    Node(ProxierSettings settings) {
      this.settings = settings;
      this.fake = new FakeNftables(settings.family());
      List<String> interfaceAddresses = new ArrayList<>(NODE_IPS);
      interfaceAddresses.addAll(List.of("127.0.0.1", "::1"));
      this.proxier = new NftablesProxier(settings, new ProcessCommandRunner(), fake, new CountingMetrics(),
          new Fixtures.TestClock(), () -> interfaceAddresses);
      model.serviceCIDRs = List.of(settings.family() == IpFamily.IPv4 ? "172.30.0.0/16" : "fd00:10:96::/112");
    }

    /** Syncs the model and returns the flows as tests over the table the fake now holds. */
    Stream<DynamicTest> flows(String group, List<Flow> flows) {
      try {
        proxier.sync(model.state());
      } catch (Exception e) {
        throw new AssertionError("the sync of " + group + " failed", e);
      }
      NftablesTracer tracer = new NftablesTracer(fake.ruleset(), HOST);
      return flows.stream().map(f -> DynamicTest.dynamicTest(group + ": " + f.name(), () -> check(tracer, f)));
    }
  }

  private static void check(NftablesTracer tracer, Flow f) {
    Trace t = tracer.trace(new Packet(origin(f.sourceIp()), f.sourceIp(), f.destIp(), f.destPort(), f.protocol(),
        false));
    String path = t.path().stream().map(s -> s.chain() + ": " + s.rule()).collect(Collectors.joining("\n  "));
    String where = "packet from " + f.sourceIp() + " to " + f.destIp() + ":" + f.destPort() + " (" + f.protocol()
        + ") by matching:\n  " + path;
    assertEquals(sorted(f.output()), output(t), "output of " + where);
    assertEquals(f.masq(), t.masqueraded(), "masquerade of " + where);
  }

  /** The trace in upstream's output form. */
  static String output(Trace t) {
    if (t.verdict() != Verdict.ACCEPT) {
      return t.verdict().name();
    }
    return String.join(", ", t.dnatTargets());
  }

  /** Upstream's list of endpoints sorted as the trace sorts its targets (upstream lists them in endpoint order). */
  private static String sorted(String output) {
    return output.isEmpty() ? output : String.join(", ", new TreeSet<>(Arrays.asList(output.split(", "))));
  }

  /** Upstream's tracer walks every packet from prerouting; here the origin follows the source's conventions. */
  static Origin origin(String sourceIp) {
    if (Cidr.parse("10.0.0.0/8").contains(sourceIp) || Cidr.parse("fd00:10::/64").contains(sourceIp)) {
      return Origin.POD;
    }
    return NODE_IPS.contains(sourceIp) ? Origin.NODE : Origin.OUTSIDE;
  }
}
