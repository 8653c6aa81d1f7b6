package dev.kubeproxy.backend.nftables;

import dev.kubeproxy.backend.nftables.ChainNames;
import dev.kubeproxy.backend.nftables.CommitGenerations;
import dev.kubeproxy.backend.nftables.FakeNftables;
import dev.kubeproxy.backend.nftables.Fixtures;
import dev.kubeproxy.backend.nftables.NftCommand;
import dev.kubeproxy.backend.nftables.NftablesProxier;

import static dev.kubeproxy.backend.nftables.Fixtures.*;
import static dev.kubeproxy.testutil.ModelFixtures.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.kubeproxy.host.CommandRunner;
import dev.kubeproxy.host.ProcessCommandRunner;
import dev.kubeproxy.net.IpFamily;
import dev.kubeproxy.model.ProxierSettings;
import dev.kubeproxy.model.ProxyBackend;
import dev.kubeproxy.model.ServicePortName;
import dev.kubeproxy.model.SyncResult;
import dev.kubeproxy.testutil.CountingMetrics;
import dev.kubeproxy.testutil.tier.Kernel;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The backend against the real kernel through "nft -f -", inside a network namespace created for
 * each test (never the root namespace). Skipped when not root or when ip/nft are missing.
 */
@Kernel
class NftablesKernelTest {
  static final ServicePortName web = spn("demo", "web", "http");
  private String ns;
  private CommandRunner inNs;
  private final TestClock clock = new TestClock();
  private final CountingMetrics metrics = new CountingMetrics();

  @BeforeEach
  void createNamespace() throws Exception {
    assumeTrue("root".equals(System.getProperty("user.name")), "needs root to create network namespaces");
    assumeTrue(runs("ip", "-V") && runs("nft", "--version"), "needs the ip and nft commands");
    ns = "kp-nftr-" + UUID.randomUUID().toString().substring(0, 8);
    CommandRunner.Result r = new ProcessCommandRunner().run(List.of("ip", "netns", "add", ns));
    assumeTrue(r.ok(), "cannot create a network namespace: " + r.stderr());
    inNs = CommandRunner.inNetns(ns);
  }

  @AfterEach
  void deleteNamespace() throws Exception {
    if (ns != null) {
      new ProcessCommandRunner().run(List.of("ip", "netns", "del", ns));
    }
  }

  private static boolean runs(String... argv) {
    try {
      return new ProcessCommandRunner().run(List.of(argv)).ok();
    } catch (Exception e) {
      return false;
    }
  }

  private NftablesProxier proxier(ProxierSettings s) {
    return new NftablesProxier(s, inNs, new NftCommand(s.family(), inNs), metrics, clock, List::of);
  }

  private final List<dev.kubeproxy.backend.nftables.netlink.NetlinkNftables> sockets = new java.util.ArrayList<>();

  /** A proxier as the agent runs it: transactions and the resync's read-back over netlink. */
  private NftablesProxier proxierWithNetlink(ProxierSettings s) {
    NftablesProxier p = proxier(s);
    var netlink = dev.kubeproxy.backend.nftables.netlink.NetlinkNftables.open(s.family(), inNs.netns());
    org.junit.jupiter.api.Assertions.assertNotNull(netlink, "a netlink socket in the test namespace");
    sockets.add(netlink);
    p.useNetlink(netlink);
    return p;
  }

  @org.junit.jupiter.api.AfterEach
  void closeSockets() {
    sockets.forEach(dev.kubeproxy.backend.nftables.netlink.NetlinkNftables::close);
  }

  private String list(String what) throws Exception {
    CommandRunner.Result r = inNs.run(List.of("sh", "-c", "nft list " + what));
    return r.ok() ? r.stdout() : "ERROR " + r.stderr();
  }

  private Model example() {
    return new Model().put(svc(web, "10.96.12.34", 80).nodePort(30080).externalIPs("192.0.2.50")
        .loadBalancer("203.0.113.10").sourceRanges("198.51.100.0/24").etpLocal(),
        ready("10.244.1.5", 8080, true), ready("10.244.2.7", 8080, false))
        .put(svc(spn("demo", "sticky", "p"), "10.96.0.50", 81).affinity(600), ready("10.244.1.6", 80, true));
  }

  @Test
  void startupCheckPassesOnThisKernel() throws Exception {
    NftablesProxier p = new NftablesProxier(settings(IpFamily.IPv4), inNs, metrics, new CommitGenerations());
    p.privilegedInit();
    new NftablesProxier(settings(IpFamily.IPv6), inNs, metrics, new CommitGenerations()).privilegedInit();
    assertEquals("ERROR", list("table ip kube-proxy").substring(0, 5), "the check commits nothing");
  }

  @Test
  void netlinkFollowsTheNFTablesNetlinkGate() throws Exception {
    NftablesProxier on = new NftablesProxier(settings(IpFamily.IPv4), inNs, metrics, new CommitGenerations(), true);
    on.privilegedInit();
    assertTrue(on.viaNetlink());
    NftablesProxier off = new NftablesProxier(settings(IpFamily.IPv4), inNs, metrics, new CommitGenerations(), false);
    off.privilegedInit();
    assertFalse(off.viaNetlink(), "gate off: every transaction through nft");
  }

  @Test
  void fullThenPartialSyncThenCleanupTwice() throws Exception {
    NftablesProxier p = proxier(settings(IpFamily.IPv4));
    Model m = example();
    assertTrue(p.sync(m.state()).full());
    String table = list("table ip kube-proxy");
    assertTrue(table.contains("chain service-AXK6CI2C-demo/web/tcp/http {"), table);
    assertTrue(table.contains("meta l4proto tcp dnat ip to numgen random mod 24504480 map @endpoint-ranges-tcp-0"), table);
    assertTrue(table.contains("elements = { 0-12252239 : 10.244.1.5 . 8080, 12252240-24504479 : 10.244.2.7 . 8080 }"), table);
    assertTrue(table.contains("type nat hook prerouting priority dstnat; policy accept;"), table);
    assertTrue(table.contains("10.96.12.34 . tcp . 80 : goto service-AXK6CI2C-demo/web/tcp/http"), table);
    assertTrue(table.contains("203.0.113.10 . tcp . 80 comment \"demo/web:http\" : goto firewall-AXK6CI2C-demo/web/tcp/http"), table);
    assertTrue(table.contains("set affinity-"), table);
    assertTrue(table.contains("timeout 10m"), table);

    // Same chains as the fake builds.
    FakeNftables fake = new FakeNftables(IpFamily.IPv4);
    Fixtures.proxier(settings(IpFamily.IPv4), fake, new CountingMetrics(), new TestClock()).sync(m.state());
    assertEquals(fake.list().chains(), new NftCommand(IpFamily.IPv4, inNs).list().chains());
    assertEquals(fake.list().sets(), new NftCommand(IpFamily.IPv4, inNs).list().sets());

    // Partial: one more endpoint, and the sticky service goes away.
    m.endpoints(web, ready("10.244.1.5", 8080, true), ready("10.244.2.7", 8080, false), ready("10.244.3.3", 8080, false));
    m.remove(spn("demo", "sticky", "p"));
    assertFalse(p.sync(m.state()).full());
    table = list("table ip kube-proxy");
    assertTrue(table.contains("dnat ip to numgen random mod 24504480 map @endpoint-ranges-tcp-0"), table);
    assertTrue(table.contains("elements = { 0-8168159 : 10.244.1.5 . 8080, 8168160-16336319 : 10.244.2.7 . 8080,")
        && table.contains("16336320-24504479 : 10.244.3.3 . 8080 }"), table);
    assertFalse(table.contains("set affinity-"), table);
    assertTrue(table.contains("-demo/sticky/tcp/p {"), "the stale chain still exists, flushed");
    clock.advance(Duration.ofSeconds(2));
    p.sync(m.state());
    assertFalse(list("table ip kube-proxy").contains("-demo/sticky/tcp/p"), "deleted after the grace period");

    p.cleanup();
    assertTrue(list("table ip kube-proxy").startsWith("ERROR"));
    p.cleanup();
    assertTrue(NftCommand.cleanupTable(IpFamily.IPv4, inNs));
    assertEquals(0, metrics.syncFailures.get());
  }

  /**
   * An agent started over the table of the v1.31 layout (filter chains at dstnat - 10 and a
   * post-DNAT output chain) leaves the v1.34 layout only (kubernetes#132456): the retired base
   * chains are gone and the no-endpoint checks hook in at priority 0.
   */
  @Test
  void firstSyncOverTheOldLayoutLeavesOnlyTheNewBaseChains() throws Exception {
    CommandRunner.Result old = inNs.run(List.of("nft", "-f", "-"), String.join("\n",
        "add table ip kube-proxy",
        "add chain ip kube-proxy firewall-check",
        "add chain ip kube-proxy cluster-ips-check",
        "add chain ip kube-proxy service-endpoints-check",
        "add chain ip kube-proxy filter-prerouting { type filter hook prerouting priority -110 ; }",
        "add chain ip kube-proxy filter-output { type filter hook output priority -110 ; }",
        "add chain ip kube-proxy filter-output-post-dnat { type filter hook output priority -90 ; }",
        "add rule ip kube-proxy filter-prerouting ct state new jump firewall-check",
        "add rule ip kube-proxy filter-output ct state new jump service-endpoints-check",
        "add rule ip kube-proxy filter-output-post-dnat ct state new jump cluster-ips-check",
        ""));
    assertTrue(old.ok(), old.stderr());
    proxier(settings(IpFamily.IPv4)).sync(example().state());
    String table = list("table ip kube-proxy");
    assertFalse(table.contains("chain filter-prerouting {"), table);
    assertFalse(table.contains("chain filter-output-post-dnat {"), table);
    assertTrue(table.contains("chain filter-prerouting-pre-dnat {"), table);
    assertTrue(table.contains("chain filter-output-pre-dnat {"), table);
    String output = list("chain ip kube-proxy filter-output");
    assertTrue(output.contains("type filter hook output priority filter;"), output);
    assertTrue(output.contains("jump service-endpoints-check") && output.contains("jump cluster-ips-check"), output);
    assertFalse(output.contains("firewall-check"), output);
    String input = list("chain ip kube-proxy filter-input");
    assertTrue(input.contains("type filter hook input priority filter;"), input);
  }

  @Test
  void failingTransactionKeepsThePreviousRulesAndIsRetriedInFull() throws Exception {
    NftablesProxier p = proxier(settings(IpFamily.IPv4));
    Model m = example();
    p.sync(m.state());
    String before = list("table ip kube-proxy");
    // An address nft cannot parse: the whole transaction is refused.
    m.put(svc(spn("demo", "bad", "x"), "10.96.300.1", 80), ready("10.244.1.7", 80, true));
    ProxyBackend.SyncException e = assertThrows(ProxyBackend.SyncException.class, () -> p.sync(m.state()));
    assertTrue(e.getMessage().contains("10.96.300.1"), e.getMessage());
    assertTrue(e.getMessage().contains("failing input line "), e.getMessage());
    assertTrue(e.getMessage().contains("^"), "nft's caret line is included: " + e.getMessage());
    assertEquals(1, metrics.syncFailures.get());
    assertEquals(before, list("table ip kube-proxy"));
    m.remove(spn("demo", "bad", "x"));
    assertTrue(p.sync(m.state()).full());
    assertEquals(before, list("table ip kube-proxy"));
  }

  @Test
  void ipv6TableWorks() throws Exception {
    NftablesProxier p = proxier(settings(IpFamily.IPv6));
    Model m = new Model().put(svc(web, "fd00:10:96::1", 80).nodePort(30080), ready("fd00:10:244::5", 8080, true),
        ready("fd00:10:244::6", 8080, false));
    m.serviceCIDRs = List.of("fd00:10:96::/112");
    p.sync(m.state());
    String table = list("table ip6 kube-proxy");
    assertTrue(table.contains("dnat ip6 to numgen random mod 24504480 map @endpoint-ranges-tcp-0"), table);
    assertTrue(table.contains("elements = { 0-12252239 : fd00:10:244::5 . 8080, 12252240-24504479 : fd00:10:244::6 . 8080 }"), table);
    assertTrue(table.contains("ip6 daddr fd00:10:96::/112 drop"), table);
    m.endpoints(web, ready("fd00:10:244::5", 8080, true));
    assertFalse(p.sync(m.state()).full());
    assertTrue(list("table ip6 kube-proxy").contains("dnat to [fd00:10:244::5]:8080"));
    p.cleanup();
    assertTrue(list("table ip6 kube-proxy").startsWith("ERROR"));
  }

  /** The shared endpoint-ranges map serves every protocol (its typeof must not tie it to TCP). */
  @Test
  void udpAndSctpServicesWithSeveralEndpoints() throws Exception {
    for (IpFamily family : List.of(IpFamily.IPv4, IpFamily.IPv6)) {
      boolean v6 = family == IpFamily.IPv6;
      NftablesProxier p = proxier(settings(family));
      Model m = new Model();
      for (String proto : List.of("UDP", "SCTP", "TCP")) {
        ServicePortName name = new ServicePortName(new dev.kubeproxy.model.NamespacedName("demo", "multi-" + proto),
            "p", proto);
        String prefix = v6 ? "fd00:10:244::" : "10.244.3.";
        m.put(svc(name, (v6 ? "fd00:10:96::" : "10.96.0.") + proto.length(), 53),
            ready(prefix + proto.length(), 53, true), ready(prefix + (10 + proto.length()), 53, false));
      }
      assertTrue(p.sync(m.state()).full());
      String ip = v6 ? "ip6" : "ip";
      String table = list("table " + ip + " kube-proxy");
      for (String proto : List.of("udp", "sctp", "tcp")) {
        assertTrue(table.contains("meta l4proto " + proto + " dnat " + ip + " to numgen random mod 2"), table);
      }
      ServicePortName udp = new ServicePortName(new dev.kubeproxy.model.NamespacedName("demo", "multi-UDP"), "p", "UDP");
      m.endpoints(udp, ready((v6 ? "fd00:10:244::" : "10.244.3.") + 3, 53, true));
      assertFalse(p.sync(m.state()).full(), "a partial sync moves the UDP service to the single-endpoint map");
      String after = list("table " + ip + " kube-proxy");
      String vip = (v6 ? "fd00:10:96::" : "10.96.0.") + 3;
      assertTrue(after.contains(vip + " . udp . 53 : " + (v6 ? "fd00:10:244::" : "10.244.3.") + "3 . 53"), after);
      assertFalse(after.contains("meta l4proto udp dnat " + ip + " to numgen"), after);
    }
    assertEquals(0, metrics.syncFailures.get());
  }

  /** The periodic resync reads the table and repairs what was changed by hand, sending nothing else. */
  @Test
  void periodicResyncRestoresAChainFlushedByHand() throws Exception {
    NftablesProxier p = proxierWithNetlink(settings(IpFamily.IPv4));
    Model m = example();
    for (String proto : List.of("UDP", "SCTP")) { // protocols are listed as numbers and named back
      ServicePortName dns = new ServicePortName(new dev.kubeproxy.model.NamespacedName("demo", "dns-" + proto), "dns",
          proto);
      m.put(svc(dns, "10.96.0." + proto.length(), 53).nodePort(30050 + proto.length()), ready("10.244.1.9", 53, true));
    }
    p.sync(m.state());
    String before = list("table ip kube-proxy");
    clock.advance(Duration.ofMinutes(61));
    assertTrue(p.sync(m.state()).full());
    assertTrue(p.lastFullSyncReconciled());
    assertEquals("", p.lastTransaction().render(IpFamily.IPv4), "an unchanged table compares equal, elements and all");

    String chain = "service-AXK6CI2C-demo/web/tcp/http";
    for (String cmd : List.of("flush chain ip kube-proxy " + chain,
        "delete element ip kube-proxy cluster-ips { 10.96.12.34 }",
        "add element ip kube-proxy service-ips { 10.96.77.7 . tcp . 80 : drop }",
        "add chain ip kube-proxy by-hand", "add rule ip kube-proxy by-hand counter accept")) {
      CommandRunner.Result r = inNs.run(List.of("nft", cmd));
      assertTrue(r.ok(), cmd + ": " + r.stderr());
    }
    assertFalse(list("table ip kube-proxy").equals(before));
    clock.advance(Duration.ofMinutes(61));
    assertTrue(p.sync(m.state()).full());
    assertTrue(p.lastFullSyncReconciled());
    String tx = p.lastTransaction().render(IpFamily.IPv4);
    assertFalse(tx.contains("flush chain ip kube-proxy nat-prerouting"), "only what differs is sent: " + tx);
    clock.advance(Duration.ofSeconds(2));
    assertFalse(p.sync(m.state()).full()); // deletes the unexpected chain after the grace period
    assertEquals(before, list("table ip kube-proxy"));
    assertEquals(0, metrics.syncFailures.get());
  }

  /** A table deleted by hand is found missing by the resync's read-back and loaded again, without a failed sync. */
  @Test
  void periodicResyncLoadsATableDeletedByHand() throws Exception {
    NftablesProxier p = proxierWithNetlink(settings(IpFamily.IPv4));
    Model m = example();
    p.sync(m.state());
    String before = list("table ip kube-proxy");
    CommandRunner.Result r = inNs.run(List.of("nft", "delete table ip kube-proxy"));
    assertTrue(r.ok(), r.stderr());
    clock.advance(Duration.ofMinutes(61));
    assertTrue(p.sync(m.state()).full());
    assertFalse(p.lastFullSyncReconciled(), "nothing to compare with: the table is loaded whole");
    assertEquals(before, list("table ip kube-proxy"));
    assertEquals(0, metrics.syncFailures.get());
  }

  @Test
  void ipv6ResyncOfAnUnchangedTableSendsNothingElse() throws Exception {
    NftablesProxier p = proxierWithNetlink(settings(IpFamily.IPv6));
    Model m = new Model().put(svc(web, "fd00:10:96::1", 80).nodePort(30080).loadBalancer("fd00:203::10")
        .sourceRanges("fd00:198::/64"), ready("fd00:10:244::5", 8080, true), ready("fd00:10:244::6", 8080, false));
    m.serviceCIDRs = List.of("fd00:10:96::/112");
    p.sync(m.state());
    clock.advance(Duration.ofMinutes(61));
    assertTrue(p.sync(m.state()).full());
    assertEquals("", p.lastTransaction().render(IpFamily.IPv4), "nothing differs: nothing is sent");
  }

  /**
   * One Service whose objects the kernel refuses (an affinity timeout nft cannot hold) fails the
   * full sync; the proxier finds it (nft --check, one command a line), leaves it out with a log line
   * and programs everything else, and takes it in again once it changes.
   */
  @Test
  void aServiceTheKernelRefusesIsLeftOutAndEveryOtherIsProgrammed() throws Exception {
    NftablesProxier p = proxier(settings(IpFamily.IPv4));
    ServicePortName bad = spn("demo", "bad", "p");
    Model m = example().put(svc(bad, "10.96.0.77", 80).affinity(Integer.MAX_VALUE), ready("10.244.1.77", 80, true));
    SyncResult first = p.sync(m.state());
    assertTrue(first.full());
    String table = list("table ip kube-proxy");
    assertTrue(table.contains("10.96.12.34 . tcp . 80 : goto service-AXK6CI2C-demo/web/tcp/http"), table);
    assertFalse(table.contains("10.96.0.77"), "the refused service is left out: " + table);
    assertEquals(1, metrics.syncFailures.get(), "the refused attempt counts as a failed sync");
    assertEquals(List.of(bad), first.refusedPorts(), "named in the result for the proxier's event");
    assertEquals(List.of(), p.sync(m.state()).refusedPorts(), "once");

    m.put(svc(bad, "10.96.0.77", 80).affinity(600), ready("10.244.1.77", 80, true));
    assertFalse(p.sync(m.state()).full(), "once changed it is tried again, in a partial sync");
    assertTrue(list("table ip kube-proxy").contains("10.96.0.77"));
  }

  /** A table written by the earlier layout (one endpoint map per protocol) is taken over at start. */
  @Test
  void theEarlierLayoutsEndpointMapGoesAtStart() throws Exception {
    String table = firstSyncOverTheEarlierLayout("endpoint-targets-tcp");
    assertFalse(table.contains("map endpoint-targets-tcp {"), table);
    assertFalse(table.contains("10.244.9.1"), table);
    assertTrue(table.contains("map @endpoint-ranges-tcp-0"), table);
  }

  /** Shards of the earlier layout (no key ranges) under the earlier name do not stop the first sync. */
  @Test
  void theEarlierShardsDoNotStopTheFirstSync() throws Exception {
    String table = firstSyncOverTheEarlierLayout("endpoint-targets-tcp-0");
    assertFalse(table.contains("map @endpoint-targets-tcp-0"), table);
    assertTrue(table.contains("map @endpoint-ranges-tcp-0"), table);
  }

  /**
   * A table of the version before single-endpoint Services lost their chain: the first sync moves
   * such a port into single-endpoint-services, and its chain, flushed at once, goes after the grace.
   */
  @Test
  void aSingleEndpointServicesChainOfTheEarlierVersionGoesAfterTheFirstSync() throws Exception {
    String chain = ChainNames.serviceChain(web);
    String old = String.join("\n",
        "add table ip kube-proxy",
        "add map ip kube-proxy service-ips { type ipv4_addr . inet_proto . inet_service : verdict ; }",
        "add chain ip kube-proxy services",
        "add rule ip kube-proxy services ip daddr . meta l4proto . th dport vmap @service-ips",
        "add chain ip kube-proxy nat-prerouting { type nat hook prerouting priority -100 ; }",
        "add rule ip kube-proxy nat-prerouting jump services",
        "add chain ip kube-proxy " + chain,
        "add rule ip kube-proxy " + chain + " meta l4proto tcp dnat to 10.244.9.1:8080",
        "add element ip kube-proxy service-ips { 10.96.0.10 . tcp . 80 : goto " + chain + " }", "");
    CommandRunner.Result r = inNs.run(List.of("nft", "-f", "-"), old);
    assertTrue(r.ok(), r.stderr());
    NftablesProxier p = proxier(settings(IpFamily.IPv4));
    Model m = new Model().put(svc(web, "10.96.0.10", 80), ready("10.244.1.5", 8080, true));
    assertTrue(p.sync(m.state()).full());
    String table = list("table ip kube-proxy");
    assertTrue(table.contains("10.96.0.10 . tcp . 80 : 10.244.1.5 . 8080"), table);
    assertFalse(table.contains("goto " + chain), table);
    assertFalse(table.contains("10.244.9.1"), "the old chain is flushed at once: " + table);
    clock.advance(java.time.Duration.ofSeconds(2));
    p.sync(m.state());
    assertFalse(list("table ip kube-proxy").contains(chain), "deleted after the grace");
    assertEquals(0, metrics.syncFailures.get());
  }

  /**
   * Writes a table of the earlier layout, with its endpoint map under this name, then runs a first
   * (full) sync over it; returns the table as it lists afterwards.
   */
  private String firstSyncOverTheEarlierLayout(String endpointMap) throws Exception {
    String old = String.join("\n",
        "add table ip kube-proxy",
        "add map ip kube-proxy " + endpointMap + " { typeof numgen random mod 1 : ip daddr . tcp dport ; }",
        "add chain ip kube-proxy " + ChainNames.serviceChain(web),
        "add rule ip kube-proxy " + ChainNames.serviceChain(web)
            + " meta l4proto tcp dnat ip addr . port to numgen random mod 2 offset 0 map @" + endpointMap,
        "add element ip kube-proxy " + endpointMap + " { 0 : 10.244.9.1 . 80 , 1 : 10.244.9.2 . 80 }", "");
    CommandRunner.Result r = inNs.run(List.of("nft", "-f", "-"), old);
    assertTrue(r.ok(), r.stderr());
    NftablesProxier p = proxier(settings(IpFamily.IPv4));
    assertTrue(p.sync(example().state()).full());
    return list("table ip kube-proxy");
  }
}
