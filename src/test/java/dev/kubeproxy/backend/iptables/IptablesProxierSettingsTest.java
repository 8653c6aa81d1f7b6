package dev.kubeproxy.backend.iptables;

import dev.kubeproxy.backend.netfilter.BackendSelector;
import dev.kubeproxy.backend.netfilter.IptablesTool;
import dev.kubeproxy.backend.netfilter.Sysctls;

import static dev.kubeproxy.backend.iptables.Fixtures.clusterCidr;
import static dev.kubeproxy.testutil.ModelFixtures.ready;
import static dev.kubeproxy.testutil.ModelFixtures.spn;
import static dev.kubeproxy.testutil.ModelFixtures.state;
import static dev.kubeproxy.testutil.ModelFixtures.svc;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kubeproxy.host.CommandRunner;
import dev.kubeproxy.net.IpFamily;
import dev.kubeproxy.testutil.tier.Unit;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** How settings become ruleset options (nodePortAddresses, localhost NodePorts), and the tool's parsing helpers. */
@Unit
class IptablesProxierSettingsTest {
  @TempDir Path sysctlRoot;

  private String dryRun(IpFamily family, List<String> nodePortAddresses, boolean localhostNodePorts,
      List<String> interfaceAddresses) throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    var settings = Fixtures.settings(family, nodePortAddresses,
        clusterCidr(family == IpFamily.IPv4 ? "10.244.0.0/16" : "fd00:10:244::/64"), false, localhostNodePorts,
        new PrintStream(bytes, true, StandardCharsets.UTF_8));
    var proxier = new IptablesProxier(settings, CommandRunner.inNetns("kp-ipt-no-such-namespace"),
        new dev.kubeproxy.metrics.ProxyMetrics(), new Sysctls(sysctlRoot), () -> interfaceAddresses, null);
    String ip = family == IpFamily.IPv4 ? "10.96.12.34" : "fd00:10:96::1234";
    proxier.sync(state().add(svc(spn("demo", "web", "http", "TCP"), ip, 80).nodePort(30080),
        ready(family == IpFamily.IPv4 ? "10.244.1.5" : "fd00:10:244::5", 8080, true)).build());
    return bytes.toString(StandardCharsets.UTF_8);
  }

  private static final String NODEPORTS_RULE = "-A KUBE-SERVICES -m comment --comment \"kubernetes service nodeports;"
      + " NOTE: this must be the last rule in this chain\" ";

  @Test
  void nodePortAddressesWithLoopbackKeepLocalhostNodePorts() throws Exception {
    String out = dryRun(IpFamily.IPv4, List.of("192.168.200.0/24", "127.0.0.0/8"), true,
        List.of("192.168.200.10", "10.0.0.5", "127.0.0.1", "fd00::1"));
    assertTrue(out.contains(NODEPORTS_RULE + "-d 192.168.200.10 -j KUBE-NODEPORTS\n"), out);
    assertTrue(out.contains(NODEPORTS_RULE + "-d 127.0.0.1 -j KUBE-NODEPORTS\n"), out);
    assertFalse(out.contains("10.0.0.5"), out);
    assertTrue(out.contains(":KUBE-FIREWALL - [0:0]"), out);
  }

  @Test
  void nodePortAddressesWithoutLoopbackTurnLocalhostNodePortsOff() throws Exception {
    String out = dryRun(IpFamily.IPv4, List.of("192.168.200.0/24"), true,
        List.of("192.168.200.10", "192.168.200.11", "127.0.0.1"));
    assertTrue(out.contains(NODEPORTS_RULE + "-d 192.168.200.10 -j KUBE-NODEPORTS\n"), out);
    assertTrue(out.contains(NODEPORTS_RULE + "-d 192.168.200.11 -j KUBE-NODEPORTS\n"), out);
    assertFalse(out.contains("KUBE-FIREWALL"), out);
    assertFalse(out.contains("127.0.0.1"), out);
  }

  @Test
  void ipv6NeverHasLocalhostNodePorts() throws Exception {
    String out = dryRun(IpFamily.IPv6, List.of(), true, List.of());
    assertTrue(out.startsWith("# ip6tables-restore --noflush --counters input"), out);
    assertTrue(out.contains("-m addrtype --dst-type LOCAL ! -d ::1/128 -j KUBE-NODEPORTS\n"), out);
    assertFalse(out.contains("KUBE-FIREWALL"), out);
    out = dryRun(IpFamily.IPv6, List.of("fd00:192:168::/64", "::1/128"), true, List.of("fd00:192:168::10", "::1"));
    assertTrue(out.contains(NODEPORTS_RULE + "-d fd00:192:168::10 -j KUBE-NODEPORTS\n"), out);
    assertFalse(out.contains("-d ::1 "), out);
  }

  @Test
  void localhostNodePortsNeedsIPv4LoopbackInNodePortAddresses() {
    assertTrue(NodePortIPs.containsIPv4Loopback(List.of()));
    assertTrue(NodePortIPs.containsIPv4Loopback(List.of("0.0.0.0/0")));
    assertTrue(NodePortIPs.containsIPv4Loopback(List.of("127.0.0.1/32")));
    assertFalse(NodePortIPs.containsIPv4Loopback(List.of("192.168.200.0/24")));
    assertTrue(NodePortIPs.matchesAll(List.of("192.168.200.0/24", "0.0.0.0/0")));
    assertFalse(NodePortIPs.matchesAll(List.of("192.168.200.0/24")));
  }

  @Test
  void restoreErrorsPointAtTheInputLine() {
    String input = "*filter\n:KUBE-SERVICES - [0:0]\n-A KUBE-SERVICES -d 10.96.0.300 -j REJECT\nCOMMIT\n";
    assertEquals("-A KUBE-SERVICES -d 10.96.0.300 -j REJECT", IptablesTool.lineOf(input, 3));
    assertEquals("COMMIT", IptablesTool.lineOf(input, 4));
    assertNull(IptablesTool.lineOf(input, 5));
    assertNull(IptablesTool.lineOf(input, 0));
  }

  @Test
  void saveOutputParsing() {
    String save = "# Generated by iptables-save\n*mangle\n:PREROUTING ACCEPT [0:0]\n:KUBE-PROXY-CANARY - [0:0]\nCOMMIT\n"
        + "*nat\n:PREROUTING ACCEPT [0:0]\n:KUBE-SVC-X - [0:0]\n-A PREROUTING -j KUBE-SVC-X\nCOMMIT\n";
    Map<String, String> tables = IptablesTool.tablesOf(save);
    assertEquals(Map.of("mangle", ":PREROUTING ACCEPT [0:0]\n:KUBE-PROXY-CANARY - [0:0]\n",
        "nat", ":PREROUTING ACCEPT [0:0]\n:KUBE-SVC-X - [0:0]\n-A PREROUTING -j KUBE-SVC-X\n"), tables);
    assertEquals(List.of("PREROUTING", "KUBE-SVC-X"), List.copyOf(IptablesTool.chainsOf(tables.get("nat"))));
    assertEquals(1, BackendSelector.ruleLines(save));
  }

  @Test
  void versionComparison() {
    assertTrue(IptablesTool.atLeast(new int[] {1, 8, 9}, 1, 6, 2));
    assertTrue(IptablesTool.atLeast(new int[] {1, 6, 2}, 1, 6, 2));
    assertFalse(IptablesTool.atLeast(new int[] {1, 6, 1}, 1, 6, 2));
    assertFalse(IptablesTool.atLeast(null, 1, 4, 20));
  }
}
