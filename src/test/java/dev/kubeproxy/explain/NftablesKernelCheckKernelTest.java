package dev.kubeproxy.explain;

import static dev.kubeproxy.explain.Model.ready;
import static dev.kubeproxy.explain.Model.service;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.kubeproxy.backend.nftables.CommitGenerations;
import dev.kubeproxy.backend.nftables.NftablesProxier;
import dev.kubeproxy.config.ProxyMode;
import dev.kubeproxy.explain.DebugReport.Port;
import dev.kubeproxy.host.CommandRunner;
import dev.kubeproxy.host.ProcessCommandRunner;
import dev.kubeproxy.messages.FamilySnapshot;
import dev.kubeproxy.messages.ProxierSnapshot;
import dev.kubeproxy.metrics.ProxyMetrics;
import dev.kubeproxy.model.ProgrammedRuleset;
import dev.kubeproxy.model.ProxyState;
import dev.kubeproxy.model.ServicePort;
import dev.kubeproxy.model.ServiceSyncLog;
import dev.kubeproxy.testutil.tier.Kernel;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * explain in nftables mode over the table read back from the kernel: the nftables proxier programs
 * the model into a scratch namespace, explain traces packets through {@code nft -j}'s listing and
 * finds no disagreement; then rules are changed behind the agent's back (an endpoint's key range
 * deleted, a DNAT target replaced) and explain names the port, what the model expects and what the
 * kernel would do.
 */
@Kernel
class NftablesKernelCheckKernelTest {
  static final String POD = "10.244.1.9";

  final ServicePort web = service("web", 10).nodePort(30080).build();
  final ServicePort lb = service("lb", 11).nodePort(30081).loadBalancer("5.6.7.8").sourceRanges("203.0.113.0/25")
      .build();
  final ServicePort none = service("none", 12).build();
  final ProxyState state = new ProxyState(Map.of(web.name(), web, lb.name(), lb, none.name(), none),
      Map.of(web.name(), List.of(ready("10.244.1.5", true), ready("10.244.2.5", false)),
          lb.name(), List.of(ready("10.244.2.6", false)), none.name(), List.of()),
      Set.of(), Map.of(), List.of(), Map.of());

  private String ns;
  private CommandRunner inNs;
  private NftablesProxier proxier;

  @BeforeEach
  void program() throws Exception {
    assumeTrue("root".equals(System.getProperty("user.name")), "needs root to create network namespaces");
    assumeTrue(new ProcessCommandRunner().run(List.of("nft", "--version")).ok(), "needs the nft command");
    ns = "kp-nkc-" + UUID.randomUUID().toString().substring(0, 8);
    CommandRunner.Result r = new ProcessCommandRunner().run(List.of("ip", "netns", "add", ns));
    assumeTrue(r.ok(), "cannot create a network namespace: " + r.stderr());
    inNs = CommandRunner.inNetns(ns);
    proxier = new NftablesProxier(Model.settings(), inNs, new ProxyMetrics(), new CommitGenerations(), false);
    proxier.privilegedInit();
    proxier.sync(state);
  }

  @AfterEach
  void remove() throws Exception {
    if (ns != null) {
      new ProcessCommandRunner().run(List.of("ip", "netns", "del", ns));
    }
  }

  DebugReport report(String service, String from, String to) {
    ProgrammedRuleset rules = proxier.programmedRuleset().orElseThrow();
    assertEquals(ProgrammedRuleset.NFT_JSON, rules.form(), () -> rules.source() + ": " + rules.error());
    ProxierSnapshot snapshot = new ProxierSnapshot(ProxyMode.NFTABLES, false, true,
        List.of(new FamilySnapshot(Model.settings(), state, new ServiceSyncLog(), Map.of(), rules)), List.of());
    return ReportBuilder.build(snapshot, ServiceQuery.parse(service, from, to));
  }

  KernelPath traced(String service, String from, String to) {
    DebugReport r = report(service, from, to);
    assertEquals(1, r.ports().size());
    Port p = r.ports().get(0);
    assertNotNull(p.kernel());
    assertNull(p.kernel().error(), () -> p.kernel().error());
    return p.kernel();
  }

  @Test
  void theTableReadBackAgreesWithTheModel() {
    KernelPath pod = traced("ns/web", POD, "10.96.0.10:80");
    assertNull(pod.disagreement(), () -> pod.disagreement() + "\n" + String.join("\n", pod.steps()));
    assertEquals("DNAT", pod.verdict());
    assertEquals(List.of("10.244.1.5:8080", "10.244.2.5:8080"), pod.targets());
    assertEquals(false, pod.masqueraded());
    assertEquals("nft -j list table ip kube-proxy", pod.source());
    assertTrue(pod.steps().stream().anyMatch(s -> s.startsWith("service-") && s.contains("dnat ip addr . port to")),
        () -> String.join("\n", pod.steps()));

    KernelPath nodePort = traced("ns/web", "198.51.100.7", Model.NODE_IP + ":30080");
    assertNull(nodePort.disagreement(), nodePort::disagreement);
    assertTrue(nodePort.masqueraded());

    KernelPath outOfRange = traced("ns/lb", "198.51.100.7", "5.6.7.8:80");
    assertNull(outOfRange.disagreement(), outOfRange::disagreement);
    assertEquals("DROP", outOfRange.verdict());
    KernelPath inRange = traced("ns/lb", "203.0.113.5", "5.6.7.8:80");
    assertNull(inRange.disagreement(), inRange::disagreement);
    assertEquals(List.of("10.244.2.6:8080"), inRange.targets());

    KernelPath noEndpoints = traced("ns/none", POD, "10.96.0.12:80");
    assertNull(noEndpoints.disagreement(), noEndpoints::disagreement);
    assertEquals("REJECT", noEndpoints.verdict());

    String text = TextReport.of(report("ns/web", POD, "10.96.0.10:80"));
    assertTrue(text.contains("the rules agree with the model"), text);
  }

  @Test
  void anEndpointDeletedFromTheKernelIsReportedWhereTheyDisagree() throws Exception {
    String map = nft("list map ip kube-proxy endpoint-ranges-tcp-0");
    Matcher range = Pattern.compile("(\\d+-\\d+) : 10\\.244\\.2\\.5 \\. 8080").matcher(map);
    assertTrue(range.find(), map);
    nft("delete element ip kube-proxy endpoint-ranges-tcp-0 { " + range.group(1) + " }");

    KernelPath k = traced("ns/web", POD, "10.96.0.10:80");
    assertEquals(List.of("10.244.1.5:8080"), k.targets(), () -> String.join("\n", k.steps()));
    assertNotNull(k.disagreement());
    assertTrue(k.disagreement().contains("ns/web:p80 (TCP 10.96.0.10:80, cluster IP)"), k.disagreement());
    assertTrue(k.disagreement().contains("the model expects DNAT to [10.244.1.5:8080, 10.244.2.5:8080]"),
        k.disagreement());
    assertTrue(k.disagreement().contains("the rules DNAT to [10.244.1.5:8080] with the source kept"),
        k.disagreement());
    String text = TextReport.of(report("ns/web", POD, "10.96.0.10:80"));
    assertTrue(text.contains(k.disagreement()), text);
  }

  @Test
  void aDnatTargetReplacedInTheKernelIsReportedWhereTheyDisagree() throws Exception {
    String table = nft("list table ip kube-proxy");
    Matcher named = Pattern.compile("chain (service-\\S+-ns/lb/tcp/p80) \\{").matcher(table);
    assertTrue(named.find(), table);
    String chain = named.group(1);
    String rules = nft("-a", "list chain ip kube-proxy " + chain);
    Matcher dnat = Pattern.compile("dnat to 10\\.244\\.2\\.6:8080 # handle (\\d+)").matcher(rules);
    assertTrue(dnat.find(), rules);
    nft("replace rule ip kube-proxy " + chain + " handle " + dnat.group(1)
        + " meta l4proto tcp dnat to 10.244.9.9:8080");

    KernelPath k = traced("ns/lb", "203.0.113.5", "5.6.7.8:80");
    assertEquals(List.of("10.244.9.9:8080"), k.targets());
    assertNotNull(k.disagreement());
    assertTrue(k.disagreement().contains("ns/lb:p80 (TCP 5.6.7.8:80, LoadBalancer IP)"), k.disagreement());
    assertTrue(k.disagreement().contains("the model expects DNAT to [10.244.2.6:8080] masqueraded"), k.disagreement());
    assertTrue(k.disagreement().contains("the rules DNAT to [10.244.9.9:8080] masqueraded"), k.disagreement());
  }

  private String nft(String... args) throws Exception {
    List<String> argv = new java.util.ArrayList<>(List.of("nft"));
    argv.addAll(List.of(args));
    CommandRunner.Result r = inNs.run(argv);
    assertTrue(r.ok(), () -> String.join(" ", argv) + ": " + r.stderr());
    return r.stdout();
  }
}
