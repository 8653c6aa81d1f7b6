package dev.kubeproxy.backend.nftables;

import static dev.kubeproxy.testutil.ModelFixtures.ready;
import static dev.kubeproxy.testutil.ModelFixtures.spn;
import static dev.kubeproxy.testutil.ModelFixtures.svc;
import static dev.kubeproxy.trace.KernelFlowHarness.a;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.kubeproxy.backend.nftables.objects.Nftables;
import dev.kubeproxy.backend.nftables.objects.NftablesException;
import dev.kubeproxy.backend.nftables.objects.Transaction;
import dev.kubeproxy.host.CommandRunner;
import dev.kubeproxy.host.ProcessCommandRunner;
import dev.kubeproxy.metrics.ProxyMetrics;
import dev.kubeproxy.model.Endpoint;
import dev.kubeproxy.model.LocalTrafficDetector;
import dev.kubeproxy.model.ProgrammedRuleset;
import dev.kubeproxy.model.ProxierSettings;
import dev.kubeproxy.model.ProxyState;
import dev.kubeproxy.model.ServicePort;
import dev.kubeproxy.model.ServicePortName;
import dev.kubeproxy.net.IpFamily;
import dev.kubeproxy.testutil.tier.Kernel;
import dev.kubeproxy.trace.KernelFlowHarness;
import dev.kubeproxy.trace.Origin;
import dev.kubeproxy.trace.Packet;
import dev.kubeproxy.trace.Protocol;
import dev.kubeproxy.trace.Step;
import dev.kubeproxy.trace.Trace;
import dev.kubeproxy.trace.nftables.NftRuleset;
import dev.kubeproxy.trace.nftables.NftablesTracer;
import dev.kubeproxy.trace.nftables.TraceHost;
import dev.kubeproxy.trace.nftables.json.NftJsonReader;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The tracer-side reader of {@code nft -j} against the agent's own typed tables: clusters of every
 * Service kind and policy, under several settings, are programmed by the proxier into a scratch
 * namespace, listed back as JSON through {@link NftablesProxier#programmedRuleset}, read, and traced
 * for every address, port and origin; each trace must equal the trace of the typed table the
 * proxier's transactions built (path included), after a full sync and after a partial one.
 */
@Kernel
class JsonReadBackKernelTest {
  private static final String NODE_IP = KernelFlowHarness.NODE_IP;
  private String ns;
  private CommandRunner inNs;

  @BeforeEach
  void namespace() throws Exception {
    assumeTrue("root".equals(System.getProperty("user.name")), "needs root to create network namespaces");
    assumeTrue(new ProcessCommandRunner().run(List.of("nft", "--version")).ok(), "needs the nft command");
    ns = "kp-njr-" + UUID.randomUUID().toString().substring(0, 8);
    CommandRunner.Result r = new ProcessCommandRunner().run(List.of("ip", "netns", "add", ns));
    assumeTrue(r.ok(), "cannot create a network namespace: " + r.stderr());
    inNs = CommandRunner.inNetns(ns);
  }

  @AfterEach
  void remove() throws Exception {
    if (ns != null) {
      new ProcessCommandRunner().run(List.of("ip", "netns", "del", ns));
    }
  }

  /** One way to set the agent up: its settings, the pod interface the host shows, Service CIDRs. */
  record Setup(String name, ProxierSettings settings, String podInterface, List<String> serviceCidrs) {}

  static List<Setup> setups(IpFamily f) {
    List<String> node = List.of(a(f, NODE_IP));
    return List.of(
        new Setup("ClusterCIDR", new ProxierSettings(f, "node-1", node, List.of(), false, 14, false,
            new LocalTrafficDetector("ClusterCIDR", a(f, "10.244.0.0/16")), Duration.ofHours(1), Duration.ofSeconds(1),
            null), null, List.of()),
        new Setup("masqueradeAll, interface prefix, nodePortAddresses, ServiceCIDRs", new ProxierSettings(f, "node-1",
            node, List.of(a(f, "192.168.50.0/24")), true, 5, false, new LocalTrafficDetector("InterfaceNamePrefix",
            "kpod"), Duration.ofHours(1), Duration.ofSeconds(1), null), "kpod0",
            List.of(a(f, "10.96.0.0/16"), a(f, "10.100.0.0/16"))),
        new Setup("bridge", new ProxierSettings(f, "node-1", node, List.of(), false, 14, false,
            new LocalTrafficDetector("BridgeInterface", "cbr0"), Duration.ofHours(1), Duration.ofSeconds(1), null),
            "cbr0", List.of()));
  }

  @Test
  void theTablesReadBackTraceAsTheTypedTablesDo() throws Exception {
    int compared = 0;
    for (IpFamily f : IpFamily.values()) {
      for (Setup setup : setups(f)) {
        Recording nft = new Recording(new NftCommand(f, inNs));
        NftablesProxier proxier = new NftablesProxier(setup.settings(), inNs, nft, new ProxyMetrics(),
            Clock.systemUTC(), () -> List.of(a(f, NODE_IP)));
        proxier.privilegedInit();
        ProxyState first = withCidrs(withMany(KernelFlowHarness.cluster(f), f), setup.serviceCidrs());
        proxier.sync(first);
        compared += compare(setup, f, nft, proxier, first);

        // a partial sync: an endpoint gone, so elements and rules are deleted rather than written anew
        ProxyState second = withoutEndpoint(first, spn("ns", "plain", "p"));
        proxier.sync(second);
        compared += compare(setup, f, nft, proxier, second);
        proxier.cleanup();
      }
    }
    assertTrue(compared > 1000, "only " + compared + " packets compared");
  }

  private int compare(Setup setup, IpFamily f, Recording nft, NftablesProxier proxier, ProxyState state) {
    ProgrammedRuleset read = proxier.programmedRuleset().orElseThrow();
    assertEquals(ProgrammedRuleset.NFT_JSON, read.form(), () -> read.source() + ": " + read.error());
    TraceHost host = new TraceHost(Set.of(a(f, NODE_IP)), setup.podInterface());
    NftablesTracer typed = new NftablesTracer(NftRuleset.replay(f, nft.applied), host);
    NftablesTracer kernel = new NftablesTracer(NftJsonReader.read(f, read.text()), host);
    List<String> differences = new ArrayList<>();
    List<Packet> packets = packets(f, state);
    for (Packet p : packets) {
      Trace expected = sameForm(typed.trace(p));
      Trace got = sameForm(kernel.trace(p));
      if (!expected.equals(got)) {
        differences.add(p + ":\n  typed  " + expected + "\n  kernel " + got);
      }
    }
    assertTrue(differences.isEmpty(), () -> setup.name() + " " + f + ": " + differences.size() + " of "
        + packets.size() + " packets differ:\n" + String.join("\n", differences.subList(0, Math.min(5,
        differences.size()))));
    return packets.size();
  }

  /** The kernel lists an anonymous set of one element as the element alone: the same match. */
  static Trace sameForm(Trace t) {
    List<Step> steps = new ArrayList<>();
    for (Step s : t.path()) {
      steps.add(new Step(s.chain(), s.rule().replaceAll("\\{ ([^ ,{}]+) \\}", "$1")));
    }
    return new Trace(steps, t.verdict(), t.dnatTargets(), t.masqueraded());
  }

  /** Every address and port of every Service (and a wrong port, and loopback NodePorts), from every origin. */
  static List<Packet> packets(IpFamily f, ProxyState state) {
    List<String> sources = List.of(a(f, "10.244.0.2"), a(f, NODE_IP), a(f, "192.168.50.2"), a(f, "198.51.100.7"),
        a(f, "10.244.1.10"));
    List<Packet> out = new ArrayList<>();
    for (ServicePort svc : state.services().values()) {
      Protocol proto = Protocol.valueOf(svc.protocol().toUpperCase(Locale.ROOT));
      List<String[]> to = new ArrayList<>();
      to.add(new String[] {svc.clusterIP(), String.valueOf(svc.port())});
      to.add(new String[] {svc.clusterIP(), String.valueOf(svc.port() + 1)});
      svc.externalIPs().forEach(ip -> to.add(new String[] {ip, String.valueOf(svc.port())}));
      svc.loadBalancerVIPs().forEach(ip -> to.add(new String[] {ip, String.valueOf(svc.port())}));
      if (svc.nodePort() > 0) {
        to.add(new String[] {a(f, NODE_IP), String.valueOf(svc.nodePort())});
        to.add(new String[] {f == IpFamily.IPv4 ? "127.0.0.1" : "::1", String.valueOf(svc.nodePort())});
      }
      for (String[] dst : to) {
        for (String src : sources) {
          Origin origin = src.equals(a(f, NODE_IP)) ? Origin.NODE
              : src.startsWith(a(f, "10.244.0.2").substring(0, 6)) ? Origin.POD : Origin.OUTSIDE;
          out.add(new Packet(origin, src, dst[0], Integer.parseInt(dst[1]), proto, false));
          out.add(new Packet(origin, src, dst[0], Integer.parseInt(dst[1]), proto, true));
        }
      }
    }
    return out;
  }

  /** The cluster, with a Service of many endpoints (several random draws over a range map shard). */
  static ProxyState withMany(ProxyState s, IpFamily f) {
    List<Endpoint> eps = new ArrayList<>();
    for (int i = 1; i <= 7; i++) {
      eps.add(ready(a(f, "10.244.3." + i), 9090, i % 2 == 0));
    }
    ServicePort many = svc(spn("ns", "many", "p"), a(f, "10.96.0.30"), 90).nodePort(30030).build();
    Map<ServicePortName, ServicePort> services = new LinkedHashMap<>(s.services());
    services.put(many.name(), many);
    Map<ServicePortName, List<Endpoint>> endpoints = new LinkedHashMap<>(s.endpoints());
    endpoints.put(many.name(), eps);
    return new ProxyState(services, endpoints, s.changedServices(), s.nodeLabels(), s.serviceCIDRs(),
        s.triggerTimes(), s.fullSyncReason(), s.topologyGates(), s.changedPorts());
  }

  static ProxyState withCidrs(ProxyState s, List<String> cidrs) {
    return new ProxyState(s.services(), s.endpoints(), s.changedServices(), s.nodeLabels(), cidrs, s.triggerTimes(),
        s.fullSyncReason(), s.topologyGates(), s.changedPorts());
  }

  static ProxyState withoutEndpoint(ProxyState s, ServicePortName name) {
    Map<ServicePortName, List<Endpoint>> endpoints = new HashMap<>(s.endpoints());
    List<Endpoint> eps = new ArrayList<>(endpoints.get(name));
    eps.remove(0);
    endpoints.put(name, eps);
    return new ProxyState(s.services(), endpoints, Set.of(name.service()), s.nodeLabels(), s.serviceCIDRs(),
        s.triggerTimes(), null, s.topologyGates(), null);
  }

  /** The kernel's nft, keeping every transaction it applied. */
  static final class Recording implements Nftables {
    final List<Transaction> applied = new ArrayList<>();
    private final Nftables kernel;

    Recording(Nftables kernel) {
      this.kernel = kernel;
    }

    @Override
    public void run(Transaction tx) throws NftablesException {
      kernel.run(tx);
      applied.add(tx);
    }

    @Override
    public TableContents list() throws NftablesException {
      return kernel.list();
    }
  }
}
