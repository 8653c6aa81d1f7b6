package dev.kubeproxy.backend.ipvs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kubeproxy.config.KubeProxyConfiguration;
import dev.kubeproxy.net.IpFamily;
import dev.kubeproxy.testutil.tier.Unit;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The text the ipvs parts read and write: set names and create lines, tool output, settings. */
@Unit
class IpvsPartsTest {
  @Test
  void setNamesAndCreateLinesPerFamily() {
    IpSet cluster6 = new IpSet(IpSets.CLUSTER_IP, IpSetType.HASH_IP_PORT, "c", IpFamily.IPv6);
    assertEquals("KUBE-6-CLUSTER-IP", cluster6.name());
    assertEquals("create KUBE-6-CLUSTER-IP hash:ip,port family inet6 hashsize 1024 maxelem 65536", cluster6.createLine());
    IpSet nodePort = new IpSet(IpSets.NODE_PORT_TCP, IpSetType.BITMAP_PORT, "c", IpFamily.IPv4);
    assertEquals("create KUBE-NODE-PORT-TCP bitmap:port range 0-65535", nodePort.createLine());
    assertEquals("KUBE-6-NODE-PORT-LOCAL-SCTP-HAS",
        new IpSet(IpSets.NODE_PORT_LOCAL_SCTP, IpSetType.HASH_IP_PORT, "c", IpFamily.IPv6).name());
    assertEquals(17, IpSets.all(IpFamily.IPv4).size());
  }

  @Test
  void ipsetSaveOutputIsReadPerSet() {
    String save = """
        create KUBE-CLUSTER-IP hash:ip,port family inet hashsize 1024 maxelem 65536 bucketsize 12 initval 0x1
        add KUBE-CLUSTER-IP 10.96.0.10,tcp:80
        create KUBE-NODE-PORT-TCP bitmap:port range 0-65535
        create OTHER hash:ip family inet
        add OTHER 10.0.0.1
        """;
    assertEquals(Map.of("KUBE-CLUSTER-IP", Set.of("10.96.0.10,tcp:80"), "KUBE-NODE-PORT-TCP", Set.of()),
        IpSetTool.parseSave(save, "KUBE-"));
  }

  @Test
  void ipsetVersionMinimum() {
    assertTrue(IpSetTool.atLeastMinimum("7.17"));
    assertTrue(IpSetTool.atLeastMinimum("6.0"));
    assertFalse(IpSetTool.atLeastMinimum("5.4"));
  }

  @Test
  void addressesOfTheDummyInterfaceAndOfTheOthers() {
    String ip = """
        1: lo    inet 127.0.0.1/8 scope host lo\\       valid_lft forever preferred_lft forever
        2: eth0    inet 192.168.0.2/24 brd 192.168.0.255 scope global eth0\\       valid_lft forever
        2: eth0    inet6 fe80::1/64 scope link \\       valid_lft forever preferred_lft forever
        5: kube-ipvs0    inet 10.96.0.10/32 scope global kube-ipvs0\\       valid_lft forever
        5: kube-ipvs0    inet6 fd00:96::10/128 scope global \\       valid_lft forever
        """;
    assertEquals(Set.of("10.96.0.10", "fd00:96::10"), DummyInterface.addresses(ip, "kube-ipvs0", true));
    Set<String> others = DummyInterface.addresses(ip, "kube-ipvs0", false);
    assertEquals(Set.of("127.0.0.1", "192.168.0.2", "fe80::1"), others);
    // upstream isValidForSet: no loopback, no IPv6 link-local, this family only
    assertEquals(Set.of("192.168.0.2"), NodeAddresses.of(others, IpFamily.IPv4));
    assertEquals(Set.of(), NodeAddresses.of(others, IpFamily.IPv6));
  }

  @Test
  void settingsDefaultToRoundRobinAndKeepThisFamilysExcludeCIDRs() {
    KubeProxyConfiguration.IPVS c = new KubeProxyConfiguration.IPVS();
    c.excludeCIDRs = List.of("10.0.0.0/8", "fd00::/64");
    c.tcpTimeout = Duration.ofSeconds(900);
    IpvsSettings v4 = IpvsSettings.of(c, IpFamily.IPv4);
    assertEquals("rr", v4.scheduler());
    assertTrue(v4.excluded("10.1.2.3"));
    assertFalse(v4.excluded("fd00::1"));
    assertTrue(IpvsSettings.of(c, IpFamily.IPv6).excluded("fd00::1"));
    assertEquals(Duration.ofSeconds(900), v4.tcpTimeout());
    c.scheduler = "mh";
    assertEquals("mh", IpvsSettings.of(c, IpFamily.IPv4).scheduler());
  }

  @Test
  void kernelVersionsForConnReuseMode() {
    assertEquals(List.of(6, 1), List.of(IpvsSysctls.kernelVersion("6.1.0-57-amd64")[0],
        IpvsSysctls.kernelVersion("6.1.0-57-amd64")[1]));
    assertEquals(null, IpvsSysctls.kernelVersion("weird"));
  }

  @Test
  void nodePortsListenOnTheAddressesInsideNodePortAddresses() {
    Set<String> node = Set.of("192.168.0.2", "10.1.0.2", "192.168.1.7");
    assertEquals(List.of("10.1.0.2", "192.168.0.2", "192.168.1.7"), NodeAddresses.forNodePorts(node, List.of()));
    assertEquals(List.of("192.168.0.2"), NodeAddresses.forNodePorts(node, List.of("192.168.0.0/24")));
  }

  @Test
  void theRulesOfEachTableAreCountedFromTheRestoreInput() {
    String restore = """
        *filter
        :KUBE-FORWARD - [0:0]
        -A KUBE-FORWARD -j ACCEPT
        COMMIT
        *nat
        :KUBE-SERVICES - [0:0]
        -A KUBE-SERVICES -j RETURN
        -A KUBE-SERVICES -j KUBE-MARK-MASQ
        COMMIT
        """;
    IpvsRuleset r = new IpvsRuleset(Map.of(), Map.of(), Map.of(), Set.of(), Map.of(), restore, Set.of(), Set.of());
    assertEquals(1, r.rulesIn("filter"));
    assertEquals(2, r.rulesIn("nat"));
    assertEquals(0, r.rulesIn("mangle"));
  }
}
