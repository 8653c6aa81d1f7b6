package dev.kubeproxy.trace.iptables;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.kubeproxy.metrics.ProxyMetrics;
import dev.kubeproxy.net.Cidr;
import dev.kubeproxy.host.CommandRunner;
import dev.kubeproxy.net.IpFamily;
import dev.kubeproxy.model.LocalTrafficDetector;
import dev.kubeproxy.model.ProxierSettings;
import dev.kubeproxy.model.ProxyState;
import dev.kubeproxy.backend.iptables.IptablesProxier;
import dev.kubeproxy.backend.iptables.JumpRule;
import dev.kubeproxy.backend.netfilter.Sysctls;
import dev.kubeproxy.trace.Origin;
import dev.kubeproxy.trace.Packet;
import dev.kubeproxy.trace.Protocol;
import dev.kubeproxy.trace.Step;
import dev.kubeproxy.trace.Trace;
import dev.kubeproxy.trace.Verdict;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import org.junit.jupiter.api.function.Executable;

/**
 * Upstream's packet-flow test conventions (pkg/proxy/iptables/proxier_test.go NewFakeProxier, packetFlowTest,
 * runPacketFlowTests) over the agent's own rules: the iptables proxier's --dry-run output for a state, layered on
 * the jump rules it puts in the built-in chains, read back by {@link IptablesTracer}.
 */
final class FlowHarness {
  static final String NODE_IP = "192.168.0.2";
  static final String NODE_IP_ALT = "192.168.1.2";
  static final String EXTERNAL_IP = "192.168.99.11";
  static final String NODE_IPV6 = "2001:db8::1";
  static final String NODE_IPV6_ALT = "2001:db8:1::2";
  static final String EXTERNAL_CLIENT = "203.0.113.2";
  static final String EXTERNAL_CLIENT_BLOCKED = "203.0.113.130";
  static final List<String> NODE_IPS = List.of(NODE_IP, NODE_IP_ALT, EXTERNAL_IP, NODE_IPV6, NODE_IPV6_ALT);
  static final LocalNode NODE = new LocalNode(Set.copyOf(NODE_IPS), "cni0", "eth0");
  private static final List<Cidr> POD_CIDRS = List.of(Cidr.parse("10.0.0.0/8"), Cidr.parse("fd00:10::/64"));

  private FlowHarness() {}

  /** One packetFlowTest: output is upstream's ("" no match, "ACCEPT", "DROP", "REJECT", or "ip:port, ..."). */
  record Flow(String name, String source, Protocol protocol, String destination, int port, String output,
      boolean masq) {
    Flow withOutput(String o) {
      return new Flow(name, source, protocol, destination, port, o, masq);
    }

    Flow withMasq(boolean m) {
      return new Flow(name, source, protocol, destination, port, output, m);
    }
  }

  static Flow flow(String name, String source, String destination, int port, String output, boolean masq) {
    return new Flow(name, source, Protocol.TCP, destination, port, output, masq);
  }

  static Flow flow(String name, String source, String destination, int port, String output) {
    return flow(name, source, destination, port, output, false);
  }

  static Flow flow(String name, String source, Protocol protocol, String destination, int port, String output) {
    return new Flow(name, source, protocol, destination, port, output, false);
  }

  /** The proxier options upstream's fake proxier has, changed by the test. */
  static final class Setup {
    IpFamily family = IpFamily.IPv4;
    boolean localhostNodePorts = true;
    List<String> nodePortAddresses = List.of();
    boolean masqueradeAll;
    boolean localDetector = true;
    /** A detector other than upstream's ClusterCIDR one, or null. */
    LocalTrafficDetector detector;

    Setup with(Consumer<Setup> change) {
      change.accept(this);
      return this;
    }
  }

  static IptablesTracer tracer(ProxyState state) {
    return tracer(new Setup(), state);
  }

  /** The agent's rules for this state, as a dry run prints them, on top of its jump rules. */
  static IptablesTracer tracer(Setup setup, ProxyState state) {
    boolean v4 = setup.family == IpFamily.IPv4;
    ByteArrayOutputStream printed = new ByteArrayOutputStream();
    LocalTrafficDetector detector = setup.detector != null ? setup.detector
        : !setup.localDetector ? LocalTrafficDetector.noop()
        : new LocalTrafficDetector("ClusterCIDR", v4 ? "10.0.0.0/8" : "fd00:10::/64");
    ProxierSettings settings = new ProxierSettings(setup.family, "test-node", List.of(v4 ? NODE_IP : NODE_IPV6),
        setup.nodePortAddresses, setup.masqueradeAll, 14, setup.localhostNodePorts, detector, Duration.ofHours(1),
        Duration.ofSeconds(1), new PrintStream(printed, true, StandardCharsets.UTF_8));
    List<String> interfaceAddresses = new ArrayList<>(List.of("127.0.0.1", "::1"));
    interfaceAddresses.addAll(NODE_IPS);
    IptablesProxier proxier = new IptablesProxier(settings, new NoCommands(), new ProxyMetrics(),
        new Sysctls(Path.of("/nonexistent-sysctl-root")), () -> interfaceAddresses, null);
    try {
      proxier.privilegedInit();
      proxier.sync(state);
    } catch (Exception e) {
      throw new AssertionError("dry-run sync failed", e);
    }
    IptablesRules rules = IptablesRules.parse(jumpRules());
    rules.apply(printed.toString(StandardCharsets.UTF_8));
    return new IptablesTracer(rules, NODE);
  }

  /** The jump rules a full sync inserts at the top of the built-in chains (and the chains they need). */
  static String jumpRules() {
    List<JumpRule> all = new ArrayList<>(JumpRule.KUBE_PROXY);
    all.addAll(JumpRule.KUBELET);
    Map<String, StringBuilder> tables = new LinkedHashMap<>();
    Map<String, Set<String>> chains = new LinkedHashMap<>();
    for (JumpRule jump : all) {
      chains.computeIfAbsent(jump.table(), t -> new LinkedHashSet<>()).add(jump.target());
      tables.computeIfAbsent(jump.table(), t -> new StringBuilder())
          .append(jump.saveLine().replaceFirst("^-A ", "-I ")).append('\n');
    }
    StringBuilder text = new StringBuilder();
    tables.forEach((table, rules) -> {
      text.append('*').append(table).append('\n');
      chains.get(table).forEach(c -> text.append(':').append(c).append(" - [0:0]\n"));
      text.append(rules).append("COMMIT\n");
    });
    return text.toString();
  }

  /** Where upstream's tracer would have the packet come from: the node's addresses, the pod CIDR, or outside. */
  static Origin origin(String source) {
    if (NODE.isLocal(source)) {
      return Origin.NODE;
    }
    return POD_CIDRS.stream().anyMatch(c -> c.contains(source)) ? Origin.POD : Origin.OUTSIDE;
  }

  /** runPacketFlowTests: each flow's verdict, DNAT targets and masquerade as upstream's table states them. */
  static void run(IptablesTracer tracer, List<Flow> flows) {
    List<Executable> checks = new ArrayList<>();
    for (Flow f : flows) {
      Packet packet = new Packet(origin(f.source()), f.source(), f.destination(), f.port(), f.protocol(), false);
      Trace trace = tracer.trace(packet);
      checks.add(() -> assertEquals(expected(f), actual(trace), () -> f.name() + ": " + packet + " by\n"
          + trace.path().stream().map(Step::toString).collect(Collectors.joining("\n"))));
    }
    assertAll(checks);
  }

  private static String expected(Flow f) {
    String output = f.output().contains(":")
        ? String.join(", ", new TreeSet<>(List.of(f.output().split(", ")))) : f.output();
    return output + " masq=" + f.masq();
  }

  /** The trace in upstream's terms: the DNAT targets, else the verdict ("" for none met: accepted by policy). */
  private static String actual(Trace trace) {
    String output;
    if (trace.verdict() != Verdict.ACCEPT) {
      output = trace.verdict().name();
    } else if (!trace.dnatTargets().isEmpty()) {
      output = String.join(", ", new TreeSet<>(trace.dnatTargets()));
    } else {
      boolean explicit = trace.path().stream().anyMatch(s -> s.chain().startsWith("filter/")
          && s.rule().endsWith("-j ACCEPT"));
      output = explicit ? "ACCEPT" : "";
    }
    return output + " masq=" + trace.masqueraded();
  }

  /** A machine without iptables: the dry run's version probe fails at once, as the agent expects there. */
  private static final class NoCommands implements CommandRunner {
    @Override
    public Result run(List<String> argv, CharSequence stdin) throws IOException {
      throw new IOException("no commands in a unit test");
    }

    @Override
    public Result runLines(List<String> argv, Consumer<String> lines) throws IOException {
      throw new IOException("no commands in a unit test");
    }
  }
}
