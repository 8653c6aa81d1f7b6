package dev.kubeproxy.backend.nftables;

import dev.kubeproxy.backend.nftables.objects.Chain;
import dev.kubeproxy.backend.nftables.objects.Element;
import dev.kubeproxy.backend.nftables.objects.NftSet;
import dev.kubeproxy.backend.nftables.objects.Rule;
import dev.kubeproxy.backend.nftables.objects.Transaction;
import dev.kubeproxy.backend.nftables.objects.Verdict;

import static dev.kubeproxy.backend.nftables.Fixtures.*;
import static dev.kubeproxy.testutil.ModelFixtures.*;
import static dev.kubeproxy.backend.nftables.NftablesIncrementalSyncTest.withResolvedEndpointMap;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kubeproxy.model.Endpoint;
import dev.kubeproxy.net.IpFamily;
import dev.kubeproxy.model.ServicePortName;
import dev.kubeproxy.testutil.CountingMetrics;
import dev.kubeproxy.testutil.tier.Unit;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The periodic full resync reads the table and sends only the differences, and repairs whatever
 * was changed behind the agent's back: afterwards the table equals a fresh full load.
 */
@Unit
class NftablesResyncTest {
  private final FakeNftables fake = new FakeNftables(IpFamily.IPv4);
  private final CountingMetrics metrics = new CountingMetrics();
  private final TestClock clock = new TestClock();
  private final NftablesProxier proxier = proxier(settings(IpFamily.IPv4), fake, metrics, clock);
  private final List<ServicePortName> names = new ArrayList<>();

  NftablesResyncTest() {
    for (int i = 0; i < 10; i++) {
      names.add(spn("ns" + (i % 3), "svc" + i, i % 2 == 0 ? "http" : ""));
    }
  }

  private void randomService(Model m, Random random) {
    ServicePortName name = names.get(random.nextInt(names.size()));
    int idx = names.indexOf(name);
    if (random.nextInt(6) == 0) {
      m.remove(name);
      return;
    }
    Svc s = svc(name, "10.96.0." + (10 + idx), 80 + random.nextInt(2));
    if (random.nextBoolean()) {
      s.nodePort(30000 + idx);
    }
    if (random.nextInt(3) == 0) {
      s.loadBalancer("203.0.113." + idx).sourceRanges("198.51.100.0/24");
    }
    if (random.nextInt(4) == 0) {
      s.etpLocal();
    }
    if (random.nextInt(4) == 0) {
      s.affinity(100);
    }
    List<Endpoint> eps = new ArrayList<>();
    int n = random.nextInt(4);
    java.util.Set<String> ips = new java.util.HashSet<>();
    for (int e = 0; e < n; e++) {
      String ip = "10.244." + random.nextInt(3) + "." + (1 + random.nextInt(5));
      if (ips.add(ip)) {
        eps.add(ready(ip, 8080, random.nextBoolean()));
      }
    }
    m.put(s, eps.toArray(Endpoint[]::new));
  }

  private String freshFullDump(Model m) throws Exception {
    FakeNftables other = new FakeNftables(IpFamily.IPv4);
    proxier(settings(IpFamily.IPv4), other, new CountingMetrics(), new TestClock()).sync(m.state());
    return withResolvedEndpointMap(other.dump());
  }

  /** Runs the periodic resync, then (after the grace period) the sync that deletes unexpected chains. */
  private void periodicResync(Model m) throws Exception {
    clock.advance(Duration.ofMinutes(61));
    assertTrue(proxier.sync(m.state()).full());
    assertTrue(proxier.lastFullSyncReconciled());
    clock.advance(Duration.ofSeconds(2));
    assertFalse(proxier.sync(m.state()).full());
  }

  private Model populated(Random random) {
    Model m = new Model();
    for (int i = 0; i < 20; i++) {
      randomService(m, random);
    }
    return m;
  }

  @Test
  void resyncOfAnUnchangedTableSendsNothingButTheTable() throws Exception {
    Model m = populated(new Random(1));
    proxier.sync(m.state());
    String before = fake.dump();
    clock.advance(Duration.ofMinutes(61));
    assertTrue(proxier.sync(m.state()).full());
    assertEquals("", proxier.lastTransaction().render(IpFamily.IPv4), "nothing differs: nothing is sent");
    assertEquals(before, fake.dump());
  }

  @Test
  void flushedServiceChainIsRestored() throws Exception {
    Model m = populated(new Random(2));
    proxier.sync(m.state());
    String chain = serviceChain();
    List<String> rules = fake.rules(chain);
    assertFalse(rules.isEmpty());
    fake.tamper(new Transaction().flush(Chain.regular(chain)));
    periodicResync(m);
    assertEquals(rules, fake.rules(chain));
    assertEquals(freshFullDump(m), withResolvedEndpointMap(fake.dump()));
  }

  @Test
  void ruleEditedInPlaceIsRestoredOnceTheChainWasSeen() throws Exception {
    Model m = populated(new Random(3));
    proxier.sync(m.state());
    clock.advance(Duration.ofMinutes(61));
    proxier.sync(m.state()); // first resync: reads the kernel's form of every chain
    String chain = serviceChain();
    List<String> rules = fake.rules(chain);
    Transaction edit = new Transaction().flush(Chain.regular(chain));
    for (int i = 0; i < rules.size(); i++) {
      edit.add(new Rule(chain, Verdict.ACCEPT));
    }
    fake.tamper(edit);
    periodicResync(m);
    assertEquals(rules, fake.rules(chain));
  }

  @Test
  void aRefusedReconcileIsFollowedByAFullRewrite() throws Exception {
    Model m = populated(new Random(4));
    proxier.sync(m.state());
    fake.tamper(new Transaction().add(Element.ofSet("cluster-ips", "10.96.98.1")));
    fake.failWhenLineContains("delete element ip kube-proxy cluster-ips");
    clock.advance(Duration.ofMinutes(61));
    org.junit.jupiter.api.Assertions.assertThrows(dev.kubeproxy.model.ProxyBackend.SyncException.class,
        () -> proxier.sync(m.state()));
    assertTrue(proxier.sync(m.state()).full());
    assertFalse(proxier.lastFullSyncReconciled(), "the sync after a failed reconcile rewrites everything");
    assertEquals(freshFullDump(m), withResolvedEndpointMap(fake.dump()));
    fake.failWhenLineContains(null);
    clock.advance(Duration.ofMinutes(61));
    assertTrue(proxier.sync(m.state()).full());
    assertTrue(proxier.lastFullSyncReconciled());
  }

  /** Random model changes and random tampering: every periodic resync restores the fresh-load state. */
  @Test
  void randomDriftIsRepairedByThePeriodicResync() throws Exception {
    Random random = new Random(42);
    Model m = populated(random);
    proxier.sync(m.state());
    for (int round = 0; round < 60; round++) {
      for (int c = random.nextInt(3); c > 0; c--) {
        randomService(m, random);
        clock.advance(Duration.ofSeconds(2));
        proxier.sync(m.state());
      }
      for (int d = 1 + random.nextInt(3); d > 0; d--) {
        drift(random);
      }
      periodicResync(m);
      assertEquals(freshFullDump(m), withResolvedEndpointMap(fake.dump()), "after round " + round);
    }
    assertEquals(0, metrics.syncFailures.get());
    assertEquals(0, metrics.cleanupFailures.get());
  }

  private String serviceChain() {
    return fake.table().chains().keySet().stream().filter(c -> c.startsWith("service-")).findFirst().orElseThrow();
  }

  /** One change an admin (or another program) might make to the table by hand. */
  private void drift(Random random) throws Exception {
    KernelTable t = fake.table();
    List<String> chains = new ArrayList<>(t.chains().keySet());
    switch (random.nextInt(6)) {
      case 0 -> { // delete an element
        List<String> withElements = t.containers().entrySet().stream()
            .filter(e -> !e.getValue().isEmpty() && !e.getKey().startsWith("affinity-")).map(e -> e.getKey()).toList();
        if (!withElements.isEmpty()) {
          String c = withElements.get(random.nextInt(withElements.size()));
          List<String> keys = new ArrayList<>(t.containers().get(c).keySet());
          fake.tamper(new Transaction().delete(new Element(c, t.maps().contains(c),
              List.of(keys.get(random.nextInt(keys.size())).split(" \\. ")), null, null)));
        }
      }
      case 1 -> fake.tamper(new Transaction().add(Element.ofMap("service-ips",
          List.of("10.96.99." + random.nextInt(250), "tcp", "99"), Verdict.DROP, null)));
      case 2 -> fake.tamper(new Transaction().add(Element.ofSet("cluster-ips", "10.96.98." + random.nextInt(250))));
      case 3 -> fake.tamper(new Transaction().flush(Chain.regular(chains.get(random.nextInt(chains.size())))));
      case 4 -> fake.tamper(new Transaction().add(Chain.regular("extra-" + random.nextInt(1000)))
          .add(Chain.regular("extra-chain")).add(new Rule("extra-chain", Verdict.ACCEPT))
          .add(NftSet.of("extra-set", "ipv4_addr", null)));
      default -> { // an element with another value: a service sent to another chain
        String extra = "extra-target";
        fake.tamper(new Transaction().add(Chain.regular(extra)));
        List<String> keys = new ArrayList<>(t.containers().getOrDefault("service-ips", java.util.Map.of()).keySet());
        if (!keys.isEmpty()) {
          List<String> key = List.of(keys.get(random.nextInt(keys.size())).split(" \\. "));
          fake.tamper(new Transaction().delete(new Element("service-ips", true, key, null, null))
              .add(new Element("service-ips", true, key, Verdict.goTo(extra), null)));
        }
      }
    }
  }
}
