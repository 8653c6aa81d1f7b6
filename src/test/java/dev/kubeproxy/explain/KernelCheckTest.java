package dev.kubeproxy.explain;

import dev.kubeproxy.testutil.tier.Unit;
import static dev.kubeproxy.explain.Model.ready;
import static dev.kubeproxy.explain.Model.service;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kubeproxy.backend.iptables.IptablesProxier;
import dev.kubeproxy.backend.netfilter.Sysctls;
import dev.kubeproxy.explain.DebugReport.Port;
import dev.kubeproxy.host.CommandRunner;
import dev.kubeproxy.messages.FamilySnapshot;
import dev.kubeproxy.messages.ProxierSnapshot;
import dev.kubeproxy.metrics.ProxyMetrics;
import dev.kubeproxy.model.Endpoint;
import dev.kubeproxy.model.ProgrammedRuleset;
import dev.kubeproxy.model.ProxierSettings;
import dev.kubeproxy.model.ProxyState;
import dev.kubeproxy.model.ServicePort;
import dev.kubeproxy.model.ServicePortName;
import dev.kubeproxy.model.ServiceSyncLog;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * explain's trace of a packet through the rules programmed, against the model's path: the iptables
 * proxier's own dry-run rules (what /debug/services reads in --dry-run), as printed and tampered with.
 */
@Unit
class KernelCheckTest {
  static final String POD = "10.244.1.9";

  final ServicePort web = service("web", 10).nodePort(30080).build();
  final List<Endpoint> endpoints = List.of(ready("10.244.1.5", true), ready("10.244.2.5", false));
  final ProxyState state = new ProxyState(Map.of(web.name(), web), Map.of(web.name(), endpoints), Set.of(),
      Map.of(), List.of(), Map.of());

  /** The dry run's ruleset for the state, as the agent hands it to /debug/services. */
  ProgrammedRuleset printed() throws Exception {
    ProxierSettings dry = new ProxierSettings(Model.settings().family(), "node-1", Model.settings().nodeIPs(),
        List.of(), false, 14, true, Model.settings().localDetector(), java.time.Duration.ofHours(1),
        java.time.Duration.ofSeconds(1), new PrintStream(OutputStream.nullOutputStream()));
    IptablesProxier proxier = new IptablesProxier(dry, new NoCommands(), new ProxyMetrics(),
        new Sysctls(Path.of("/nonexistent-sysctl-root")), () -> List.of("127.0.0.1", Model.NODE_IP), null);
    proxier.privilegedInit();
    proxier.sync(state);
    return proxier.programmedRuleset().orElseThrow();
  }

  Port traced(ProgrammedRuleset rules, String from, String to) {
    ProxierSnapshot snapshot = new ProxierSnapshot(dev.kubeproxy.config.ProxyMode.IPTABLES, true, true,
        List.of(new FamilySnapshot(Model.settings(), state, new ServiceSyncLog(), Map.of(), rules)), List.of());
    DebugReport r = ReportBuilder.build(snapshot, ServiceQuery.parse("ns/web", from, to));
    assertEquals(1, r.ports().size());
    return r.ports().get(0);
  }

  @Test
  void theRulesPrintedAgreeWithTheModel() throws Exception {
    ProgrammedRuleset rules = printed();
    Port p = traced(rules, POD, "10.96.0.10:80");
    KernelPath k = p.kernel();
    assertNotNull(k);
    assertNull(k.error(), () -> k.error());
    assertEquals("DNAT", k.verdict());
    assertEquals(List.of("10.244.1.5:8080", "10.244.2.5:8080"), k.targets());
    assertEquals(false, k.masqueraded());
    assertNull(k.disagreement(), () -> k.disagreement() + "\n" + String.join("\n", k.steps()));
    assertTrue(k.steps().stream().anyMatch(s -> s.contains("KUBE-SVC-")), () -> String.join("\n", k.steps()));
    String text = TextReport.of(ReportBuilder.build(new ProxierSnapshot(dev.kubeproxy.config.ProxyMode.IPTABLES, true, true,
        List.of(new FamilySnapshot(Model.settings(), state,
            new ServiceSyncLog(), Map.of(), rules)), List.of()), ServiceQuery.parse("ns/web", POD, "10.96.0.10:80")));
    assertTrue(text.contains("the rules agree with the model"), text);

    // from outside to the NodePort: masqueraded (externalTrafficPolicy Cluster) on both sides
    Port np = traced(rules, "203.0.113.7", Model.NODE_IP + ":30080");
    assertNull(np.kernel().disagreement(), () -> np.kernel().disagreement());
    assertTrue(np.kernel().masqueraded());
  }

  @Test
  void anEndpointRemovedFromTheRulesIsReportedWhereTheyDisagree() throws Exception {
    ProgrammedRuleset rules = printed();
    String svcChain = Arrays.stream(rules.text().split("\n"))
        .filter(l -> l.startsWith("-A KUBE-SERVICES ") && l.contains("cluster IP"))
        .map(l -> l.substring(l.indexOf("-j ") + 3)).findFirst().orElseThrow(() -> new AssertionError(rules.text()));
    // the jump to the second endpoint's chain is gone: that endpoint is never chosen
    List<String> kept = new ArrayList<>();
    boolean removed = false;
    for (String line : rules.text().split("\n")) {
      if (!removed && line.startsWith("-A " + svcChain + " ") && line.contains("10.244.2.5:8080")) {
        removed = true;
        continue;
      }
      kept.add(line);
    }
    assertTrue(removed, rules.text());
    ProgrammedRuleset tampered = ProgrammedRuleset.iptables(rules.source(), String.join("\n", kept) + "\n");

    Port p = traced(tampered, POD, "10.96.0.10:80");
    KernelPath k = p.kernel();
    assertEquals(List.of("10.244.1.5:8080"), k.targets(), () -> String.join("\n", k.steps()));
    assertNotNull(k.disagreement());
    assertTrue(k.disagreement().contains("ns/web:p80"), k.disagreement());
    assertTrue(k.disagreement().contains("DNAT to [10.244.1.5:8080, 10.244.2.5:8080]"), k.disagreement());
    assertTrue(k.disagreement().contains("the rules DNAT to [10.244.1.5:8080]"), k.disagreement());
    // the model's path is unchanged: it stays the explanation of why
    assertEquals(PacketPath.Verdict.DNAT, p.path().verdict());
    assertEquals(2, p.path().endpoints().size());
  }

  @Test
  void aModeWithoutARulesTracerSaysSo() {
    Port p = traced(ProgrammedRuleset.unavailable("nftables mode", "no tracer here"), POD, "10.96.0.10:80");
    assertEquals("no tracer here", p.kernel().error());
    assertNull(p.kernel().verdict());
  }

  /** A machine without iptables: the dry run's version probe fails, as the agent expects there. */
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
