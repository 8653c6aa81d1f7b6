package dev.kubeproxy.backend.nftables;

import dev.kubeproxy.backend.nftables.objects.Comments;

import dev.kubeproxy.backend.nftables.objects.Element;
import dev.kubeproxy.backend.nftables.objects.Rule;
import dev.kubeproxy.backend.nftables.objects.Transaction;
import dev.kubeproxy.backend.nftables.objects.Verdict;

import static dev.kubeproxy.backend.nftables.Fixtures.*;
import static dev.kubeproxy.testutil.ModelFixtures.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.kubeproxy.host.CommandRunner;
import dev.kubeproxy.host.ProcessCommandRunner;
import dev.kubeproxy.net.IpFamily;
import dev.kubeproxy.model.ProxierSettings;
import dev.kubeproxy.model.ServicePortName;
import dev.kubeproxy.testutil.CountingMetrics;
import dev.kubeproxy.testutil.tier.Kernel;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Names as long as an API server allows (namespace 63, name 63, port name 15 characters) make
 * comments "ns/name:port" of 143 characters, over the kernel's 128 (kubernetes#139515). Every
 * object of such Services must still load, in full syncs through nft and partial syncs over
 * netlink, in both families, with a short-named Service beside them programmed as well.
 */
@Kernel
class NftablesLongNamesTest {
  private String ns;

  @AfterEach
  void deleteNamespace() throws Exception {
    if (ns != null) {
      new ProcessCommandRunner().run(List.of("ip", "netns", "del", ns));
    }
  }

  static String repeat(char c, int n) {
    return String.valueOf(c).repeat(n);
  }

  static ServicePortName longName(char c, String protocol) {
    return new ServicePortName(new dev.kubeproxy.model.NamespacedName(repeat(c, 63), repeat('n', 62) + c),
        "p" + repeat(c, 14), protocol);
  }

  @Test
  void commentsAreCutToTheKernelLimitOnACharacterBoundary() {
    assertEquals(null, Comments.fit(null));
    assertEquals("ns/name:port", Comments.fit("ns/name:port"));
    assertEquals(repeat('a', 128), Comments.fit(repeat('a', 143)));
    String wide = repeat('a', 127) + "é" + "b"; // é is two bytes: it does not fit after 127
    assertEquals(repeat('a', 127), Comments.fit(wide));
    assertEquals(128, new Element("m", true, List.of("k"), Verdict.DROP, repeat('x', 200)).comment().length());
    assertEquals(128, new Rule("c", List.of(), Verdict.DROP, repeat('x', 200)).comment().length());
  }

  @ParameterizedTest
  @EnumSource(IpFamily.class)
  void maximalNamesLoadInFullAndPartialSyncs(IpFamily family) throws Exception {
    assumeTrue("root".equals(System.getProperty("user.name")), "needs root to create network namespaces");
    ns = "kp-nftln-" + UUID.randomUUID().toString().substring(0, 8);
    CommandRunner.Result created = new ProcessCommandRunner().run(List.of("ip", "netns", "add", ns));
    assumeTrue(created.ok(), "cannot create a network namespace: " + created.stderr());
    CommandRunner in = CommandRunner.inNetns(ns);
    assumeTrue(in.run(List.of("nft", "--version")).ok(), "needs nft");
    boolean v6 = family == IpFamily.IPv6;
    String svcNet = v6 ? "fd00:10:96::" : "10.96.0.";
    String podNet = v6 ? "fd00:10:244::" : "10.244.1.";
    ProxierSettings s = settings(family);
    CountingMetrics metrics = new CountingMetrics();
    NftablesProxier p = new NftablesProxier(s, in, new NftCommand(family, in), metrics, new TestClock(), List::of);
    CountingNetlink netlink = CountingNetlink.open(family, ns);
    assertNotNull(netlink, "netlink socket");
    p.useNetlink(netlink);

    ServicePortName noEndpoints = longName('a', "TCP");
    ServicePortName firewalled = longName('b', "UDP");
    ServicePortName sticky = longName('c', "SCTP");
    ServicePortName good = spn("demo", "web", "http");
    Model m = new Model()
        .put(svc(noEndpoints, svcNet + "1", 80).nodePort(30001).externalIPs(v6 ? "2001:db8::50" : "192.0.2.50"))
        .put(svc(firewalled, svcNet + "2", 53).loadBalancer(v6 ? "2001:db8::10" : "203.0.113.10")
            .sourceRanges(v6 ? "2001:db8:1::/64" : "198.51.100.0/24").etpLocal(), ready(podNet + "2", 53, false))
        .put(svc(sticky, svcNet + "3", 81).affinity(600), ready(podNet + "3", 80, true), ready(podNet + "4", 80, true))
        .put(svc(good, svcNet + "4", 80), ready(podNet + "5", 8080, true), ready(podNet + "6", 8080, true));
    if (v6) {
      m.serviceCIDRs = List.of("fd00:10:96::/112");
    }
    assertTrue(p.sync(m.state()).full());
    String ip = Transaction.familyKeyword(family);
    String table = in.run(List.of("nft", "list", "table", ip, "kube-proxy")).stdout();
    String cut = Comments.fit(noEndpoints.toString());
    assertEquals(128, cut.length());
    assertTrue(table.contains("comment \"" + cut + "\" : goto reject-chain"), table);
    assertTrue(table.contains(podNet + "6 . 8080"), "the short-named service is programmed too: " + table);

    // Partial syncs over netlink with the same names: an endpoint each way.
    m.endpoints(noEndpoints, ready(podNet + "7", 8080, true));
    long before = netlink.batches();
    assertFalse(p.sync(m.state()).full());
    m.endpoints(noEndpoints);
    assertFalse(p.sync(m.state()).full());
    assertEquals(before + 2, netlink.batches(), "both partial syncs went over netlink");
    m.endpoints(sticky, ready(podNet + "3", 80, true)); // the affinity vmap goes through nft
    assertFalse(p.sync(m.state()).full());
    table = in.run(List.of("nft", "list", "table", ip, "kube-proxy")).stdout();
    assertTrue(table.contains("comment \"" + cut + "\" : goto reject-chain"), table);
    assertEquals(0, metrics.syncFailures.get());
    netlink.close();
  }
}
