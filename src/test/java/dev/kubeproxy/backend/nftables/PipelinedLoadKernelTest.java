package dev.kubeproxy.backend.nftables;

import static dev.kubeproxy.backend.nftables.Fixtures.Model;
import static dev.kubeproxy.backend.nftables.Fixtures.TestClock;
import static dev.kubeproxy.backend.nftables.Fixtures.settings;
import static dev.kubeproxy.testutil.ModelFixtures.ready;
import static dev.kubeproxy.testutil.ModelFixtures.spn;
import static dev.kubeproxy.testutil.ModelFixtures.svc;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.kubeproxy.backend.nftables.objects.Transaction;
import dev.kubeproxy.host.CommandRunner;
import dev.kubeproxy.host.ProcessCommandRunner;
import dev.kubeproxy.model.Endpoint;
import dev.kubeproxy.model.ProxierSettings;
import dev.kubeproxy.model.ServicePortName;
import dev.kubeproxy.model.SyncResult;
import dev.kubeproxy.net.IpFamily;
import dev.kubeproxy.testutil.CountingMetrics;
import dev.kubeproxy.testutil.tier.Kernel;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The first sync into a namespace without the table goes to the kernel in pieces over netlink
 * while it is built ({@link PipelinedLoad}): the table it leaves lists exactly as the one nft
 * loads in one transaction, the base chains' rules come last, and a piece the kernel refuses leaves
 * no half-built table behind. Needs root, ip and nft; each test in namespaces of its own.
 */
@Kernel
class PipelinedLoadKernelTest {
  private final List<String> namespaces = new ArrayList<>();
  private final List<CountingNetlink> sockets = new ArrayList<>();
  private final CountingMetrics metrics = new CountingMetrics();
  private final TestClock clock = new TestClock();

  @BeforeEach
  void requirements() {
    assumeTrue("root".equals(System.getProperty("user.name")), "needs root to create network namespaces");
  }

  @AfterEach
  void cleanUp() throws Exception {
    sockets.forEach(CountingNetlink::close);
    for (String ns : namespaces) {
      new ProcessCommandRunner().run(List.of("ip", "netns", "del", ns));
    }
  }

  private CommandRunner namespace() throws Exception {
    String ns = "kp-load-" + UUID.randomUUID().toString().substring(0, 8);
    CommandRunner.Result r = new ProcessCommandRunner().run(List.of("ip", "netns", "add", ns));
    assumeTrue(r.ok(), "cannot create a network namespace: " + r.stderr());
    namespaces.add(ns);
    CommandRunner in = CommandRunner.inNetns(ns);
    assumeTrue(in.run(List.of("nft", "--version")).ok(), "needs nft");
    return in;
  }

  private NftablesProxier proxier(ProxierSettings s, CommandRunner in) {
    return new NftablesProxier(s, in, new NftCommand(s.family(), in), metrics, clock, List::of);
  }

  private CountingNetlink netlink(NftablesProxier p, IpFamily family, CommandRunner in) {
    CountingNetlink netlink = CountingNetlink.open(family, in.netns());
    assertNotNull(netlink, "a netlink socket in the test namespace");
    sockets.add(netlink);
    p.useNetlink(netlink);
    return netlink;
  }

  private static String table(CommandRunner in, IpFamily family) throws Exception {
    CommandRunner.Result r = in.run(List.of("nft", "list", "table", Transaction.familyKeyword(family), "kube-proxy"));
    return r.ok() ? r.stdout() : "ERROR " + r.stderr();
  }

  /**
   * Enough service ports of every form (several endpoints, one endpoint, NodePorts, external IPs,
   * affinity, no endpoints) that the load takes several pieces.
   */
  private static Model large(IpFamily family) {
    boolean v6 = family == IpFamily.IPv6;
    Model m = new Model();
    for (int i = 0; i < 2_500; i++) {
      ServicePortName name = spn("ns" + i % 7, "svc" + i, "http");
      var svc = svc(name, v6 ? "fd00:10:96::" + Integer.toHexString(0x100 + i) : "10.96." + (i / 250) + "." + (i % 250 + 1),
          80);
      if (i % 10 == 0) {
        svc.nodePort(30000 + i);
      }
      if (i % 25 == 0) {
        svc.externalIPs(v6 ? "2001:db8::" + Integer.toHexString(i + 1) : "192.0.2." + (i % 250 + 1));
      }
      if (i % 30 == 0) {
        svc.affinity(600);
      }
      int endpoints = i % 7 == 0 ? 1 : i % 97 == 0 ? 0 : 8;
      List<Endpoint> eps = new ArrayList<>();
      for (int e = 0; e < endpoints; e++) {
        int n = i * 8 + e;
        eps.add(ready(v6 ? "fd00:10:244::" + Integer.toHexString(n + 1) : "10.244." + (n / 250) + "." + (n % 250 + 1),
            8080, e == 0));
      }
      m.put(svc, eps.toArray(Endpoint[]::new));
    }
    return m;
  }

  @ParameterizedTest
  @EnumSource(value = IpFamily.class, names = {"IPv4", "IPv6"})
  void aLargeLoadInPiecesListsAsNftsOneTransaction(IpFamily family) throws Exception {
    ProxierSettings s = settings(family);
    CommandRunner inPieces = namespace();
    CommandRunner whole = namespace();
    NftablesProxier fast = proxier(s, inPieces);
    CountingNetlink netlink = netlink(fast, family, inPieces);
    NftablesProxier slow = proxier(s, whole);
    Model m = large(family);

    assertTrue(fast.sync(m.state()).full());
    assertTrue(slow.sync(m.state()).full());

    assertTrue(netlink.batches() >= 3, "the load went in pieces: " + netlink.batches());
    assertEquals(table(whole, family), table(inPieces, family));
    List<Transaction.Operation> sent = fast.lastTransaction().operations();
    int firstEntry = -1;
    int lastOther = -1;
    for (int i = 0; i < sent.size(); i++) {
      if (FixedRuleset.isBaseChainRule(sent.get(i))) {
        firstEntry = firstEntry < 0 ? i : firstEntry;
      } else {
        lastOther = i;
      }
    }
    assertTrue(firstEntry > lastOther, "the base chains' rules come after everything else");
    assertEquals(0, metrics.syncFailures.get());
    // and the next syncs go on from the loaded table as from any other
    m.put(svc(spn("ns1", "svc1", "http"), "10.96.0.2", 80), ready("10.244.200.1", 8080, true));
    if (family == IpFamily.IPv4) {
      assertFalse(fast.sync(m.state()).full());
      assertFalse(slow.sync(m.state()).full());
      assertEquals(table(whole, family), table(inPieces, family));
    }
  }

  /**
   * A piece the kernel refuses after others were committed: the table is deleted again and the load
   * sent as one transaction, whose refusal leaves the refused Service out as any full sync's does.
   * Nothing of the first try is left: the table lists as nft's own after the same refusal.
   */
  @Test
  void aRefusedPieceIsUndoneAndTheLoadGoesAsOneTransaction() throws Exception {
    CommandRunner inPieces = namespace();
    CommandRunner whole = namespace();
    NftablesProxier fast = proxier(settings(IpFamily.IPv4), inPieces);
    CountingNetlink netlink = netlink(fast, IpFamily.IPv4, inPieces);
    NftablesProxier slow = proxier(settings(IpFamily.IPv4), whole);
    Model m = large(IpFamily.IPv4);
    // last in name order, so in the last piece; an address the encoder cannot write and nft cannot
    // parse: that piece goes to nft, which refuses it
    ServicePortName bad = spn("zz-last", "bad", "p");
    m.put(svc(bad, "10.96.300.1", 80), ready("10.244.250.77", 80, true), ready("10.244.250.78", 80, true));

    SyncResult first = fast.sync(m.state());
    SyncResult reference = slow.sync(m.state());

    assertTrue(first.full());
    assertTrue(netlink.batches() >= 3, "pieces were committed before the refused one: " + netlink.batches());
    assertEquals(List.of(bad), first.refusedPorts());
    assertEquals(reference.refusedPorts(), first.refusedPorts());
    String table = table(inPieces, IpFamily.IPv4);
    assertFalse(table.contains("10.244.250.77"), "the refused service is left out");
    assertTrue(table.contains("10.96.9.249 . tcp . 80 : goto service-"), "every other one is programmed");
    assertEquals(table(whole, IpFamily.IPv4), table);
    assertEquals(2, metrics.syncFailures.get(), "one failed attempt each: the one transaction the kernel refused");
  }
}
