package dev.kubeproxy.explain;

import static dev.kubeproxy.explain.Model.ready;
import static dev.kubeproxy.explain.Model.service;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kubeproxy.config.ProxyMode;
import dev.kubeproxy.explain.DebugReport.Port;
import dev.kubeproxy.messages.FamilySnapshot;
import dev.kubeproxy.messages.ProxierSnapshot;
import dev.kubeproxy.model.ProgrammedRuleset;
import dev.kubeproxy.model.ProxyState;
import dev.kubeproxy.model.ServicePort;
import dev.kubeproxy.model.ServiceSyncLog;
import dev.kubeproxy.testutil.tier.Unit;
import dev.kubeproxy.trace.Origin;
import dev.kubeproxy.trace.Packet;
import dev.kubeproxy.trace.Protocol;
import dev.kubeproxy.trace.Trace;
import dev.kubeproxy.trace.Verdict;
import dev.kubeproxy.trace.iptables.LocalNode;
import dev.kubeproxy.trace.ipvs.IpvsTracer;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * explain in ipvs mode traces the packet through the state read back from the kernel (ipvsadm -Sn, ipset save,
 * iptables-save, kube-ipvs0's addresses; the canned text is what a kernel printed for this model) and reports
 * where it differs from the model.
 */
@Unit
class IpvsKernelCheckTest {
  static final String POD = "10.244.1.9";

  final ServicePort web = service("web", 10).nodePort(30080).build();
  final ServicePort lb = service("lb", 11).nodePort(30081).loadBalancer("5.6.7.8").sourceRanges("203.0.113.0/25")
      .build();
  final ProxyState state = new ProxyState(Map.of(web.name(), web, lb.name(), lb),
      Map.of(web.name(), List.of(ready("10.244.1.5", true), ready("10.244.2.5", false)),
          lb.name(), List.of(ready("10.244.2.6", false))),
      Set.of(), Map.of(), List.of(), Map.of());

  static ProgrammedRuleset programmed() throws IOException {
    try (InputStream in = IpvsKernelCheckTest.class.getResourceAsStream("ipvs-programmed.txt")) {
      return new ProgrammedRuleset(ProgrammedRuleset.IPVS, "the canned read-back",
          new String(in.readAllBytes(), StandardCharsets.UTF_8), null);
    }
  }

  DebugReport report(ProgrammedRuleset rules, String service, String from, String to) {
    ProxierSnapshot snapshot = new ProxierSnapshot(ProxyMode.IPVS, false, true,
        List.of(new FamilySnapshot(Model.settings(), state, new ServiceSyncLog(), Map.of(), rules)), List.of());
    return ReportBuilder.build(snapshot, ServiceQuery.parse(service, from, to));
  }

  KernelPath traced(ProgrammedRuleset rules, String service, String from, String to) {
    DebugReport r = report(rules, service, from, to);
    assertEquals(1, r.ports().size());
    Port p = r.ports().get(0);
    assertNotNull(p.kernel());
    assertNull(p.kernel().error(), () -> p.kernel().error());
    return p.kernel();
  }

  @Test
  void theStateReadBackAgreesWithTheModel() throws Exception {
    ProgrammedRuleset rules = programmed();
    KernelPath pod = traced(rules, "ns/web", POD, "10.96.0.10:80");
    assertNull(pod.disagreement(), () -> pod.disagreement() + "\n" + String.join("\n", pod.steps()));
    assertEquals("DNAT", pod.verdict());
    assertEquals(List.of("10.244.1.5:8080", "10.244.2.5:8080"), pod.targets());
    assertEquals(false, pod.masqueraded());
    assertTrue(pod.steps().stream().anyMatch(s -> s.startsWith("ipvs: ")), () -> String.join("\n", pod.steps()));

    KernelPath nodePort = traced(rules, "ns/web", "203.0.113.7", Model.NODE_IP + ":30080");
    assertNull(nodePort.disagreement(), nodePort::disagreement);
    assertTrue(nodePort.masqueraded());

    KernelPath allowed = traced(rules, "ns/lb", "203.0.113.7", "5.6.7.8:80");
    assertNull(allowed.disagreement(), allowed::disagreement);
    assertEquals(List.of("10.244.2.6:8080"), allowed.targets());
    KernelPath blocked = traced(rules, "ns/lb", "203.0.113.200", "5.6.7.8:80");
    assertNull(blocked.disagreement(), blocked::disagreement);
    assertEquals("DROP", blocked.verdict());

    String text = TextReport.of(report(rules, "ns/web", POD, "10.96.0.10:80"));
    assertTrue(text.contains("the rules agree with the model"), text);
  }

  /** iptables-save prints -m ipvs's --vproto as the protocol's number. */
  @Test
  void theNodeReachingItsOwnLoadBalancerIpFromThatIpIsDropped() throws Exception {
    IpvsTracer tracer = IpvsTracer.of(programmed(), new LocalNode(Set.of(Model.NODE_IP), "cni0", "eth0"));
    Trace t = tracer.trace(new Packet(Origin.NODE, "5.6.7.8", "5.6.7.8", 80, Protocol.TCP, false));
    assertEquals(Verdict.DROP, t.verdict(), () -> t.path().toString());
    assertTrue(t.path().stream().anyMatch(s -> s.chain().contains("KUBE-IPVS-OUT-FILTER")), () -> t.path().toString());
  }

  @Test
  void aRealServerMissingInTheKernelIsReportedWhereTheyDisagree() throws Exception {
    ProgrammedRuleset rules = programmed();
    String line = "-a -t 10.96.0.10:80 -r 10.244.2.5:8080 -m -w 1\n";
    assertTrue(rules.text().contains(line), rules.text());
    ProgrammedRuleset tampered = new ProgrammedRuleset(rules.form(), rules.source(), rules.text().replace(line, ""),
        null);

    KernelPath k = traced(tampered, "ns/web", POD, "10.96.0.10:80");
    assertEquals(List.of("10.244.1.5:8080"), k.targets(), () -> String.join("\n", k.steps()));
    assertNotNull(k.disagreement());
    assertTrue(k.disagreement().contains("ns/web:p80"), k.disagreement());
    assertTrue(k.disagreement().contains("TCP 10.96.0.10:80"), k.disagreement());
    assertTrue(k.disagreement().contains("the model expects DNAT to [10.244.1.5:8080, 10.244.2.5:8080]"),
        k.disagreement());
    assertTrue(k.disagreement().contains("the rules DNAT to [10.244.1.5:8080]"), k.disagreement());
    String text = TextReport.of(report(tampered, "ns/web", POD, "10.96.0.10:80"));
    assertTrue(text.contains(k.disagreement()), text);

    // the NodePort's virtual server still has both: only the cluster IP's is wrong
    assertNull(traced(tampered, "ns/web", "203.0.113.7", Model.NODE_IP + ":30080").disagreement());
  }

  @Test
  void aVirtualServerMissingLeavesThePacketToTheNode() throws Exception {
    ProgrammedRuleset rules = programmed();
    String text = rules.text().replaceAll("(?m)^-[Aa] -t 10\\.96\\.0\\.10:80 .*\n", "");
    KernelPath k = traced(new ProgrammedRuleset(rules.form(), rules.source(), text, null), "ns/web", POD,
        "10.96.0.10:80");
    assertNotNull(k.disagreement());
    assertTrue(k.disagreement().contains("the rules " + k.verdict()), k.disagreement());
    assertTrue(!k.verdict().equals("DNAT"), k.verdict());
  }

  @Test
  void aReadBackWithoutOneOfItsSectionsSaysWhichIsMissing() throws Exception {
    ProgrammedRuleset rules = programmed();
    String text = rules.text().replace("#### ipset save\n", "");
    DebugReport r = report(new ProgrammedRuleset(rules.form(), rules.source(), text, null), "ns/web", POD,
        "10.96.0.10:80");
    String error = r.ports().get(0).kernel().error();
    assertNotNull(error);
    assertTrue(error.contains("\"#### ipset save\" section"), error);
  }
}
