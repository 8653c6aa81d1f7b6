package dev.kubeproxy.trace;

import static dev.kubeproxy.testutil.ModelFixtures.ready;
import static dev.kubeproxy.testutil.ModelFixtures.spn;
import static dev.kubeproxy.testutil.ModelFixtures.state;
import static dev.kubeproxy.testutil.ModelFixtures.svc;
import static dev.kubeproxy.testutil.ModelFixtures.terminating;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kubeproxy.host.CommandRunner;
import dev.kubeproxy.host.ProcessCommandRunner;
import dev.kubeproxy.model.Endpoint;
import dev.kubeproxy.model.ProxyState;
import dev.kubeproxy.model.ServicePort;
import dev.kubeproxy.net.IpFamily;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Whether a tracer agrees with the kernel: a node namespace (where a test's proxier programs
 * {@link #cluster}, every Service kind and policy) wired to a pod namespace and an outside namespace,
 * random flows (a seeded Random) sent for real as a TCP SYN or UDP datagram from where each flow's
 * origin says, and the kernel's answer read from the node's conntrack table: the DNAT target (reply
 * source) and masquerade (reply destination), its absence a drop, an ICMP port unreachable or RST
 * at the client a reject. The endpoints never answer: the DNAT is in conntrack anyway.
 */
public final class KernelFlowHarness implements AutoCloseable {
  public static final String NODE_IP = "192.168.50.1";
  static final String OUTSIDE_IP = "192.168.50.2";
  static final String OUTSIDE_IN_RANGE = "198.51.100.7";
  public static final String POD_GW = "10.244.0.1";
  static final String POD_IP = "10.244.0.2";
  static final int FLOWS = 300;
  private static final Pattern ENTRY = Pattern.compile("^(tcp|udp)\\s.*?src=(\\S+) dst=(\\S+) sport=(\\d+)"
      + " dport=(\\d+) .*?src=(\\S+) dst=(\\S+) sport=(\\d+) dport=(\\d+)");

  final List<String> namespaces = new ArrayList<>();
  final String suffix = UUID.randomUUID().toString().substring(0, 6);
  public final String node;
  public final String pod;
  public final String outside;

  /** Creates the node, pod and outside namespaces and wires them. */
  public KernelFlowHarness() throws IOException {
    try {
      node = netns("kp-tn-" + suffix);
      pod = netns("kp-tp-" + suffix);
      outside = netns("kp-to-" + suffix);
      wire(node, pod, outside, suffix);
    } catch (IOException | RuntimeException e) {
      close();
      throw e;
    }
  }

  /** The node's interface towards the pod namespace. */
  public String podInterface() {
    return "kpod" + suffix;
  }

  /** The node's interface towards the outside namespace. */
  public String externalInterface() {
    return "kext" + suffix;
  }

  @Override
  public void close() throws IOException {
    for (String ns : namespaces) {
      new ProcessCommandRunner().run(List.of("ip", "netns", "del", ns));
    }
  }

  /**
   * Sends the flows and compares the kernel's answers with the tracer's; prints the seed, count and
   * time, and answers the disagreements (the flow and both answers).
   */
  public List<String> compare(String mode, IpFamily family, PacketTracer tracer, ProxyState state, long seed)
      throws Exception {
    List<Flow> flows = flows(new Random(seed), state, family, tracer);
    long start = System.nanoTime();
    Map<Integer, Answer> kernel = kernel(node, pod, outside, flows, family);
    List<String> disagreements = new ArrayList<>();
    for (int i = 0; i < flows.size(); i++) {
      Flow f = flows.get(i);
      Trace t = tracer.trace(new Packet(f.origin(), f.source(), f.destination(), f.port(), f.protocol(), false));
      Answer traced = new Answer(t.verdict().name(), new TreeSet<>(t.dnatTargets()), t.masqueraded());
      if (!agree(traced, kernel.get(i))) {
        disagreements.add(f + ": tracer " + traced + ", kernel " + kernel.get(i));
      }
    }
    Map<String, Integer> kinds = new java.util.TreeMap<>();
    kernel.values().forEach(k -> kinds.merge(k.targets().isEmpty() ? k.verdict() : "DNAT", 1, Integer::sum));
    // a topology that carries no packet would agree with a tracer that drops everything
    for (String kind : List.of("DNAT", "DROP", "REJECT")) {
      if (!kinds.containsKey(kind)) {
        disagreements.add("the kernel gave no " + kind + " answer in " + flows.size() + " flows (" + kinds
            + "): the namespaces do not carry the packets as the test means");
      }
    }
    System.out.println("kernel flows (" + mode + ", " + family + "): " + flows.size() + " flows " + kinds + ", seed "
        + seed + ", " + Duration.ofNanos(System.nanoTime() - start).toMillis() + " ms, " + disagreements.size()
        + " disagree");
    return disagreements;
  }

  public record Flow(Origin origin, String source, int sourcePort, Protocol protocol, String destination, int port) {}

  /** What the kernel did with a flow, in the tracer's terms. */
  public record Answer(String verdict, Set<String> targets, boolean masqueraded) {
    @Override
    public String toString() {
      return verdict + (targets.isEmpty() ? "" : " " + targets) + (masqueraded ? " masqueraded" : "");
    }
  }

  public static ProxyState cluster() {
    return cluster(IpFamily.IPv4);
  }

  /** Every Service kind and policy, in one family's addresses. */
  public static ProxyState cluster(IpFamily f) {
    Endpoint unready = new Endpoint(a(f, "10.244.1.40"), 8080, false, false, false, false, null);
    return state()
        .add(svc(spn("ns", "plain", "p"), a(f, "10.96.0.10"), 80), ready(a(f, "10.244.1.10"), 8080, false),
            ready(a(f, "10.244.0.10"), 8080, true))
        .add(svc(spn("ns", "node-port", "p"), a(f, "10.96.0.11"), 80).nodePort(30011), ready(a(f, "10.244.1.11"), 8080, false))
        .add(svc(spn("ns", "lb", "p"), a(f, "10.96.0.12"), 80).nodePort(30012).loadBalancer(a(f, "203.0.113.12"))
            .sourceRanges(a(f, "198.51.100.0/24")), ready(a(f, "10.244.1.12"), 8080, false), ready(a(f, "10.244.2.12"), 8080, false))
        .add(svc(spn("ns", "ext", "p"), a(f, "10.96.0.13"), 80).externalIPs(a(f, "192.0.2.13")), ready(a(f, "10.244.1.13"), 8080, false))
        .add(svc(spn("ns", "etp-local", "p"), a(f, "10.96.0.14"), 80).nodePort(30014).loadBalancer(a(f, "203.0.113.14"))
            .etpLocal(), ready(a(f, "10.244.0.14"), 8080, true), ready(a(f, "10.244.1.14"), 8080, false))
        .add(svc(spn("ns", "etp-local-none", "p"), a(f, "10.96.0.15"), 80).nodePort(30015).etpLocal(),
            ready(a(f, "10.244.1.15"), 8080, false))
        .add(svc(spn("ns", "itp-local", "p"), a(f, "10.96.0.16"), 80).itpLocal(), ready(a(f, "10.244.1.16"), 8080, false))
        .add(svc(spn("ns", "affinity", "p"), a(f, "10.96.0.17"), 80).affinity(), ready(a(f, "10.244.1.17"), 8080, false),
            ready(a(f, "10.244.2.17"), 8080, false))
        .add(svc(spn("ns", "terminating", "p"), a(f, "10.96.0.18"), 80).nodePort(30018),
            terminating(a(f, "10.244.1.18"), 8080, false), unready)
        .add(svc(spn("ns", "none", "p"), a(f, "10.96.0.19"), 80).nodePort(30019).loadBalancer(a(f, "203.0.113.19")))
        .add(svc(spn("ns", "dns", "d", "UDP"), a(f, "10.96.0.20"), 53).nodePort(30020), ready(a(f, "10.244.1.20"), 53, false))
        .build();
  }

  /** An IPv4 address of the test (or CIDR) in the family's addresses: the IPv6 one stands in the same place. */
  public static String a(IpFamily f, String v4) {
    if (f == IpFamily.IPv4) {
      return v4;
    }
    String[] cidr = v4.split("/");
    String[] o = cidr[0].split("\\.");
    String v6;
    if (o[0].equals("10") && o[1].equals("244")) {
      v6 = "fd00:10:244:" + (o[2].equals("0") ? "" : o[2] + ":") + ":" + o[3];
    } else if (o[0].equals("10")) {
      v6 = "fd00:96::" + o[3];
    } else {
      v6 = "fd00:" + (o[0].equals("192") && o[1].equals("168") ? o[2] : o[0]) + "::" + o[3];
    }
    if (cidr.length == 1) {
      return v6;
    }
    return (v6.endsWith("::0") ? v6.substring(0, v6.length() - 1) : v6) + "/" + (cidr[1].equals("16") ? "48" : "64");
  }

  /** The kernel took one of the random choices: its one DNAT target must be among the tracer's. */
  static boolean agree(Answer traced, Answer kernel) {
    return traced.verdict().equals(kernel.verdict()) && traced.masqueraded() == kernel.masqueraded()
        && (traced.targets().isEmpty() ? kernel.targets().isEmpty()
            : kernel.targets().size() == 1 && traced.targets().containsAll(kernel.targets()));
  }

  /** Random flows to every address and port of the cluster (and some wrong ports), from every origin. */
  /**
   * FLOWS random flows, then more until the tracer expects each of a DNAT, a drop and a reject
   * among them (a few kinds are rare in some clusters), so that the check that the kernel gave
   * each kind does not depend on the draw.
   */
  static List<Flow> flows(Random random, ProxyState state, IpFamily f, PacketTracer tracer) {
    List<ServicePort> services = new ArrayList<>(state.services().values());
    services.sort(java.util.Comparator.comparing(s -> s.name().toString()));
    List<Flow> out = new ArrayList<>();
    Set<String> expected = new java.util.HashSet<>();
    while (out.size() < FLOWS || (expected.size() < 3 && out.size() < 10 * FLOWS)) {
      Flow flow = flow(random, services, f, out.size());
      out.add(flow);
      Trace t = tracer.trace(new Packet(flow.origin(), flow.source(), flow.destination(), flow.port(),
          flow.protocol(), false));
      expected.add(t.dnatTargets().isEmpty() ? t.verdict().name() : "DNAT");
      expected.retainAll(List.of("DNAT", "DROP", "REJECT"));
    }
    return out;
  }

  private static Flow flow(Random random, List<ServicePort> services, IpFamily f, int i) {
    ServicePort svc = services.get(random.nextInt(services.size()));
    Origin origin = Origin.values()[random.nextInt(3)];
    String source = switch (origin) {
      case POD -> a(f, POD_IP);
      case NODE -> a(f, NODE_IP);
      case OUTSIDE -> a(f, random.nextBoolean() ? OUTSIDE_IP : OUTSIDE_IN_RANGE);
    };
    List<String[]> addresses = new ArrayList<>();
    addresses.add(new String[] {svc.clusterIP(), String.valueOf(svc.port())});
    if (svc.nodePort() > 0) {
      addresses.add(new String[] {a(f, NODE_IP), String.valueOf(svc.nodePort())});
    }
    svc.externalIPs().forEach(ip -> addresses.add(new String[] {ip, String.valueOf(svc.port())}));
    svc.loadBalancerVIPs().forEach(ip -> addresses.add(new String[] {ip, String.valueOf(svc.port())}));
    String[] to = addresses.get(random.nextInt(addresses.size()));
    // a port no rule takes, only where the node's own stack would not answer it (a closed local port resets)
    boolean wrongPort = !to[0].equals(a(f, NODE_IP)) && random.nextInt(10) == 0;
    int port = Integer.parseInt(to[1]) + (wrongPort ? 1 : 0);
    return new Flow(origin, source, 20000 + i, Protocol.valueOf(svc.protocol()), to[0], port);
  }

  /** Sends every flow from its origin's namespace, then reads the node's conntrack table. */
  private static Map<Integer, Answer> kernel(String node, String pod, String outside, List<Flow> flows, IpFamily family)
      throws Exception {
    Map<Origin, String> namespaceOf = Map.of(Origin.NODE, node, Origin.POD, pod, Origin.OUTSIDE, outside);
    Map<Integer, String> seen = new HashMap<>();
    for (Origin origin : Origin.values()) {
      StringBuilder input = new StringBuilder();
      for (int i = 0; i < flows.size(); i++) {
        Flow f = flows.get(i);
        if (f.origin() == origin) {
          input.append(i).append(' ').append(f.protocol()).append(' ').append(f.source()).append(' ')
              .append(f.sourcePort()).append(' ').append(f.destination()).append(' ').append(f.port()).append('\n');
        }
      }
      CommandRunner.Result r = CommandRunner.inNetns(namespaceOf.get(origin))
          .run(List.of("python3", "-c", script(), "1.0"), input);
      assertTrue(r.ok(), () -> "sending failed: " + r.stderr());
      for (String line : r.stdout().split("\n")) {
        String[] f = line.split(" ");
        if (f.length >= 2) {
          seen.put(Integer.parseInt(f[0]), f[1]);
        }
      }
    }
    Map<String, Answer> entries = new HashMap<>();
    for (String line : run(CommandRunner.inNetns(node), "conntrack", "-L", "-f", family == IpFamily.IPv4 ? "ipv4" : "ipv6").split("\n")) {
      Matcher m = ENTRY.matcher(line);
      if (m.find()) {
        String key = m.group(1).toUpperCase() + " " + m.group(2) + ":" + m.group(4) + " " + m.group(3) + ":"
            + m.group(5);
        String replySource = (m.group(6).contains(":") ? "[" + m.group(6) + "]" : m.group(6)) + ":" + m.group(8);
        boolean dnat = !(m.group(6).equals(m.group(3)) && m.group(8).equals(m.group(5)));
        boolean masq = !m.group(7).equals(m.group(2));
        entries.put(key, new Answer("ACCEPT", dnat ? new TreeSet<>(Set.of(replySource)) : new TreeSet<>(), masq));
      }
    }
    Map<Integer, Answer> out = new HashMap<>();
    for (int i = 0; i < flows.size(); i++) {
      Flow f = flows.get(i);
      Answer entry = entries.get(f.protocol() + " " + f.source() + ":" + f.sourcePort() + " " + f.destination() + ":"
          + f.port());
      // A reject answers at once. A node's own packet to itself is in conntrack even when filter INPUT
      // rejects it (confirmed on the way out), so the answer, not the entry, tells a reject.
      if ("REFUSED".equals(seen.get(i))) {
        out.put(i, new Answer("REJECT", new TreeSet<>(), false));
      } else {
        out.put(i, entry != null ? entry : new Answer("DROP", new TreeSet<>(), false));
      }
    }
    return out;
  }

  private static String script() throws IOException {
    try (InputStream in = KernelFlowHarness.class.getResourceAsStream("send_flows.py")) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  private String netns(String name) throws IOException {
    run(new ProcessCommandRunner(), "ip", "netns", "add", name);
    namespaces.add(name);
    run(CommandRunner.inNetns(name), "ip", "link", "set", "lo", "up");
    return name;
  }

  /** node -- kpod -- pod (10.244.0.0/16 routed to the pod side), node -- kext -- outside. */
  private static void wire(String node, String pod, String outside, String suffix) throws IOException {
    CommandRunner root = new ProcessCommandRunner();
    CommandRunner n = CommandRunner.inNetns(node);
    CommandRunner p = CommandRunner.inNetns(pod);
    CommandRunner o = CommandRunner.inNetns(outside);
    run(root, "ip", "link", "add", "kpod" + suffix, "netns", node, "type", "veth", "peer", "name", "eth0", "netns",
        pod);
    run(root, "ip", "link", "add", "kext" + suffix, "netns", node, "type", "veth", "peer", "name", "eth0", "netns",
        outside);
    run(n, "ip", "addr", "add", POD_GW + "/24", "dev", "kpod" + suffix);
    run(n, "ip", "addr", "add", NODE_IP + "/24", "dev", "kext" + suffix);
    run(n, "ip", "link", "set", "kpod" + suffix, "up");
    run(n, "ip", "link", "set", "kext" + suffix, "up");
    run(n, "ip", "route", "add", "10.244.0.0/16", "dev", "kpod" + suffix);
    run(n, "ip", "route", "add", "198.51.100.0/24", "via", OUTSIDE_IP);
    run(n, "ip", "route", "add", "default", "via", OUTSIDE_IP);
    run(n, "sysctl", "-qw", "net.ipv4.ip_forward=1");
    // every reject must answer: the per-client limit and the namespace-wide burst would each silence
    // some of hundreds of rejects sent at once; an empty rate mask exempts every ICMP type from both
    run(n, "sysctl", "-qw", "net.ipv4.icmp_ratemask=0");
    run(p, "ip", "addr", "add", POD_IP + "/24", "dev", "eth0");
    run(p, "ip", "link", "set", "eth0", "up");
    run(p, "ip", "route", "add", "default", "via", POD_GW);
    run(o, "ip", "addr", "add", OUTSIDE_IP + "/24", "dev", "eth0");
    run(o, "ip", "addr", "add", OUTSIDE_IN_RANGE + "/32", "dev", "eth0");
    run(o, "ip", "link", "set", "eth0", "up");
    run(o, "ip", "route", "add", "default", "via", NODE_IP);
    IpFamily v6 = IpFamily.IPv6;
    run(n, "sysctl", "-qw", "net.ipv6.conf.all.forwarding=1");
    run(n, "sysctl", "-qw", "net.ipv6.icmp.ratemask=");
    run(n, "ip", "-6", "addr", "add", a(v6, POD_GW) + "/64", "dev", "kpod" + suffix, "nodad");
    run(n, "ip", "-6", "addr", "add", a(v6, NODE_IP) + "/64", "dev", "kext" + suffix, "nodad");
    run(n, "ip", "-6", "route", "add", a(v6, "10.244.0.0/16"), "dev", "kpod" + suffix);
    run(n, "ip", "-6", "route", "add", a(v6, "198.51.100.0/24"), "via", a(v6, OUTSIDE_IP));
    run(n, "ip", "-6", "route", "add", "default", "via", a(v6, OUTSIDE_IP));
    run(p, "ip", "-6", "addr", "add", a(v6, POD_IP) + "/64", "dev", "eth0", "nodad");
    run(p, "ip", "-6", "route", "add", "default", "via", a(v6, POD_GW));
    run(o, "ip", "-6", "addr", "add", a(v6, OUTSIDE_IP) + "/64", "dev", "eth0", "nodad");
    run(o, "ip", "-6", "addr", "add", a(v6, OUTSIDE_IN_RANGE) + "/128", "dev", "eth0", "nodad");
    run(o, "ip", "-6", "route", "add", "default", "via", a(v6, NODE_IP));
  }

  private static String run(CommandRunner runner, String... argv) throws IOException {
    CommandRunner.Result r = runner.run(List.of(argv));
    if (!r.ok()) {
      throw new IOException(String.join(" ", argv) + " failed: " + r.stderr());
    }
    return r.stdout();
  }
}
