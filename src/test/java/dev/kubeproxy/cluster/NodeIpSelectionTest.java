package dev.kubeproxy.cluster;

import dev.kubeproxy.net.IpAddresses;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kubeproxy.model.objects.ClusterObjects;
import dev.kubeproxy.model.objects.Node;
import dev.kubeproxy.config.KubeProxyConfiguration;
import dev.kubeproxy.net.IpFamily;
import dev.kubeproxy.testutil.tier.Unit;
import java.util.List;
import org.junit.jupiter.api.Test;

@Unit
class NodeIpSelectionTest {
  @Test
  void parsesLiteralsOnly() {
    assertEquals("10.0.0.1", IpAddresses.inetAddress("10.0.0.1").getHostAddress());
    assertNull(IpAddresses.inetAddress("localhost"));
    assertNull(IpAddresses.inetAddress("10.0.0.256"));
    // upstream reads node addresses with ParseIPSloppy: leading zeros are decimal
    assertEquals("10.0.0.1", IpAddresses.inetAddress("010.0.0.1").getHostAddress());
    assertEquals("fd00::1", NodeIpSelection.canonical("fd00:0:0:0:0:0:0:1"));
    assertEquals("fd00:10:244:1::", NodeIpSelection.canonical("fd00:10:244:1:0:0:0:0"));
    assertNull(IpAddresses.cidrAddress("10.0.0.0/33"));
  }

  @Test
  void hostIPsTakeInternalThenExternalAndOneOfTheOtherFamily() {
    var node = ClusterObjects.node("n", java.util.Map.of(), List.of(), List.of(
        new Node.Address("Hostname", "n"),
        new Node.Address("ExternalIP", "fd00::9"),
        new Node.Address("InternalIP", "192.168.200.10"),
        new Node.Address("InternalIP", "192.168.200.11")));
    assertEquals(List.of("192.168.200.10", "fd00::9"), NodeIpSelection.nodeHostIPs(node));
    var none = ClusterObjects.node("n", java.util.Map.of(), List.of(), List.of(new Node.Address("Hostname", "n")));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> NodeIpSelection.nodeHostIPs(none));
    assertEquals("host IP unknown; known addresses: [{Hostname n}]", e.getMessage());
  }

  @Test
  void detectNodeIPsPrecedence() {
    var loop = NodeIpSelection.detectNodeIPs(List.of(), "0.0.0.0");
    assertEquals(IpFamily.IPv4, loop.primaryFamily());
    assertEquals(List.of("127.0.0.1", "::1"), loop.ordered());
    assertTrue(loop.primaryIsLoopback());

    var fromNode = NodeIpSelection.detectNodeIPs(List.of("fd00::10", "192.168.200.10"), "");
    assertEquals(IpFamily.IPv6, fromNode.primaryFamily());
    assertEquals(List.of("fd00::10", "192.168.200.10"), fromNode.ordered());

    var bind = NodeIpSelection.detectNodeIPs(List.of("fd00::10"), "192.168.200.20");
    assertEquals(IpFamily.IPv4, bind.primaryFamily());
    assertEquals(List.of("192.168.200.20", "fd00::10"), bind.ordered());
  }

  @Test
  void primaryNodePortAddresses() {
    var detected = NodeIpSelection.detectNodeIPs(List.of("192.168.200.10"), "");
    assertEquals(List.of("192.168.200.10/32"), NodeIpSelection.expandKeywords(List.of("primary"), detected));
    var dual = NodeIpSelection.detectNodeIPs(List.of("192.168.200.10", "fd00::10"), "");
    assertEquals(List.of("192.168.200.10/32", "fd00::10/128"), NodeIpSelection.expandKeywords(List.of("primary"), dual));
    assertEquals(List.of(), NodeIpSelection.expandKeywords(List.of("primary"), NodeIpSelection.detectNodeIPs(List.of(), "")));
    assertEquals(List.of("10.0.0.0/8"), NodeIpSelection.expandKeywords(List.of("10.0.0.0/8"), detected));
  }

  @Test
  void localhostAndAllKeywordsExpandToCidrs() {
    var detected = NodeIpSelection.detectNodeIPs(List.of("192.168.200.10"), "");
    assertEquals(List.of("127.0.0.0/8", "::1/128"), NodeIpSelection.expandKeywords(List.of("localhost"), detected));
    assertEquals(List.of("0.0.0.0/0", "::/0"), NodeIpSelection.expandKeywords(List.of("all"), detected));
    assertEquals(List.of("192.168.200.10/32", "127.0.0.0/8", "::1/128", "10.0.0.0/8"),
        NodeIpSelection.expandKeywords(List.of("primary", "localhost", "10.0.0.0/8", "127.0.0.0/8"), detected));
    // a loopback node IP is never a primary NodePort address, but localhost still is
    assertEquals(List.of("127.0.0.0/8", "::1/128"), NodeIpSelection.expandKeywords(List.of("primary", "localhost"),
        NodeIpSelection.detectNodeIPs(List.of(), "")));
  }

  @Test
  void checkBadConfigTexts() {
    KubeProxyConfiguration c = new KubeProxyConfiguration();
    assertEquals(List.of("nodePortAddresses is unset; NodePort connections will be accepted on all local IPs. Consider using `--nodeport-addresses primary`"),
        ConfigChecks.checkBadConfig(c, List.of(), IpFamily.IPv4).messages());
    c.nodePortAddresses = List.of("192.168.200.0/24");
    c.clusterCIDR = "10.244.0.0/16,fd00:10:244::/64";
    assertEquals(List.of("cluster appears to be dual-stack but nodePortAddresses contains only IPv4 addresses; NodePort connections will be accepted on all local IPv6 IPs"),
        ConfigChecks.checkBadConfig(c, List.of(), IpFamily.IPv4).messages());
    c.clusterCIDR = "";
    c.nodePortAddresses = List.of("fd00::/64");
    assertEquals(List.of("cluster appears to be IPv4-primary but nodePortAddresses contains only IPv6 addresses; NodePort connections will be accepted on all local IPv4 IPs"),
        ConfigChecks.checkBadConfig(c, List.of(), IpFamily.IPv4).messages());
    c.nodePortAddresses = List.of("192.168.200.0/24", "fd00::/64");
    assertEquals(List.of(), ConfigChecks.checkBadConfig(c, List.of(), IpFamily.IPv4).messages());
  }

  @Test
  void checkBadIPConfigFatalCases() {
    KubeProxyConfiguration c = new KubeProxyConfiguration();
    c.clusterCIDR = "fd00:10:244::/64";
    c.detectLocalMode = "ClusterCIDR";
    var single = ConfigChecks.checkBadIPConfig(c, List.of(), IpFamily.IPv4, false);
    assertEquals(List.of("cluster is IPv4-only but clusterCIDRs contains only IPv6 addresses"), single.messages());
    assertTrue(single.fatal());
    var dual = ConfigChecks.checkBadIPConfig(c, List.of(), IpFamily.IPv4, true);
    assertEquals(List.of("cluster is IPv4-primary but clusterCIDRs contains only IPv6 addresses"), dual.messages());
    assertFalse(dual.fatal());

    KubeProxyConfiguration n = new KubeProxyConfiguration();
    n.detectLocalMode = "NodeCIDR";
    n.healthzBindAddress = "[fd00::1]:10256";
    n.metricsBindAddress = "[::]:10249";
    var r = ConfigChecks.checkBadIPConfig(n, List.of("fd00:10:244:1::/64"), IpFamily.IPv4, false);
    assertEquals(List.of("cluster is IPv4-only but node.spec.podCIDRs contains only IPv6 addresses",
        "cluster is IPv4-only but healthzBindAddress is IPv6"), r.messages());
    assertTrue(r.fatal());
    assertEquals("[cluster is IPv4-only but node.spec.podCIDRs contains only IPv6 addresses, cluster is IPv4-only but healthzBindAddress is IPv6]",
        r.aggregated());
  }
}
