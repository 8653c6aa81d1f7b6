package dev.kubeproxy.backend.ipvs;

import static dev.kubeproxy.trace.KernelFlowHarness.a;

import dev.kubeproxy.backend.netfilter.BackendSelector;
import dev.kubeproxy.backend.netfilter.IptablesBackend;
import dev.kubeproxy.backend.netfilter.IptablesTool;
import dev.kubeproxy.backend.netfilter.Sysctls;
import dev.kubeproxy.config.KubeProxyConfiguration;
import dev.kubeproxy.config.ProxyMode;
import dev.kubeproxy.explain.DebugReport;
import dev.kubeproxy.explain.KernelPath;
import dev.kubeproxy.explain.ReportBuilder;
import dev.kubeproxy.explain.ServiceQuery;
import dev.kubeproxy.host.CommandRunner;
import dev.kubeproxy.host.ProcessCommandRunner;
import dev.kubeproxy.messages.FamilySnapshot;
import dev.kubeproxy.messages.ProxierSnapshot;
import dev.kubeproxy.metrics.ProxyMetrics;
import dev.kubeproxy.model.LocalTrafficDetector;
import dev.kubeproxy.model.ProgrammedRuleset;
import dev.kubeproxy.model.ProxierSettings;
import dev.kubeproxy.model.ProxyState;
import dev.kubeproxy.model.ServicePort;
import dev.kubeproxy.model.ServiceSyncLog;
import dev.kubeproxy.net.IpFamily;
import dev.kubeproxy.trace.KernelFlowHarness;
import dev.kubeproxy.trace.iptables.LocalNode;
import dev.kubeproxy.trace.ipvs.IpvsTracer;
import java.nio.file.Files;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Runs inside the guest (IpvsTracerAgreementGuestIT): the ipvs backend programs {@link KernelFlowHarness#cluster}
 * into the harness's node namespace, each IP family in turn, the state is read back from the kernel as explain reads it, and the ipvs
 * tracer over that state must agree with what the kernel did to random flows (conntrack's reply tuples: IPVS
 * updates them when net.ipv4.vs.conntrack is on, as the backend sets it). Then explain's check of each Service's
 * cluster IP from a pod against the same read-back. Prints "== section" blocks; argument: the seed.
 */
public final class IpvsTracerAgreementGuestMain {
  public static void main(String[] args) throws Exception {
    long seed = Long.parseLong(args[0]);
    List<String> disagreements = new ArrayList<>();
    List<String> explain = new ArrayList<>();
    try (KernelFlowHarness h = new KernelFlowHarness()) {
      CommandRunner inNode = CommandRunner.inNetns(h.node);
      // IPVS's sysctls are per namespace, and the backend's own writes go to the JVM's: the node's are set here
      // and an unanswered UDP entry must outlive sending every origin's flows, which under emulation takes longer
      // than conntrack's default 30 s
      for (String sysctl : List.of("net.ipv4.vs.conntrack=1", "net.ipv4.vs.expire_nodest_conn=1",
          "net.ipv4.vs.expire_quiescent_template=1", "net.netfilter.nf_conntrack_udp_timeout=600")) {
        CommandRunner.Result r = inNode.run(List.of("sysctl", "-qw", sysctl));
        if (!r.ok()) {
          throw new IllegalStateException("sysctl -w " + sysctl + " in the node namespace: " + r.stderr());
        }
      }
      for (IpFamily f : IpFamily.values()) {
        ProxierSettings settings = new ProxierSettings(f, "node-1", List.of(a(f, KernelFlowHarness.NODE_IP)),
            List.of(), false, 14, false, new LocalTrafficDetector("ClusterCIDR", a(f, "10.244.0.0/16")),
            Duration.ofHours(1), Duration.ofSeconds(1), null);
        IpvsProxier.Host host = new IpvsProxier.Host(inNode, new ProxyMetrics(), Clock.systemUTC(),
            new BackendSelector(inNode));
        IpvsProxier proxier = new IpvsProxier(settings, IpvsSettings.of(new KubeProxyConfiguration.IPVS(), f), host,
            new Sysctls(Files.createTempDirectory("sysctl")), () -> NetlinkIpvs.open(h.node), new IpSetTool(inNode),
            new DummyInterface(inNode), new IptablesTool(inNode, f, IptablesBackend.NFT));
        ProxyState state = KernelFlowHarness.cluster(f);
        proxier.sync(state);

        ProgrammedRuleset ruleset = proxier.programmedRuleset().orElseThrow();
        if (ruleset.error() != null) {
          throw new IllegalStateException("reading the state back: " + ruleset.source() + ": " + ruleset.error());
        }
        section("read back", ruleset.text());
        IpvsTracer tracer = IpvsTracer.of(ruleset, new LocalNode(Set.of(a(f, KernelFlowHarness.NODE_IP),
            a(f, KernelFlowHarness.POD_GW)), h.podInterface(), h.externalInterface()));
        disagreements.addAll(h.compare("ipvs", f, tracer, state, seed));

        // explain, as /debug/services runs it on the same read-back: every Service's cluster IP from a pod
        ProxierSettings explained = new ProxierSettings(f, "node-1", List.of(a(f, KernelFlowHarness.NODE_IP),
            a(f, KernelFlowHarness.POD_GW)), List.of(), false, 14, false,
            new LocalTrafficDetector("ClusterCIDR", a(f, "10.244.0.0/16")), Duration.ofHours(1), Duration.ofSeconds(1),
            null);
        ProxierSnapshot snapshot = new ProxierSnapshot(ProxyMode.IPVS, false, true,
            List.of(new FamilySnapshot(explained, state, new ServiceSyncLog(), Map.of(), ruleset)), List.of());
        for (ServicePort svc : state.services().values()) {
          DebugReport report = ReportBuilder.build(snapshot, ServiceQuery.parse(svc.name().service().toString(),
              a(f, "10.244.0.2"),
                (f == IpFamily.IPv6 ? "[" + svc.clusterIP() + "]" : svc.clusterIP()) + ":" + svc.port()));
          for (DebugReport.Port p : report.ports()) {
            KernelPath k = p.kernel();
            String answer = k == null ? "no kernel path" : k.error() != null ? "error: " + k.error()
                : k.disagreement() != null ? "disagrees: " + k.disagreement() : "agrees (" + k.verdict() + ")";
            explain.add(p.servicePort() + " " + answer);
          }
        }
        proxier.cleanup();
      }
    }
    section("disagreements", String.join("\n", disagreements) + "\n");
    explain.sort(null);
    section("explain", String.join("\n", explain) + "\n");
  }

  private static void section(String name, String body) {
    System.out.print("== " + name + "\n" + body);
    System.out.flush();
  }
}
