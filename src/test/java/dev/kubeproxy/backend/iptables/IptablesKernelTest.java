package dev.kubeproxy.backend.iptables;

import dev.kubeproxy.backend.netfilter.BackendSelector;
import dev.kubeproxy.backend.netfilter.IptablesBackend;
import dev.kubeproxy.backend.netfilter.Sysctls;

import dev.kubeproxy.testutil.ModelFixtures;
import dev.kubeproxy.config.ProxyMode;
import static dev.kubeproxy.backend.iptables.Fixtures.clusterCidr;
import static dev.kubeproxy.testutil.ModelFixtures.ready;
import static dev.kubeproxy.testutil.ModelFixtures.spn;
import static dev.kubeproxy.testutil.ModelFixtures.state;
import static dev.kubeproxy.testutil.ModelFixtures.svc;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kubeproxy.metrics.ProxyMetrics;
import dev.kubeproxy.net.IpFamily;
import dev.kubeproxy.model.ProxierSettings;
import dev.kubeproxy.model.ServicePortName;
import dev.kubeproxy.model.SyncResult;
import dev.kubeproxy.testutil.tier.Kernel;
import java.nio.file.Files;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Real iptables-restore into a scratch network namespace, on both backends: full sync, partial sync,
 * a failing restore that leaves the previous rules, the canary forcing a full sync, cleanup twice.
 * Needs root and the iptables tools; skipped otherwise.
 */
@Kernel
class IptablesKernelTest {
  static final ServicePortName WEB = spn("demo", "web", "http", "TCP");
  static final ServicePortName DNS = spn("kube-system", "dns", "dns", "UDP");

  @RegisterExtension final ScratchNamespace.PerTest scratch = new ScratchNamespace.PerTest();
  private final ProxyMetrics metrics = new ProxyMetrics();

  private IptablesProxier proxier(IpFamily family, IptablesBackend backend) {
    ProxierSettings settings = Fixtures.settings(family, List.of(),
        clusterCidr(family == IpFamily.IPv4 ? "10.244.0.0/16" : "fd00:10:244::/64"), false, true, null);
    return new IptablesProxier(settings, scratch.ns.runner, metrics, new Sysctls(scratch.sysctlRoot), List::of, backend);
  }

  private String save(IptablesBackend backend, IpFamily family, String table) throws Exception {
    String command = (family == IpFamily.IPv6 ? "ip6tables-" : "iptables-") + backend.suffix() + "-save";
    return scratch.ns.out(command, "-t", table);
  }

  private static ModelFixtures.StateBuilder twoServices(String secondWebEndpoint) {
    return state()
        .add(svc(WEB, "10.96.12.34", 80).nodePort(30080).loadBalancer("203.0.113.10").sourceRanges("198.51.100.0/24"),
            ready("10.244.1.5", 8080, true), ready(secondWebEndpoint, 8080, false))
        .add(svc(DNS, "10.96.0.10", 53), ready("10.244.2.9", 53, false));
  }

  @ParameterizedTest
  @EnumSource(IptablesBackend.class)
  void fullSyncPartialSyncFailureCanaryAndCleanup(IptablesBackend backend) throws Exception {
    IptablesProxier proxier = proxier(IpFamily.IPv4, backend);
    proxier.privilegedInit();
    assertEquals("1", Files.readString(scratch.sysctlRoot.resolve("net/ipv4/conf/all/route_localnet")).trim());

    SyncResult first = proxier.sync(twoServices("10.244.2.7").build());
    assertTrue(first.full());
    String nat = save(backend, IpFamily.IPv4, "nat");
    assertTrue(nat.contains(":KUBE-SVC-XRY76EGRC3BSCIIJ "), nat);
    assertTrue(nat.contains(":KUBE-SEP-JPICTQTYOLMYNIJ7 "), nat);
    assertTrue(nat.contains(":KUBE-FW-XRY76EGRC3BSCIIJ "), nat);
    assertTrue(nat.contains("-A PREROUTING -m comment --comment \"kubernetes service portals\" -j KUBE-SERVICES"), nat);
    assertTrue(nat.contains("-A KUBE-SEP-JPICTQTYOLMYNIJ7 -p tcp -m comment --comment \"demo/web:http\" -m tcp"
        + " -j DNAT --to-destination 10.244.2.7:8080"), nat);
    String filter = save(backend, IpFamily.IPv4, "filter");
    assertTrue(filter.contains("-A INPUT -m conntrack --ctstate NEW -m comment --comment \"kubernetes load balancer"
        + " firewall\" -j KUBE-PROXY-FIREWALL"), filter);
    assertTrue(save(backend, IpFamily.IPv4, "mangle").contains(":KUBE-PROXY-CANARY "));
    assertEquals(first.ruleCounts().get("nat"), natRules(scratch.ns.runner.lastRestoreInput()));

    // Partial sync: one endpoint of demo/web replaced; its old endpoint chain is deleted.
    SyncResult second = proxier.sync(twoServices("10.244.3.8").changed(WEB).build());
    assertFalse(second.full());
    nat = save(backend, IpFamily.IPv4, "nat");
    assertFalse(nat.contains("KUBE-SEP-JPICTQTYOLMYNIJ7"), nat);
    assertTrue(nat.contains(":KUBE-SEP-M2Y6KWOXXLJMAWI7 "), nat);
    assertTrue(nat.contains(":KUBE-SVC-2KKYJRIGYGQNRODB "), "unchanged service's chain stays: " + nat);
    assertFalse(scratch.ns.runner.lastRestoreInput().contains(":KUBE-SVC-2KKYJRIGYGQNRODB"));

    // A Service whose rules the kernel refuses: that Service is left out, named with
    // the refused line, and every other Service is programmed by an immediate full sync.
    double failuresBefore = metric("kubeproxy_sync_proxy_rules_iptables_restore_failures_total");
    double partialFailuresBefore = metric("kubeproxy_sync_proxy_rules_iptables_partial_restore_failures_total");
    ModelFixtures.StateBuilder refusedDns = state()
        .add(svc(WEB, "10.96.12.34", 80), ready("10.244.1.5", 8080, true), ready("10.244.3.8", 8080, false))
        .add(svc(DNS, "10.96.0.300", 53), ready("10.244.2.9", 53, false));
    SyncResult survived = proxier.sync(refusedDns.changed(DNS).build());
    assertTrue(survived.full(), "the sync without the refused Service is a full one");
    nat = save(backend, IpFamily.IPv4, "nat");
    assertFalse(nat.contains("kube-system/dns"), nat);
    assertTrue(nat.contains("-d 10.96.12.34/32 -p tcp -m comment --comment \"demo/web:http cluster IP\""), nat);
    assertFalse(scratch.ns.runner.lastRestoreInput().contains("10.96.0.300"));
    // The partial restore failed, then a full one (only a full sync's refusal is blamed on a Service).
    assertEquals(failuresBefore + 2, metric("kubeproxy_sync_proxy_rules_iptables_restore_failures_total"));
    assertEquals(partialFailuresBefore + 1,
        metric("kubeproxy_sync_proxy_rules_iptables_partial_restore_failures_total"));
    // Unchanged, it stays out without another refusal; changed, it is tried again and programmed.
    assertFalse(proxier.sync(refusedDns.build()).full());
    assertEquals(failuresBefore + 2, metric("kubeproxy_sync_proxy_rules_iptables_restore_failures_total"));
    proxier.sync(twoServices("10.244.3.8").changed(DNS).changed(WEB).build());
    assertTrue(save(backend, IpFamily.IPv4, "nat").contains("\"kube-system/dns:dns cluster IP\""));
    assertEquals(failuresBefore + 2, metric("kubeproxy_sync_proxy_rules_iptables_restore_failures_total"));
    assertFalse(proxier.sync(twoServices("10.244.3.8").build()).full());

    // Something deletes the mangle canary: the rules check every syncPeriod notices, and the next
    // sync is a full one.
    scratch.ns.out("iptables-" + backend.suffix(), "-t", "mangle", "-X", "KUBE-PROXY-CANARY");
    assertTrue(proxier.rulesDisturbed());
    assertTrue(proxier.sync(twoServices("10.244.3.8").build()).full());
    assertTrue(save(backend, IpFamily.IPv4, "mangle").contains(":KUBE-PROXY-CANARY "));

    proxier.cleanup();
    proxier.cleanup();
    for (String table : List.of("nat", "filter", "mangle")) {
      String dump = save(backend, IpFamily.IPv4, table);
      assertFalse(dump.contains("KUBE-"), table + " still has KUBE-*: " + dump);
    }
  }

  /**
   * The restore input is sent with its chains in name order (SaveOrder), not in the order it was
   * generated in: the line the kernel refuses must still be blamed on the Service that wrote it.
   */
  @ParameterizedTest
  @EnumSource(IptablesBackend.class)
  void aRefusedLineIsBlamedOnItsServiceInTheOrderItWasSent(IptablesBackend backend) throws Exception {
    IptablesProxier proxier = proxier(IpFamily.IPv4, backend);
    ModelFixtures.StateBuilder state = state();
    for (int i = 0; i < 6; i++) {
      String ip = i == 4 ? "10.96.0.300" : "10.96.0." + (20 + i);
      state.add(svc(spn("demo", "svc-" + i, "http", "TCP"), ip, 80), ready("10.244.1." + (10 + i), 8080, false),
          ready("10.244.2." + (10 + i), 8080, false));
    }
    double failuresBefore = metric("kubeproxy_sync_proxy_rules_iptables_restore_failures_total");
    SyncResult result = proxier.sync(state.build());
    assertEquals(List.of(spn("demo", "svc-4", "http", "TCP")), result.refusedPorts());
    assertEquals(failuresBefore + 1, metric("kubeproxy_sync_proxy_rules_iptables_restore_failures_total"),
        "one refusal, blamed on the Service that wrote the refused line");
    String nat = save(backend, IpFamily.IPv4, "nat");
    for (int i = 0; i < 6; i++) {
      assertEquals(i != 4, nat.contains("\"demo/svc-" + i + ":http cluster IP\""), "svc-" + i + ": " + nat);
    }
    proxier.cleanup();
  }

  @Test
  void ipv6FullSyncAndCleanupOnLegacy() throws Exception {
    IptablesProxier proxier = proxier(IpFamily.IPv6, IptablesBackend.LEGACY);
    proxier.privilegedInit();
    assertFalse(Files.exists(scratch.sysctlRoot.resolve("net/ipv4/conf/all/route_localnet")), "no route_localnet for IPv6");
    ServicePortName v6 = spn("demo", "web6", "http", "TCP");
    proxier.sync(state().add(svc(v6, "fd00:10:96::1234", 80).nodePort(30081),
        ready("fd00:10:244::5", 8080, true)).build());
    String nat = save(IptablesBackend.LEGACY, IpFamily.IPv6, "nat");
    assertTrue(nat.contains("--to-destination [fd00:10:244::5]:8080"), nat);
    assertTrue(nat.contains("! -d ::1/128"), nat);
    proxier.cleanup();
    assertFalse(save(IptablesBackend.LEGACY, IpFamily.IPv6, "nat").contains("KUBE-"));
    assertFalse(save(IptablesBackend.LEGACY, IpFamily.IPv6, "filter").contains("KUBE-"));
  }

  /**
   * Issue 15 item 3: what other programs do to the tables while nothing changes (a flush of nat or
   * filter, a flush and delete of every chain, a deleted canary, one top-level chain flushed) is
   * seen by the periodic check, and the full sync it asks for restores exactly the rules of before.
   */
  @ParameterizedTest
  @EnumSource(IptablesBackend.class)
  void externalFlushesAreSeenAndRepaired(IptablesBackend backend) throws Exception {
    IptablesProxier proxier = proxier(IpFamily.IPv4, backend);
    proxier.sync(twoServices("10.244.2.7").build());
    assertFalse(proxier.sync(twoServices("10.244.2.7").changed(WEB).build()).full());
    String ipt = "iptables-" + backend.suffix();
    Map<String, String> before = new HashMap<>();
    for (String table : List.of("nat", "filter", "mangle")) {
      before.put(table, withoutCounters(save(backend, IpFamily.IPv4, table)));
    }
    assertFalse(proxier.rulesDisturbed(), "nothing changed yet");
    List<String> disturbances = List.of(
        "-t nat -F",
        "-t filter -F",
        "-F; -X",
        "-t nat -F; -t nat -X",
        "-t mangle -X KUBE-PROXY-CANARY",
        "-t filter -X KUBE-PROXY-CANARY",
        "-t nat -F KUBE-SERVICES",
        "-t nat -D PREROUTING -m comment --comment kubernetes\\ service\\ portals -j KUBE-SERVICES",
        "-t filter -F KUBE-FORWARD");
    for (String args : disturbances) {
      for (String command : args.split("; ")) {
        List<String> argv = new java.util.ArrayList<>(List.of(ipt));
        for (String arg : command.split("(?<!\\\\) ")) {
          argv.add(arg.replace("\\ ", " "));
        }
        scratch.ns.out(argv.toArray(String[]::new));
      }
      assertTrue(proxier.rulesDisturbed(), "seen: " + args);
      assertTrue(proxier.sync(twoServices("10.244.2.7").build()).full(), "repaired by a full sync: " + args);
      for (String table : List.of("nat", "filter", "mangle")) {
        assertEquals(before.get(table), withoutCounters(save(backend, IpFamily.IPv4, table)), table + " after " + args);
      }
      assertFalse(proxier.rulesDisturbed(), "repaired: " + args);
    }
  }

  /**
   * Issue 15 item 2: a name crafted to end the rule line and add its own (here with the DROP
   * rule that blocked every new connection) stays inside its comment: the restore loads, no rule
   * of the name's making exists, and the comment keeps the name's text with the line break replaced.
   */
  @ParameterizedTest
  @EnumSource(IptablesBackend.class)
  void namesCannotInjectRules(IptablesBackend backend) throws Exception {
    IptablesProxier proxier = proxier(IpFamily.IPv4, backend);
    ServicePortName hostile = spn("demo", "inj\"\n-A KUBE-SERVICES -s 192.0.2.99/32 -m comment --comment PWNED -j DROP\n#",
        "p\\\"x y", "TCP");
    proxier.sync(state()
        .add(svc(hostile, "10.96.7.7", 80).nodePort(30777), ready("10.244.1.7", 8080, false))
        .add(svc(WEB, "10.96.12.34", 80), ready("10.244.1.5", 8080, true)).build());
    for (String table : List.of("nat", "filter")) {
      String dump = save(backend, IpFamily.IPv4, table);
      for (String line : dump.split("\n")) {
        assertFalse(line.startsWith("-A KUBE-SERVICES -s 192.0.2.99/32"), "injected rule in " + table + ": " + line);
        assertFalse(line.contains("PWNED") && !line.contains("inj"), "injected rule in " + table + ": " + line);
      }
    }
    String nat = save(backend, IpFamily.IPv4, "nat");
    assertTrue(nat.contains("-d 10.96.7.7/32 -p tcp -m comment --comment \"demo/inj\\\"?-A KUBE-SERVICES -s 192.0.2.99/32"
        + " -m comment --comment PWNED -j DROP?#:p\\\\\\\"x y cluster IP\""), nat);
    assertTrue(nat.contains("-d 10.96.12.34/32 -p tcp -m comment --comment \"demo/web:http cluster IP\""), nat);
  }

  /**
   * Issue 15 item 1 (iptables side): the longest names an API server accepts (namespace 63, name
   * 63, port name 15) load in both families, every comment included.
   */
  @ParameterizedTest
  @EnumSource(IpFamily.class)
  void maximalValidNamesLoad(IpFamily family) throws Exception {
    IptablesProxier proxier = proxier(family, IptablesBackend.LEGACY);
    boolean v4 = family == IpFamily.IPv4;
    String namespace = "n" + "s".repeat(61) + "1";
    String name = "s" + "v".repeat(61) + "c";
    ServicePortName longest = spn(namespace, name, "p".repeat(14) + "1", "TCP");
    ServicePortName local = spn(namespace, "l" + "o".repeat(61) + "c", "q".repeat(15), "UDP");
    proxier.sync(state()
        .add(svc(longest, v4 ? "10.96.8.8" : "fd00:10:96::88", 80).nodePort(30888)
                .loadBalancer(v4 ? "203.0.113.8" : "2001:db8::8").sourceRanges(v4 ? "198.51.100.0/24" : "2001:db8:1::/64"),
            ready(v4 ? "10.244.1.8" : "fd00:10:244::8", 8080, true), ready(v4 ? "10.244.2.8" : "fd00:10:244::9", 8080, false))
        .add(svc(local, v4 ? "10.96.8.9" : "fd00:10:96::89", 53).nodePort(30889).etpLocal(30890),
            ready(v4 ? "10.244.1.9" : "fd00:10:244::a", 53, false))
        .build());
    String nat = save(IptablesBackend.LEGACY, family, "nat");
    String spn = namespace + "/" + name + ":" + "p".repeat(14) + "1";
    assertTrue(nat.contains("--comment \"masquerade traffic for " + spn + " external destinations\""), nat);
    assertTrue(nat.contains("--comment \"" + spn + " loadbalancer IP\""), nat);
    assertTrue(save(IptablesBackend.LEGACY, family, "filter").contains(namespace + "/l" + "o".repeat(61) + "c:"
        + "q".repeat(15) + " has no local endpoints"));
  }

  @Test
  void backendChoiceFollowsTheRulesOnTheNode() throws Exception {
    assertEquals(IptablesBackend.LEGACY, BackendSelector.detect(scratch.ns.runner), "empty node: legacy works here");
    scratch.ns.out("iptables-nft", "-t", "mangle", "-N", "KUBE-IPTABLES-HINT");
    assertEquals(IptablesBackend.NFT, BackendSelector.detect(scratch.ns.runner), "kubelet's hint chain in nft");
  }

  @Test
  void cleanupLeavesKubeletChainsAlone() throws Exception {
    IptablesProxier proxier = proxier(IpFamily.IPv4, IptablesBackend.LEGACY);
    proxier.sync(twoServices("10.244.2.7").build());
    scratch.ns.out("iptables-legacy", "-t", "filter", "-N", "KUBE-KUBELET-CANARY");
    scratch.ns.out("iptables-legacy", "-t", "nat", "-N", "KUBE-MARK-DROP");
    assertTrue(IptablesCleanup.cleanupAll(scratch.ns.runner, metrics));
    String filter = save(IptablesBackend.LEGACY, IpFamily.IPv4, "filter");
    assertTrue(filter.contains(":KUBE-FIREWALL "), "kubelet runs here: its KUBE-FIREWALL stays");
    assertTrue(filter.contains(":KUBE-KUBELET-CANARY "));
    assertFalse(filter.contains("KUBE-SERVICES"));
    String nat = save(IptablesBackend.LEGACY, IpFamily.IPv4, "nat");
    assertTrue(nat.contains(":KUBE-MARK-DROP "));
    assertFalse(nat.contains("KUBE-SVC-"));
    assertFalse(nat.contains("KUBE-SERVICES"));
  }

  /** An IPv4 counter's value from the agent's /metrics text (0 before its first increment). */
  private double metric(String name) {
    if (!metrics.registry().isRegistered(name)) {
      metrics.registerFor(ProxyMode.IPTABLES);
    }
    String series = name + "{ip_family=\"IPv4\"} ";
    for (String line : metrics.registry().scrape().split("\n")) {
      if (line.startsWith(series)) {
        return Double.parseDouble(line.substring(series.length()).trim());
      }
    }
    return 0;
  }

  /** The rules a full sync's restore input writes into the nat table's chains (all of them kube-proxy's). */
  private static int natRules(String restoreInput) {
    String nat = restoreInput.substring(restoreInput.indexOf("*nat\n"));
    int rules = 0;
    for (String line : nat.split("\n")) {
      if (line.startsWith("-A ")) {
        rules++;
      }
    }
    return rules;
  }

  private static String withoutCounters(String save) {
    StringBuilder out = new StringBuilder();
    for (String line : save.split("\n")) {
      if (!line.startsWith("#")) {
        out.append(line.replaceAll("\\[\\d+:\\d+\\]", "")).append('\n');
      }
    }
    return out.toString();
  }
}
