package dev.kubeproxy.backend.nftables;

import static dev.kubeproxy.backend.nftables.Fixtures.*;
import static dev.kubeproxy.testutil.ModelFixtures.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kubeproxy.host.CommandRunner;
import dev.kubeproxy.model.Endpoint;
import dev.kubeproxy.net.IpFamily;
import dev.kubeproxy.model.ProxierSettings;
import dev.kubeproxy.model.ProxyBackend;
import dev.kubeproxy.model.ServicePortName;
import dev.kubeproxy.model.SyncResult;
import dev.kubeproxy.testutil.CountingMetrics;
import dev.kubeproxy.testutil.tier.Unit;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Partial syncs send only what changed, and always lead to the state a full sync would build. */
@Unit
class NftablesIncrementalSyncTest {
  static final ProxierSettings V4 = settings(IpFamily.IPv4);
  static final ServicePortName web = spn("demo", "web", "http");
  static final ServicePortName api = spn("demo", "api", "");

  private final FakeNftables fake = new FakeNftables(IpFamily.IPv4);
  private final CountingMetrics metrics = new CountingMetrics();
  private final TestClock clock = new TestClock();
  private final NftablesProxier proxier = proxier(V4, fake, metrics, clock);

  private Model twoEndpoints() {
    return new Model().put(svc(web, "10.96.12.34", 80), ready("10.244.1.5", 8080, true), ready("10.244.2.7", 8080, false));
  }

  private String lastTx() {
    return proxier.lastTransaction().render(IpFamily.IPv4);
  }

  @Test
  void endpointAddedChangesOnlyElements() throws Exception {
    Model m = twoEndpoints();
    assertTrue(proxier.sync(m.state()).full());
    m.endpoints(web, ready("10.244.1.5", 8080, true), ready("10.244.2.7", 8080, false), ready("10.244.3.3", 8080, false));
    SyncResult r = proxier.sync(m.state());
    assertFalse(r.full());
    assertEquals("""
        delete element ip kube-proxy endpoint-ranges-tcp-0 { 0-12252239 , 12252240-24504479 }
        add element ip kube-proxy endpoint-ranges-tcp-0 { 0-8168159 : 10.244.1.5 . 8080 , 8168160-16336319 : 10.244.2.7 . 8080 , 16336320-24504479 : 10.244.3.3 . 8080 }
        add element ip kube-proxy hairpin-connections { 10.244.3.3 . 10.244.3.3 . tcp . 8080 }
        """, lastTx());
    assertEquals(2, fake.appliedTransactions().size());
  }

  @Test
  void downToOneEndpointAClusterIpServiceLeavesItsChainForTheSingleEndpointMap() throws Exception {
    Model m = twoEndpoints();
    proxier.sync(m.state());
    m.endpoints(web, ready("10.244.1.5", 8080, true));
    proxier.sync(m.state());
    assertEquals("""
        delete element ip kube-proxy service-ips { 10.96.12.34 . tcp . 80 }
        delete element ip kube-proxy endpoint-ranges-tcp-0 { 0-12252239 , 12252240-24504479 }
        delete element ip kube-proxy hairpin-connections { 10.244.2.7 . 10.244.2.7 . tcp . 8080 }
        add element ip kube-proxy single-endpoint-services { 10.96.12.34 . tcp . 80 : 10.244.1.5 . 8080 }
        flush chain ip kube-proxy service-AXK6CI2C-demo/web/tcp/http
        """, lastTx());
  }

  /** The kernel revalidates its whole table for a new rule, not for an element of a map without verdicts. */
  @Test
  void aSingleEndpointReplacedChangesOneElementAndNoRule() throws Exception {
    Model m = new Model().put(svc(api, "10.96.0.20", 443), ready("10.244.1.9", 6443, true));
    proxier.sync(m.state());
    m.endpoints(api, ready("10.244.2.4", 6443, false));
    assertFalse(proxier.sync(m.state()).full());
    assertEquals("""
        delete element ip kube-proxy single-endpoint-services { 10.96.0.20 . tcp . 443 }
        delete element ip kube-proxy hairpin-connections { 10.244.1.9 . 10.244.1.9 . tcp . 6443 }
        add element ip kube-proxy single-endpoint-services { 10.96.0.20 . tcp . 443 : 10.244.2.4 . 6443 }
        add element ip kube-proxy hairpin-connections { 10.244.2.4 . 10.244.2.4 . tcp . 6443 }
        """, lastTx());
  }

  @Test
  void lastEndpointGoneSwitchesToRejectAndRetiresTheChain() throws Exception {
    Model m = twoEndpoints();
    proxier.sync(m.state());
    m.endpoints(web);
    proxier.sync(m.state());
    assertEquals("""
        delete element ip kube-proxy service-ips { 10.96.12.34 . tcp . 80 : goto service-AXK6CI2C-demo/web/tcp/http }
        delete element ip kube-proxy endpoint-ranges-tcp-0 { 0-12252239 , 12252240-24504479 }
        delete element ip kube-proxy hairpin-connections { 10.244.1.5 . 10.244.1.5 . tcp . 8080 , 10.244.2.7 . 10.244.2.7 . tcp . 8080 }
        add element ip kube-proxy no-endpoint-services { 10.96.12.34 . tcp . 80 comment "demo/web:http" : goto reject-chain }
        flush chain ip kube-proxy service-AXK6CI2C-demo/web/tcp/http
        """.replace(" : goto service-AXK6CI2C-demo/web/tcp/http }", " }"), lastTx());
  }

  @Test
  void serviceAddedCreatesItsObjects() throws Exception {
    Model m = twoEndpoints();
    proxier.sync(m.state());
    m.put(svc(api, "10.96.0.20", 443).nodePort(30443), ready("10.244.1.9", 6443, true));
    proxier.sync(m.state());
    String chain = ChainNames.serviceChain(api);
    String external = ChainNames.ServiceChains.of(api).external();
    assertEquals("add chain ip kube-proxy " + chain + "\n"
        + "add chain ip kube-proxy " + external + "\n"
        + "add rule ip kube-proxy " + chain + " ip daddr 10.96.0.20 tcp dport 443 ip saddr != 10.244.0.0/16 jump mark-for-masquerade\n"
        + "add rule ip kube-proxy " + chain + " meta l4proto tcp dnat to 10.244.1.9:6443\n"
        + "add rule ip kube-proxy " + external + " jump mark-for-masquerade\n"
        + "add rule ip kube-proxy " + external + " goto " + chain + "\n"
        + "add element ip kube-proxy cluster-ips { 10.96.0.20 }\n"
        + "add element ip kube-proxy service-ips { 10.96.0.20 . tcp . 443 : goto " + chain + " }\n"
        + "add element ip kube-proxy service-nodeports { tcp . 30443 : goto " + external + " }\n"
        + "add element ip kube-proxy hairpin-connections { 10.244.1.9 . 10.244.1.9 . tcp . 6443 }\n", lastTx());
    assertTrue(chain.startsWith("service-") && chain.endsWith("-demo/api/tcp/"));
  }

  @Test
  void aClusterIpServiceWithOneEndpointAddedIsElementsOnly() throws Exception {
    Model m = twoEndpoints();
    proxier.sync(m.state());
    m.put(svc(api, "10.96.0.20", 443), ready("10.244.1.9", 6443, true));
    proxier.sync(m.state());
    assertEquals("""
        add element ip kube-proxy cluster-ips { 10.96.0.20 }
        add element ip kube-proxy single-endpoint-services { 10.96.0.20 . tcp . 443 : 10.244.1.9 . 6443 }
        add element ip kube-proxy hairpin-connections { 10.244.1.9 . 10.244.1.9 . tcp . 6443 }
        """, lastTx());
  }

  @Test
  void deletedServiceChainIsFlushedThenDeletedAfterTheGracePeriod() throws Exception {
    Model m = twoEndpoints();
    proxier.sync(m.state());
    m.remove(web);
    proxier.sync(m.state());
    String chain = ChainNames.serviceChain(web);
    assertEquals("""
        delete element ip kube-proxy cluster-ips { 10.96.12.34 }
        delete element ip kube-proxy service-ips { 10.96.12.34 . tcp . 80 }
        delete element ip kube-proxy endpoint-ranges-tcp-0 { 0-12252239 , 12252240-24504479 }
        delete element ip kube-proxy hairpin-connections { 10.244.1.5 . 10.244.1.5 . tcp . 8080 , 10.244.2.7 . 10.244.2.7 . tcp . 8080 }
        flush chain ip kube-proxy service-AXK6CI2C-demo/web/tcp/http
        """, lastTx());
    assertEquals(List.of(), fake.rules(chain));
    // Within the grace period the chain stays.
    clock.advance(Duration.ofMillis(500));
    proxier.sync(m.state());
    assertNotNull(fake.rules(chain));
    int before = fake.appliedTransactions().size();
    clock.advance(Duration.ofMillis(600));
    proxier.sync(m.state());
    assertNull(fake.rules(chain), "deleted after the grace period");
    assertEquals(before + 1, fake.appliedTransactions().size());
    assertEquals("delete chain ip kube-proxy service-AXK6CI2C-demo/web/tcp/http\n",
        fake.appliedTransactions().get(fake.appliedTransactions().size() - 1));
    assertTrue(proxier.staleChainNames().isEmpty());
  }

  @Test
  void serviceComingBackBeforeDeletionReusesTheFlushedChain() throws Exception {
    Model m = twoEndpoints();
    proxier.sync(m.state());
    m.remove(web);
    proxier.sync(m.state());
    m.put(svc(web, "10.96.12.34", 80), ready("10.244.1.5", 8080, true), ready("10.244.3.3", 8080, false));
    clock.advance(Duration.ofSeconds(2));
    proxier.sync(m.state());
    List<String> rules = fake.rules(ChainNames.serviceChain(web));
    assertEquals("ip daddr 10.96.12.34 tcp dport 80 ip saddr != 10.244.0.0/16 jump mark-for-masquerade", rules.get(0));
    assertTrue(rules.get(1).contains(" map @endpoint-ranges-tcp-"), rules.toString());
    assertEquals(2, rules.size());
    assertTrue(proxier.staleChainNames().isEmpty());
  }

  @Test
  void unchangedModelSendsNothing() throws Exception {
    Model m = twoEndpoints();
    proxier.sync(m.state());
    SyncResult r = proxier.sync(m.state());
    assertFalse(r.full());
    assertTrue(proxier.lastTransaction().isEmpty());
    assertEquals(1, fake.appliedTransactions().size());
    assertEquals(Map.of("kube-proxy", 29), r.ruleCounts());
  }

  @Test
  void fullResyncEveryHourNotEverySyncPeriod() throws Exception {
    Model m = twoEndpoints();
    proxier.sync(m.state());
    clock.advance(Duration.ofSeconds(31));
    assertFalse(proxier.sync(m.state()).full(), "one syncPeriod on, the table is not read back");
    clock.advance(Duration.ofMinutes(59));
    assertFalse(proxier.sync(m.state()).full());
    clock.advance(Duration.ofSeconds(29));
    assertTrue(proxier.sync(m.state()).full());
    assertTrue(proxier.lastFullSyncReconciled(), "the periodic resync reads the table back");
    assertEquals("", lastTx(), "it matches the model: nothing is sent (base chains are recreated only at start)");
  }

  @Test
  void failedTransactionIsReportedCountedAndFollowedByAFullSync() throws Exception {
    Model m = twoEndpoints();
    proxier.sync(m.state());
    String before = fake.dump();
    m.endpoints(web, ready("10.244.1.5", 8080, true), ready("10.244.3.3", 8080, false));
    fake.failWhenLineContains("10.244.3.3 . 10.244.3.3");
    ProxyBackend.SyncException e = assertThrows(ProxyBackend.SyncException.class, () -> proxier.sync(m.state()));
    assertTrue(e.getMessage().contains("Operation not supported"), e.getMessage());
    assertTrue(e.getMessage().contains(
        "failing input line 4: add element ip kube-proxy hairpin-connections { 10.244.3.3 . 10.244.3.3 . tcp . 8080 }"),
        e.getMessage());
    assertEquals(1, metrics.syncFailures.get());
    assertEquals(before, fake.dump(), "the previous state is kept");
    fake.failWhenLineContains(null);
    SyncResult r = proxier.sync(m.state());
    assertTrue(r.full(), "a failure forces a full sync");
    assertEquals(freshFullDump(m), fake.dump());
  }

  @Test
  void topologyLabelChangeRecomputesEndpointSelection() throws Exception {
    Model m = new Model().put(svc(web, "10.96.12.34", 80),
        new Endpoint("10.244.1.5", 8080, true, true, true, false, java.util.Set.of("zone-a")),
        new Endpoint("10.244.2.7", 8080, false, true, true, false, java.util.Set.of("zone-b")));
    proxier.sync(m.state());
    assertTrue(fake.rules(ChainNames.serviceChain(web)).get(1).contains("mod 2"));
    m.nodeLabels = Map.of("topology.kubernetes.io/zone", "zone-a");
    assertFalse(proxier.sync(m.state()).full());
    assertEquals(List.of(), fake.rules(ChainNames.serviceChain(web)), "one endpoint left: no chain");
    assertTrue(fake.dump().contains("element 10.96.12.34 . tcp . 80 : 10.244.1.5 . 8080"), fake.dump());
  }

  @Test
  void cleanupDeletesTheTableAndIsHarmlessTwice() throws Exception {
    proxier.sync(twoEndpoints().state());
    assertTrue(fake.tableExists());
    proxier.cleanup();
    assertFalse(fake.tableExists());
    proxier.cleanup();
    assertFalse(fake.tableExists());
    assertTrue(proxier.sync(twoEndpoints().state()).full(), "after cleanup the next sync is full");
  }

  @Test
  void dryRunPrintsTransactionsWithoutNft() throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ProxierSettings dry = new ProxierSettings(IpFamily.IPv4, "node-a", V4.nodeIPs(), V4.nodePortAddresses(), false,
        14, false, V4.localDetector(), V4.syncPeriod(), V4.minSyncPeriod(), new PrintStream(out, true, StandardCharsets.UTF_8));
    // A runner whose commands cannot run: nothing may be executed in dry-run.
    NftablesProxier p = new NftablesProxier(dry, CommandRunner.inNetns("kp-nft-does-not-exist"),
        new dev.kubeproxy.metrics.ProxyMetrics(), new CommitGenerations());
    p.privilegedInit();
    p.sync(twoEndpoints().state());
    String text = out.toString(StandardCharsets.UTF_8);
    assertTrue(text.startsWith("add table ip kube-proxy { comment \"rules for kube-proxy\" ; }\n"), text);
    assertTrue(text.contains("add element ip kube-proxy service-ips { 10.96.12.34 . tcp . 80 : goto service-AXK6CI2C-demo/web/tcp/http }\n"));
    out.reset();
    p.cleanup();
    assertEquals("delete table ip kube-proxy\n", out.toString(StandardCharsets.UTF_8));
  }

  /** Random model changes: after each partial sync the table equals what a fresh full sync builds. */
  @Test
  void partialSyncsAlwaysMatchAFreshFullSync() throws Exception {
    Random random = new Random(42);
    ProxierSettings hourly = new ProxierSettings(IpFamily.IPv4, "node-a", V4.nodeIPs(), V4.nodePortAddresses(), false,
        14, false, V4.localDetector(), Duration.ofHours(1), V4.minSyncPeriod(), null);
    NftablesProxier proxier = proxier(hourly, fake, metrics, clock);
    Model m = new Model();
    List<ServicePortName> names = new ArrayList<>();
    for (int i = 0; i < 12; i++) {
      names.add(spn("ns" + (i % 3), "svc" + i, i % 2 == 0 ? "http" : ""));
    }
    for (int step = 0; step < 200; step++) {
      ServicePortName name = names.get(random.nextInt(names.size()));
      int idx = names.indexOf(name);
      if (random.nextInt(6) == 0) {
        m.remove(name);
      } else {
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
        if (random.nextInt(5) == 0) {
          s.itpLocal();
        }
        if (random.nextInt(4) == 0) {
          s.affinity(100 + random.nextInt(2));
        }
        List<Endpoint> eps = new ArrayList<>();
        int n = random.nextInt(4);
        for (int e = 0; e < n; e++) {
          String ip = "10.244." + random.nextInt(3) + "." + (1 + random.nextInt(5));
          eps.add(random.nextInt(5) == 0 ? terminating(ip, 8080, random.nextBoolean())
              : ready(ip, 8080, random.nextBoolean()));
        }
        m.put(s, eps.stream().distinct().filter(distinctIp(eps)).toArray(Endpoint[]::new));
      }
      assertEquals(step == 0, proxier.sync(m.state()).full());
      if (step % 10 == 9) {
        clock.advance(Duration.ofSeconds(2));
        assertFalse(proxier.sync(m.state()).full());
        assertEquals(withResolvedEndpointMap(freshFullDump(m)), withResolvedEndpointMap(fake.dump()), "after step " + step);
      }
    }
    assertEquals(0, metrics.syncFailures.get());
    assertEquals(0, metrics.cleanupFailures.get());
  }

  private static java.util.function.Predicate<Endpoint> distinctIp(List<Endpoint> all) {
    java.util.Set<String> seen = new java.util.HashSet<>();
    return e -> seen.add(e.ip());
  }

  /**
   * Shards and offsets in the endpoint-ranges maps depend on history; replaces each "numgen …
   * offset K map @endpoint-ranges-…" by the endpoints it picks from, and drops the shards (which
   * shards exist, and their elements) from the dump.
   */
  static String withResolvedEndpointMap(String dump) {
    String[] lines = dump.split("\n");
    Map<String, String> targets = new java.util.HashMap<>(); // "map key" to the endpoint
    String map = null;
    for (String line : lines) {
      if (!line.startsWith("  ")) {
        map = line.startsWith("map endpoint-ranges") ? line.split(" ")[1] : null;
      } else if (map != null && line.startsWith("  element ")) {
        String[] kv = line.substring("  element ".length()).split(" : ", 2);
        targets.put(map + " " + kv[0], kv[1]);
      }
    }
    java.util.regex.Pattern rule =
        java.util.regex.Pattern.compile("numgen random mod (\\d+) offset (\\d+) map @(endpoint-ranges-[a-z]+-\\d+)");
    StringBuilder out = new StringBuilder();
    for (String line : lines) {
      if (!line.startsWith("  ")) {
        map = line.startsWith("map endpoint-ranges") ? line : null;
        if (map != null) {
          continue;
        }
      } else if (map != null) {
        continue;
      }
      java.util.regex.Matcher r = rule.matcher(line);
      if (r.find()) {
        int n = Integer.parseInt(r.group(1));
        long k = Long.parseLong(r.group(2));
        java.util.TreeMap<Long, String> eps = new java.util.TreeMap<>(); // by the first key of each range
        for (Map.Entry<String, String> t : targets.entrySet()) {
          String[] mapAndKey = t.getKey().split(" ", 2);
          long first = Long.parseLong(mapAndKey[1].split("-")[0]);
          if (mapAndKey[0].equals(r.group(3)) && first >= k && first < k + n) {
            eps.put(first, t.getValue());
          }
        }
        line = line.substring(0, r.start()) + "numgen random mod " + n + " picks " + eps.values() + line.substring(r.end());
      }
      out.append(line).append('\n');
    }
    return out.toString();
  }

  private String freshFullDump(Model m) throws Exception {
    FakeNftables other = new FakeNftables(IpFamily.IPv4);
    proxier(V4, other, new CountingMetrics(), new TestClock()).sync(m.state());
    return other.dump();
  }
}
