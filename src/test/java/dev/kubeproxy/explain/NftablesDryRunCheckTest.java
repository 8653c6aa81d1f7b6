package dev.kubeproxy.explain;

import static dev.kubeproxy.explain.Model.ready;
import static dev.kubeproxy.explain.Model.service;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kubeproxy.backend.nftables.CommitGenerations;
import dev.kubeproxy.backend.nftables.NftablesProxier;
import dev.kubeproxy.config.ProxyMode;
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
import dev.kubeproxy.model.ServiceSyncLog;
import dev.kubeproxy.testutil.tier.Unit;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * explain in nftables mode under --dry-run: the packet traced through the nft commands the dry run
 * printed (the last full transaction and the partial ones since), as printed and tampered with.
 */
@Unit
class NftablesDryRunCheckTest {
  static final String POD = "10.244.1.9";

  final ServicePort web = service("web", 10).nodePort(30080).build();
  final List<Endpoint> two = List.of(ready("10.244.1.5", true), ready("10.244.2.5", false));

  static ProxyState state(ServicePort svc, List<Endpoint> endpoints) {
    return new ProxyState(Map.of(svc.name(), svc), Map.of(svc.name(), endpoints), Set.of(svc.name().service()),
        Map.of(), List.of(), Map.of());
  }

  static NftablesProxier dryRun() throws Exception {
    ProxierSettings s = Model.settings();
    ProxierSettings dry = new ProxierSettings(s.family(), s.nodeName(), s.nodeIPs(), List.of(), false, 14, true,
        s.localDetector(), s.syncPeriod(), s.minSyncPeriod(), new PrintStream(OutputStream.nullOutputStream()));
    NftablesProxier proxier = new NftablesProxier(dry, new NoCommands(), new ProxyMetrics(), new CommitGenerations(),
        false);
    proxier.privilegedInit();
    return proxier;
  }

  KernelPath traced(ProxyState state, ProgrammedRuleset rules, String from, String to) {
    ProxierSnapshot snapshot = new ProxierSnapshot(ProxyMode.NFTABLES, true, true,
        List.of(new FamilySnapshot(Model.settings(), state, new ServiceSyncLog(), Map.of(), rules)), List.of());
    DebugReport r = ReportBuilder.build(snapshot, ServiceQuery.parse("ns/web", from, to));
    assertEquals(1, r.ports().size());
    Port p = r.ports().get(0);
    assertNotNull(p.kernel());
    assertNull(p.kernel().error(), () -> p.kernel().error());
    return p.kernel();
  }

  @Test
  void theCommandsPrintedAgreeWithTheModelAfterFullAndPartialSyncs() throws Exception {
    NftablesProxier proxier = dryRun();
    ProxyState first = state(web, two);
    proxier.sync(first);
    ProgrammedRuleset rules = proxier.programmedRuleset().orElseThrow();
    assertEquals(ProgrammedRuleset.NFT_COMMANDS, rules.form(), rules::error);
    KernelPath k = traced(first, rules, POD, "10.96.0.10:80");
    assertNull(k.disagreement(), () -> k.disagreement() + "\n" + String.join("\n", k.steps()));
    assertEquals(List.of("10.244.1.5:8080", "10.244.2.5:8080"), k.targets());
    assertTrue(traced(first, rules, "198.51.100.7", Model.NODE_IP + ":30080").masqueraded());

    // a partial sync: one endpoint left; the commands since the full sync make the table
    ProxyState second = state(web, List.of(two.get(1)));
    proxier.sync(second);
    ProgrammedRuleset after = proxier.programmedRuleset().orElseThrow();
    KernelPath one = traced(second, after, POD, "10.96.0.10:80");
    assertNull(one.disagreement(), () -> one.disagreement() + "\n" + after.text());
    assertEquals(List.of("10.244.2.5:8080"), one.targets());
  }

  @Test
  void anEndpointLeftOutOfTheCommandsIsReportedWhereTheyDisagree() throws Exception {
    NftablesProxier proxier = dryRun();
    ProxyState first = state(web, two);
    proxier.sync(first);
    ProgrammedRuleset rules = proxier.programmedRuleset().orElseThrow();
    List<String> kept = new ArrayList<>();
    boolean removed = false;
    for (String line : rules.text().split("\n")) {
      if (line.startsWith("add element ip kube-proxy endpoint-ranges-") && line.contains(": 10.244.2.5 . 8080")) {
        removed = true;
        continue;
      }
      kept.add(line);
    }
    assertTrue(removed, rules.text());
    KernelPath k = traced(first, ProgrammedRuleset.nftCommands(rules.source(), String.join("\n", kept)), POD,
        "10.96.0.10:80");
    assertEquals(List.of("10.244.1.5:8080"), k.targets());
    assertNotNull(k.disagreement());
    assertTrue(k.disagreement().contains("ns/web:p80 (TCP 10.96.0.10:80, cluster IP)"), k.disagreement());
    assertTrue(k.disagreement().contains("the model expects DNAT to [10.244.1.5:8080, 10.244.2.5:8080]"),
        k.disagreement());
    assertTrue(k.disagreement().contains("the rules DNAT to [10.244.1.5:8080]"), k.disagreement());
  }

  @Test
  void commandsThatDoNotParseAreNamed() {
    ProxyState first = state(web, two);
    ProxierSnapshot snapshot = new ProxierSnapshot(ProxyMode.NFTABLES, true, true, List.of(new FamilySnapshot(
        Model.settings(), first, new ServiceSyncLog(), Map.of(),
        ProgrammedRuleset.nftCommands("printed", "add table ip kube-proxy\nadd rule ip kube-proxy services log\n"))),
        List.of());
    Port p = ReportBuilder.build(snapshot, ServiceQuery.parse("ns/web", POD, "10.96.0.10:80")).ports().get(0);
    assertTrue(p.kernel().error().startsWith("the rules read do not parse: line 2: "), p.kernel().error());
  }

  /** No commands: a dry run runs none. */
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
