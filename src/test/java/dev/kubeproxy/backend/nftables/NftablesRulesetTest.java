package dev.kubeproxy.backend.nftables;

import static dev.kubeproxy.backend.nftables.Fixtures.*;
import static dev.kubeproxy.testutil.ModelFixtures.*;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.kubeproxy.model.Endpoint;
import dev.kubeproxy.net.IpFamily;
import dev.kubeproxy.model.LocalTrafficDetector;
import dev.kubeproxy.model.ProxierSettings;
import dev.kubeproxy.model.ServicePortName;
import dev.kubeproxy.model.SyncResult;
import dev.kubeproxy.testutil.CountingMetrics;
import dev.kubeproxy.testutil.tier.Unit;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The nft text of a full sync, scenario by scenario (the per-service part after the fixed part;
 * {@link #fullTransactionOfTheRunningExample} shows one transaction whole), and that the fake
 * accepts it.
 */
@Unit
class NftablesRulesetTest {
  static final ProxierSettings V4 = settings(IpFamily.IPv4);
  static final ProxierSettings V6 = settings(IpFamily.IPv6);
  static final ServicePortName web = spn("demo", "web", "http");

  private static void assertServicePart(ProxierSettings s, Model model, String expected, String result)
      throws Exception {
    FakeNftables fake = new FakeNftables(s.family());
    NftablesProxier p = proxier(s, fake, new CountingMetrics(), new TestClock());
    SyncResult r = p.sync(model.state());
    assertEquals(expected, servicePart(p.lastTransaction().render(s.family())));
    assertEquals(result, r.toString());
    assertEquals(1, fake.appliedTransactions().size(), "the fake accepted the transaction");
  }

  @Test
  void clusterIpWithTwoEndpointsUsesOneDnatMap() throws Exception {
    assertServicePart(V4, new Model().put(svc(web, "10.96.12.34", 80), ready("10.244.1.5", 8080, true), ready("10.244.2.7", 8080, false)),
        """
        add chain ip kube-proxy service-AXK6CI2C-demo/web/tcp/http
        flush chain ip kube-proxy service-AXK6CI2C-demo/web/tcp/http
        add map ip kube-proxy endpoint-ranges-tcp-0 { typeof numgen random mod 1 : ip daddr . tcp dport ; flags interval ; comment "endpoints of up to 64 tcp services, a key range each" ; }
        flush map ip kube-proxy endpoint-ranges-tcp-0
        add rule ip kube-proxy service-AXK6CI2C-demo/web/tcp/http ip daddr 10.96.12.34 tcp dport 80 ip saddr != 10.244.0.0/16 jump mark-for-masquerade
        add rule ip kube-proxy service-AXK6CI2C-demo/web/tcp/http meta l4proto tcp dnat ip addr . port to numgen random mod 24504480 offset 0 map @endpoint-ranges-tcp-0
        add element ip kube-proxy cluster-ips { 10.96.12.34 }
        add element ip kube-proxy service-ips { 10.96.12.34 . tcp . 80 : goto service-AXK6CI2C-demo/web/tcp/http }
        add element ip kube-proxy endpoint-ranges-tcp-0 { 0-12252239 : 10.244.1.5 . 8080 , 12252240-24504479 : 10.244.2.7 . 8080 }
        add element ip kube-proxy hairpin-connections { 10.244.1.5 . 10.244.1.5 . tcp . 8080 , 10.244.2.7 . 10.244.2.7 . tcp . 8080 }
        """,
        "SyncResult[full=true, ruleCounts={kube-proxy=29}, noLocalEndpointsInternal=0, noLocalEndpointsExternal=0]");
  }

  @Test
  void nodePortWithClusterPolicyMasqueradesExternalTraffic() throws Exception {
    assertServicePart(V4, new Model().put(svc(web, "10.96.12.34", 80).nodePort(30080), ready("10.244.2.7", 8080, false)),
        """
        add chain ip kube-proxy service-AXK6CI2C-demo/web/tcp/http
        flush chain ip kube-proxy service-AXK6CI2C-demo/web/tcp/http
        add chain ip kube-proxy external-AXK6CI2C-demo/web/tcp/http
        flush chain ip kube-proxy external-AXK6CI2C-demo/web/tcp/http
        add rule ip kube-proxy service-AXK6CI2C-demo/web/tcp/http ip daddr 10.96.12.34 tcp dport 80 ip saddr != 10.244.0.0/16 jump mark-for-masquerade
        add rule ip kube-proxy service-AXK6CI2C-demo/web/tcp/http meta l4proto tcp dnat to 10.244.2.7:8080
        add rule ip kube-proxy external-AXK6CI2C-demo/web/tcp/http jump mark-for-masquerade
        add rule ip kube-proxy external-AXK6CI2C-demo/web/tcp/http goto service-AXK6CI2C-demo/web/tcp/http
        add element ip kube-proxy cluster-ips { 10.96.12.34 }
        add element ip kube-proxy service-ips { 10.96.12.34 . tcp . 80 : goto service-AXK6CI2C-demo/web/tcp/http }
        add element ip kube-proxy service-nodeports { tcp . 30080 : goto external-AXK6CI2C-demo/web/tcp/http }
        add element ip kube-proxy hairpin-connections { 10.244.2.7 . 10.244.2.7 . tcp . 8080 }
        """,
        "SyncResult[full=true, ruleCounts={kube-proxy=31}, noLocalEndpointsInternal=0, noLocalEndpointsExternal=0]");
  }

  @Test
  void serviceWithoutEndpointsRejects() throws Exception {
    assertServicePart(V4, new Model().put(svc(web, "10.96.12.34", 80).nodePort(30080).externalIPs("192.0.2.50").loadBalancer("203.0.113.10")),
        """
        add element ip kube-proxy cluster-ips { 10.96.12.34 }
        add element ip kube-proxy no-endpoint-services { 10.96.12.34 . tcp . 80 comment "demo/web:http" : goto reject-chain , 192.0.2.50 . tcp . 80 comment "demo/web:http" : goto reject-chain , 203.0.113.10 . tcp . 80 comment "demo/web:http" : goto reject-chain }
        add element ip kube-proxy no-endpoint-nodeports { tcp . 30080 comment "demo/web:http" : goto reject-chain }
        """,
        "SyncResult[full=true, ruleCounts={kube-proxy=27}, noLocalEndpointsInternal=0, noLocalEndpointsExternal=0]");
  }

  @Test
  void externalPolicyLocalWithoutLocalEndpointDropsExternalTraffic() throws Exception {
    assertServicePart(V4, new Model().put(svc(web, "10.96.12.34", 80).nodePort(30080).externalIPs("192.0.2.50").etpLocal(), ready("10.244.2.7", 8080, false)),
        """
        add chain ip kube-proxy service-AXK6CI2C-demo/web/tcp/http
        flush chain ip kube-proxy service-AXK6CI2C-demo/web/tcp/http
        add chain ip kube-proxy external-AXK6CI2C-demo/web/tcp/http
        flush chain ip kube-proxy external-AXK6CI2C-demo/web/tcp/http
        add rule ip kube-proxy service-AXK6CI2C-demo/web/tcp/http ip daddr 10.96.12.34 tcp dport 80 ip saddr != 10.244.0.0/16 jump mark-for-masquerade
        add rule ip kube-proxy service-AXK6CI2C-demo/web/tcp/http meta l4proto tcp dnat to 10.244.2.7:8080
        add rule ip kube-proxy external-AXK6CI2C-demo/web/tcp/http ip saddr 10.244.0.0/16 goto service-AXK6CI2C-demo/web/tcp/http comment "short-circuit pod traffic"
        add rule ip kube-proxy external-AXK6CI2C-demo/web/tcp/http fib saddr type local jump mark-for-masquerade comment "masquerade local traffic"
        add rule ip kube-proxy external-AXK6CI2C-demo/web/tcp/http fib saddr type local goto service-AXK6CI2C-demo/web/tcp/http comment "short-circuit local traffic"
        add element ip kube-proxy cluster-ips { 10.96.12.34 }
        add element ip kube-proxy service-ips { 10.96.12.34 . tcp . 80 : goto service-AXK6CI2C-demo/web/tcp/http , 192.0.2.50 . tcp . 80 : goto external-AXK6CI2C-demo/web/tcp/http }
        add element ip kube-proxy no-endpoint-services { 192.0.2.50 . tcp . 80 comment "demo/web:http" : drop }
        add element ip kube-proxy service-nodeports { tcp . 30080 : goto external-AXK6CI2C-demo/web/tcp/http }
        add element ip kube-proxy no-endpoint-nodeports { tcp . 30080 comment "demo/web:http" : drop }
        add element ip kube-proxy hairpin-connections { 10.244.2.7 . 10.244.2.7 . tcp . 8080 }
        """,
        "SyncResult[full=true, ruleCounts={kube-proxy=32}, noLocalEndpointsInternal=0, noLocalEndpointsExternal=1]");
  }

  @Test
  void internalPolicyLocalUsesLocalChain() throws Exception {
    assertServicePart(V4, new Model().put(svc(web, "10.96.12.34", 80).itpLocal(), ready("10.244.1.5", 8080, true), ready("10.244.2.7", 8080, false)),
        """
        add chain ip kube-proxy local-AXK6CI2C-demo/web/tcp/http
        flush chain ip kube-proxy local-AXK6CI2C-demo/web/tcp/http
        add rule ip kube-proxy local-AXK6CI2C-demo/web/tcp/http ip daddr 10.96.12.34 tcp dport 80 ip saddr != 10.244.0.0/16 jump mark-for-masquerade
        add rule ip kube-proxy local-AXK6CI2C-demo/web/tcp/http meta l4proto tcp dnat to 10.244.1.5:8080
        add element ip kube-proxy cluster-ips { 10.96.12.34 }
        add element ip kube-proxy service-ips { 10.96.12.34 . tcp . 80 : goto local-AXK6CI2C-demo/web/tcp/http }
        add element ip kube-proxy hairpin-connections { 10.244.1.5 . 10.244.1.5 . tcp . 8080 }
        """,
        "SyncResult[full=true, ruleCounts={kube-proxy=29}, noLocalEndpointsInternal=0, noLocalEndpointsExternal=0]");
  }

  @Test
  void internalPolicyLocalWithoutLocalEndpointDrops() throws Exception {
    assertServicePart(V4, new Model().put(svc(web, "10.96.12.34", 80).itpLocal(), ready("10.244.2.7", 8080, false)),
        """
        add element ip kube-proxy cluster-ips { 10.96.12.34 }
        add element ip kube-proxy no-endpoint-services { 10.96.12.34 . tcp . 80 comment "demo/web:http" : drop }
        """,
        "SyncResult[full=true, ruleCounts={kube-proxy=27}, noLocalEndpointsInternal=1, noLocalEndpointsExternal=0]");
  }

  @Test
  void clientIpAffinityKeepsEndpointChainsAndSets() throws Exception {
    assertServicePart(V4, new Model().put(svc(web, "10.96.12.34", 80).affinity(10800), ready("10.244.1.5", 8080, true), ready("10.244.2.7", 8080, false)),
        """
        add chain ip kube-proxy endpoint-6UVIXZI4-demo/web/tcp/http__10.244.1.5/8080
        flush chain ip kube-proxy endpoint-6UVIXZI4-demo/web/tcp/http__10.244.1.5/8080
        add chain ip kube-proxy endpoint-22EEGIMG-demo/web/tcp/http__10.244.2.7/8080
        flush chain ip kube-proxy endpoint-22EEGIMG-demo/web/tcp/http__10.244.2.7/8080
        add chain ip kube-proxy service-AXK6CI2C-demo/web/tcp/http
        flush chain ip kube-proxy service-AXK6CI2C-demo/web/tcp/http
        add set ip kube-proxy affinity-6UVIXZI4-demo/web/tcp/http__10.244.1.5/8080 { type ipv4_addr ; flags dynamic,timeout ; timeout 10800s ; }
        add set ip kube-proxy affinity-22EEGIMG-demo/web/tcp/http__10.244.2.7/8080 { type ipv4_addr ; flags dynamic,timeout ; timeout 10800s ; }
        add rule ip kube-proxy endpoint-6UVIXZI4-demo/web/tcp/http__10.244.1.5/8080 ip saddr 10.244.1.5 jump mark-for-masquerade
        add rule ip kube-proxy endpoint-6UVIXZI4-demo/web/tcp/http__10.244.1.5/8080 update @affinity-6UVIXZI4-demo/web/tcp/http__10.244.1.5/8080 { ip saddr }
        add rule ip kube-proxy endpoint-6UVIXZI4-demo/web/tcp/http__10.244.1.5/8080 meta l4proto tcp dnat to 10.244.1.5:8080
        add rule ip kube-proxy endpoint-22EEGIMG-demo/web/tcp/http__10.244.2.7/8080 ip saddr 10.244.2.7 jump mark-for-masquerade
        add rule ip kube-proxy endpoint-22EEGIMG-demo/web/tcp/http__10.244.2.7/8080 update @affinity-22EEGIMG-demo/web/tcp/http__10.244.2.7/8080 { ip saddr }
        add rule ip kube-proxy endpoint-22EEGIMG-demo/web/tcp/http__10.244.2.7/8080 meta l4proto tcp dnat to 10.244.2.7:8080
        add rule ip kube-proxy service-AXK6CI2C-demo/web/tcp/http ip daddr 10.96.12.34 tcp dport 80 ip saddr != 10.244.0.0/16 jump mark-for-masquerade
        add rule ip kube-proxy service-AXK6CI2C-demo/web/tcp/http ip saddr @affinity-6UVIXZI4-demo/web/tcp/http__10.244.1.5/8080 goto endpoint-6UVIXZI4-demo/web/tcp/http__10.244.1.5/8080
        add rule ip kube-proxy service-AXK6CI2C-demo/web/tcp/http ip saddr @affinity-22EEGIMG-demo/web/tcp/http__10.244.2.7/8080 goto endpoint-22EEGIMG-demo/web/tcp/http__10.244.2.7/8080
        add rule ip kube-proxy service-AXK6CI2C-demo/web/tcp/http numgen random mod 2 vmap { 0 : goto endpoint-6UVIXZI4-demo/web/tcp/http__10.244.1.5/8080 , 1 : goto endpoint-22EEGIMG-demo/web/tcp/http__10.244.2.7/8080 }
        add element ip kube-proxy cluster-ips { 10.96.12.34 }
        add element ip kube-proxy service-ips { 10.96.12.34 . tcp . 80 : goto service-AXK6CI2C-demo/web/tcp/http }
        """,
        "SyncResult[full=true, ruleCounts={kube-proxy=37}, noLocalEndpointsInternal=0, noLocalEndpointsExternal=0]");
  }

  @Test
  void terminatingEndpointsServeWhenNoneIsReady() throws Exception {
    assertServicePart(V4, new Model().put(svc(web, "10.96.12.34", 80), terminating("10.244.1.5", 8080, true), new Endpoint("10.244.2.7", 8080, false, false, false, true, Set.of())),
        """
        add element ip kube-proxy cluster-ips { 10.96.12.34 }
        add element ip kube-proxy single-endpoint-services { 10.96.12.34 . tcp . 80 : 10.244.1.5 . 8080 }
        add element ip kube-proxy hairpin-connections { 10.244.1.5 . 10.244.1.5 . tcp . 8080 }
        """,
        "SyncResult[full=true, ruleCounts={kube-proxy=27}, noLocalEndpointsInternal=0, noLocalEndpointsExternal=0]");
  }

  @Test
  void masqueradeAllMasqueradesEveryClusterIpConnection() throws Exception {
    ProxierSettings all = with(V4, true, V4.localDetector(), V4.nodePortAddresses());
    assertServicePart(all, twoEndpoints(),
        """
        add chain ip kube-proxy service-AXK6CI2C-demo/web/tcp/http
        flush chain ip kube-proxy service-AXK6CI2C-demo/web/tcp/http
        add map ip kube-proxy endpoint-ranges-tcp-0 { typeof numgen random mod 1 : ip daddr . tcp dport ; flags interval ; comment "endpoints of up to 64 tcp services, a key range each" ; }
        flush map ip kube-proxy endpoint-ranges-tcp-0
        add rule ip kube-proxy service-AXK6CI2C-demo/web/tcp/http ip daddr 10.96.12.34 tcp dport 80 jump mark-for-masquerade
        add rule ip kube-proxy service-AXK6CI2C-demo/web/tcp/http meta l4proto tcp dnat ip addr . port to numgen random mod 24504480 offset 0 map @endpoint-ranges-tcp-0
        add element ip kube-proxy cluster-ips { 10.96.12.34 }
        add element ip kube-proxy service-ips { 10.96.12.34 . tcp . 80 : goto service-AXK6CI2C-demo/web/tcp/http }
        add element ip kube-proxy endpoint-ranges-tcp-0 { 0-12252239 : 10.244.1.5 . 8080 , 12252240-24504479 : 10.244.2.7 . 8080 }
        add element ip kube-proxy hairpin-connections { 10.244.1.5 . 10.244.1.5 . tcp . 8080 , 10.244.2.7 . 10.244.2.7 . tcp . 8080 }
        """,
        "SyncResult[full=true, ruleCounts={kube-proxy=29}, noLocalEndpointsInternal=0, noLocalEndpointsExternal=0]");
    // The services with one endpoint and no chain: the same rule for all of them.
    FakeNftables fake = new FakeNftables(IpFamily.IPv4);
    proxier(all, fake, new CountingMetrics(), new TestClock())
        .sync(new Model().put(svc(web, "10.96.12.34", 80), ready("10.244.1.5", 8080, true)).state());
    assertEquals("ip daddr . meta l4proto . th dport @single-endpoint-services jump mark-for-masquerade",
        fake.rules("services").get(0));
    assertEquals(List.of("10.96.12.34 . tcp . 80 : 10.244.1.5 . 8080"), fake.elements("single-endpoint-services"));
  }

  private static Model twoEndpoints() {
    return new Model().put(svc(web, "10.96.12.34", 80), ready("10.244.1.5", 8080, true), ready("10.244.2.7", 8080, false));
  }

  @Test
  void bridgeInterfaceDetectorMatchesByName() throws Exception {
    assertServicePart(with(V4, false, new LocalTrafficDetector("BridgeInterface", "cbr0"), V4.nodePortAddresses()), new Model().put(svc(web, "10.96.12.34", 80).nodePort(30080).etpLocal(), ready("10.244.1.5", 8080, true)),
        """
        add chain ip kube-proxy service-AXK6CI2C-demo/web/tcp/http
        flush chain ip kube-proxy service-AXK6CI2C-demo/web/tcp/http
        add chain ip kube-proxy local-AXK6CI2C-demo/web/tcp/http
        flush chain ip kube-proxy local-AXK6CI2C-demo/web/tcp/http
        add chain ip kube-proxy external-AXK6CI2C-demo/web/tcp/http
        flush chain ip kube-proxy external-AXK6CI2C-demo/web/tcp/http
        add rule ip kube-proxy service-AXK6CI2C-demo/web/tcp/http ip daddr 10.96.12.34 tcp dport 80 iifname != "cbr0" jump mark-for-masquerade
        add rule ip kube-proxy service-AXK6CI2C-demo/web/tcp/http meta l4proto tcp dnat to 10.244.1.5:8080
        add rule ip kube-proxy local-AXK6CI2C-demo/web/tcp/http meta l4proto tcp dnat to 10.244.1.5:8080
        add rule ip kube-proxy external-AXK6CI2C-demo/web/tcp/http iifname "cbr0" goto service-AXK6CI2C-demo/web/tcp/http comment "short-circuit pod traffic"
        add rule ip kube-proxy external-AXK6CI2C-demo/web/tcp/http fib saddr type local jump mark-for-masquerade comment "masquerade local traffic"
        add rule ip kube-proxy external-AXK6CI2C-demo/web/tcp/http fib saddr type local goto service-AXK6CI2C-demo/web/tcp/http comment "short-circuit local traffic"
        add rule ip kube-proxy external-AXK6CI2C-demo/web/tcp/http goto local-AXK6CI2C-demo/web/tcp/http
        add element ip kube-proxy cluster-ips { 10.96.12.34 }
        add element ip kube-proxy service-ips { 10.96.12.34 . tcp . 80 : goto service-AXK6CI2C-demo/web/tcp/http }
        add element ip kube-proxy service-nodeports { tcp . 30080 : goto external-AXK6CI2C-demo/web/tcp/http }
        add element ip kube-proxy hairpin-connections { 10.244.1.5 . 10.244.1.5 . tcp . 8080 }
        """,
        "SyncResult[full=true, ruleCounts={kube-proxy=34}, noLocalEndpointsInternal=0, noLocalEndpointsExternal=0]");
  }

  @Test
  void interfacePrefixDetectorUsesWildcard() throws Exception {
    assertServicePart(with(V4, false, new LocalTrafficDetector("InterfaceNamePrefix", "veth"), V4.nodePortAddresses()), new Model().put(svc(web, "10.96.12.34", 80).nodePort(30080).etpLocal(), ready("10.244.1.5", 8080, true)),
        """
        add chain ip kube-proxy service-AXK6CI2C-demo/web/tcp/http
        flush chain ip kube-proxy service-AXK6CI2C-demo/web/tcp/http
        add chain ip kube-proxy local-AXK6CI2C-demo/web/tcp/http
        flush chain ip kube-proxy local-AXK6CI2C-demo/web/tcp/http
        add chain ip kube-proxy external-AXK6CI2C-demo/web/tcp/http
        flush chain ip kube-proxy external-AXK6CI2C-demo/web/tcp/http
        add rule ip kube-proxy service-AXK6CI2C-demo/web/tcp/http ip daddr 10.96.12.34 tcp dport 80 iifname != "veth*" jump mark-for-masquerade
        add rule ip kube-proxy service-AXK6CI2C-demo/web/tcp/http meta l4proto tcp dnat to 10.244.1.5:8080
        add rule ip kube-proxy local-AXK6CI2C-demo/web/tcp/http meta l4proto tcp dnat to 10.244.1.5:8080
        add rule ip kube-proxy external-AXK6CI2C-demo/web/tcp/http iifname "veth*" goto service-AXK6CI2C-demo/web/tcp/http comment "short-circuit pod traffic"
        add rule ip kube-proxy external-AXK6CI2C-demo/web/tcp/http fib saddr type local jump mark-for-masquerade comment "masquerade local traffic"
        add rule ip kube-proxy external-AXK6CI2C-demo/web/tcp/http fib saddr type local goto service-AXK6CI2C-demo/web/tcp/http comment "short-circuit local traffic"
        add rule ip kube-proxy external-AXK6CI2C-demo/web/tcp/http goto local-AXK6CI2C-demo/web/tcp/http
        add element ip kube-proxy cluster-ips { 10.96.12.34 }
        add element ip kube-proxy service-ips { 10.96.12.34 . tcp . 80 : goto service-AXK6CI2C-demo/web/tcp/http }
        add element ip kube-proxy service-nodeports { tcp . 30080 : goto external-AXK6CI2C-demo/web/tcp/http }
        add element ip kube-proxy hairpin-connections { 10.244.1.5 . 10.244.1.5 . tcp . 8080 }
        """,
        "SyncResult[full=true, ruleCounts={kube-proxy=34}, noLocalEndpointsInternal=0, noLocalEndpointsExternal=0]");
  }

  @Test
  void withoutDetectorOnlyLocalTrafficIsShortCircuited() throws Exception {
    assertServicePart(with(V4, false, LocalTrafficDetector.noop(), V4.nodePortAddresses()), new Model().put(svc(web, "10.96.12.34", 80).nodePort(30080).etpLocal(), ready("10.244.1.5", 8080, true)),
        """
        add chain ip kube-proxy service-AXK6CI2C-demo/web/tcp/http
        flush chain ip kube-proxy service-AXK6CI2C-demo/web/tcp/http
        add chain ip kube-proxy local-AXK6CI2C-demo/web/tcp/http
        flush chain ip kube-proxy local-AXK6CI2C-demo/web/tcp/http
        add chain ip kube-proxy external-AXK6CI2C-demo/web/tcp/http
        flush chain ip kube-proxy external-AXK6CI2C-demo/web/tcp/http
        add rule ip kube-proxy service-AXK6CI2C-demo/web/tcp/http meta l4proto tcp dnat to 10.244.1.5:8080
        add rule ip kube-proxy local-AXK6CI2C-demo/web/tcp/http meta l4proto tcp dnat to 10.244.1.5:8080
        add rule ip kube-proxy external-AXK6CI2C-demo/web/tcp/http fib saddr type local jump mark-for-masquerade comment "masquerade local traffic"
        add rule ip kube-proxy external-AXK6CI2C-demo/web/tcp/http fib saddr type local goto service-AXK6CI2C-demo/web/tcp/http comment "short-circuit local traffic"
        add rule ip kube-proxy external-AXK6CI2C-demo/web/tcp/http goto local-AXK6CI2C-demo/web/tcp/http
        add element ip kube-proxy cluster-ips { 10.96.12.34 }
        add element ip kube-proxy service-ips { 10.96.12.34 . tcp . 80 : goto service-AXK6CI2C-demo/web/tcp/http }
        add element ip kube-proxy service-nodeports { tcp . 30080 : goto external-AXK6CI2C-demo/web/tcp/http }
        add element ip kube-proxy hairpin-connections { 10.244.1.5 . 10.244.1.5 . tcp . 8080 }
        """,
        "SyncResult[full=true, ruleCounts={kube-proxy=31}, noLocalEndpointsInternal=0, noLocalEndpointsExternal=0]");
  }

  @Test
  void ipv6AffinityService() throws Exception {
    assertServicePart(V6, new Model().put(svc(web, "fd00:10:96::1", 80).nodePort(30080).affinity(60), ready("fd00:10:244::5", 8080, true)),
        """
        add chain ip6 kube-proxy endpoint-G55462AF-demo/web/tcp/http__fd00.10.244..5/8080
        flush chain ip6 kube-proxy endpoint-G55462AF-demo/web/tcp/http__fd00.10.244..5/8080
        add chain ip6 kube-proxy service-AXK6CI2C-demo/web/tcp/http
        flush chain ip6 kube-proxy service-AXK6CI2C-demo/web/tcp/http
        add chain ip6 kube-proxy external-AXK6CI2C-demo/web/tcp/http
        flush chain ip6 kube-proxy external-AXK6CI2C-demo/web/tcp/http
        add set ip6 kube-proxy affinity-G55462AF-demo/web/tcp/http__fd00.10.244..5/8080 { type ipv6_addr ; flags dynamic,timeout ; timeout 60s ; }
        add rule ip6 kube-proxy endpoint-G55462AF-demo/web/tcp/http__fd00.10.244..5/8080 ip6 saddr fd00:10:244::5 jump mark-for-masquerade
        add rule ip6 kube-proxy endpoint-G55462AF-demo/web/tcp/http__fd00.10.244..5/8080 update @affinity-G55462AF-demo/web/tcp/http__fd00.10.244..5/8080 { ip6 saddr }
        add rule ip6 kube-proxy endpoint-G55462AF-demo/web/tcp/http__fd00.10.244..5/8080 meta l4proto tcp dnat to [fd00:10:244::5]:8080
        add rule ip6 kube-proxy service-AXK6CI2C-demo/web/tcp/http ip6 daddr fd00:10:96::1 tcp dport 80 ip6 saddr != fd00:10:244::/64 jump mark-for-masquerade
        add rule ip6 kube-proxy service-AXK6CI2C-demo/web/tcp/http ip6 saddr @affinity-G55462AF-demo/web/tcp/http__fd00.10.244..5/8080 goto endpoint-G55462AF-demo/web/tcp/http__fd00.10.244..5/8080
        add rule ip6 kube-proxy service-AXK6CI2C-demo/web/tcp/http numgen random mod 1 vmap { 0 : goto endpoint-G55462AF-demo/web/tcp/http__fd00.10.244..5/8080 }
        add rule ip6 kube-proxy external-AXK6CI2C-demo/web/tcp/http jump mark-for-masquerade
        add rule ip6 kube-proxy external-AXK6CI2C-demo/web/tcp/http goto service-AXK6CI2C-demo/web/tcp/http
        add element ip6 kube-proxy cluster-ips { fd00:10:96::1 }
        add element ip6 kube-proxy service-ips { fd00:10:96::1 . tcp . 80 : goto service-AXK6CI2C-demo/web/tcp/http }
        add element ip6 kube-proxy service-nodeports { tcp . 30080 : goto external-AXK6CI2C-demo/web/tcp/http }
        """,
        "SyncResult[full=true, ruleCounts={kube-proxy=35}, noLocalEndpointsInternal=0, noLocalEndpointsExternal=0]");
  }

  @Test
  void ipv6ServiceUsesIp6DnatMap() throws Exception {
    assertServicePart(V6, new Model().put(svc(web, "fd00:10:96::1", 80), ready("fd00:10:244::5", 8080, true), ready("fd00:10:244::6", 8080, true)),
        """
        add chain ip6 kube-proxy service-AXK6CI2C-demo/web/tcp/http
        flush chain ip6 kube-proxy service-AXK6CI2C-demo/web/tcp/http
        add map ip6 kube-proxy endpoint-ranges-tcp-0 { typeof numgen random mod 1 : ip6 daddr . tcp dport ; flags interval ; comment "endpoints of up to 64 tcp services, a key range each" ; }
        flush map ip6 kube-proxy endpoint-ranges-tcp-0
        add rule ip6 kube-proxy service-AXK6CI2C-demo/web/tcp/http ip6 daddr fd00:10:96::1 tcp dport 80 ip6 saddr != fd00:10:244::/64 jump mark-for-masquerade
        add rule ip6 kube-proxy service-AXK6CI2C-demo/web/tcp/http meta l4proto tcp dnat ip6 addr . port to numgen random mod 24504480 offset 0 map @endpoint-ranges-tcp-0
        add element ip6 kube-proxy cluster-ips { fd00:10:96::1 }
        add element ip6 kube-proxy service-ips { fd00:10:96::1 . tcp . 80 : goto service-AXK6CI2C-demo/web/tcp/http }
        add element ip6 kube-proxy endpoint-ranges-tcp-0 { 0-12252239 : fd00:10:244::5 . 8080 , 12252240-24504479 : fd00:10:244::6 . 8080 }
        add element ip6 kube-proxy hairpin-connections { fd00:10:244::5 . fd00:10:244::5 . tcp . 8080 , fd00:10:244::6 . fd00:10:244::6 . tcp . 8080 }
        """,
        "SyncResult[full=true, ruleCounts={kube-proxy=29}, noLocalEndpointsInternal=0, noLocalEndpointsExternal=0]");
  }

  /** The running example of nftables.md §6 (LoadBalancer, ETP=Local, one source range), whole. */
  @Test
  void fullTransactionOfTheRunningExample() throws Exception {
    FakeNftables fake = new FakeNftables(IpFamily.IPv4);
    NftablesProxier p = proxier(V4, fake, new CountingMetrics(), new TestClock());
    Model m = new Model().put(svc(web, "10.96.12.34", 80).nodePort(30080).externalIPs("192.0.2.50")
        .loadBalancer("203.0.113.10").sourceRanges("198.51.100.0/24").etpLocal(),
        ready("10.244.1.5", 8080, true), ready("10.244.2.7", 8080, false));
    p.sync(m.state());
    String expected;
    try (var in = getClass().getResourceAsStream("/nftables/running-example-full.nft")) {
      expected = new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
    }
    assertEquals(expected, p.lastTransaction().render(IpFamily.IPv4));
  }

  @Test
  void serviceCidrsDropUnallocatedClusterIps() throws Exception {
    FakeNftables fake = new FakeNftables(IpFamily.IPv4);
    NftablesProxier p = proxier(V4, fake, new CountingMetrics(), new TestClock());
    Model m = new Model().put(svc(web, "10.96.12.34", 80), ready("10.244.1.5", 8080, true));
    m.serviceCIDRs = List.of("10.96.0.0/16", "10.97.0.0/16");
    p.sync(m.state());
    assertEquals(List.of(
        "ip daddr @cluster-ips reject comment \"Reject traffic to invalid ports of ClusterIPs\"",
        "ip daddr { 10.96.0.0/16 , 10.97.0.0/16 } drop comment \"Drop traffic to unallocated ClusterIPs\""),
        fake.rules("cluster-ips-check"));
    // A change of the ServiceCIDRs alone triggers a full sync that rewrites the chain.
    m.serviceCIDRs = List.of("10.96.0.0/16");
    assertTrue(p.sync(m.state()).full());
    assertEquals(List.of(
        "ip daddr @cluster-ips reject comment \"Reject traffic to invalid ports of ClusterIPs\"",
        "ip daddr { 10.96.0.0/16 } drop comment \"Drop traffic to unallocated ClusterIPs\""),
        fake.rules("cluster-ips-check"));
  }

  @Test
  void nodePortsOnEveryAddressUseFibAndNoNodePortSet() throws Exception {
    ProxierSettings all = with(V4, false, V4.localDetector(), List.of());
    FakeNftables fake = new FakeNftables(IpFamily.IPv4);
    NftablesProxier p = proxier(all, fake, new CountingMetrics(), new TestClock());
    p.sync(new Model().put(svc(web, "10.96.12.34", 80).nodePort(30080), ready("10.244.1.5", 8080, true)).state());
    String tx = p.lastTransaction().render(IpFamily.IPv4);
    assertTrue(tx.contains("add set ip kube-proxy nodeport-ips { type ipv4_addr ; comment \"IPs that accept NodePort traffic\" ; }\n"
        + "delete set ip kube-proxy nodeport-ips\n"), tx);
    assertEquals(List.of(
        "ip daddr . meta l4proto . th dport @single-endpoint-services ip saddr != 10.244.0.0/16 jump mark-for-masquerade",
        "meta l4proto tcp dnat ip addr . port to ip daddr . meta l4proto . th dport map @single-endpoint-services",
        "meta l4proto udp dnat ip addr . port to ip daddr . meta l4proto . th dport map @single-endpoint-services",
        "meta l4proto sctp dnat ip addr . port to ip daddr . meta l4proto . th dport map @single-endpoint-services",
        "ip daddr . meta l4proto . th dport vmap @service-ips",
        "fib daddr type local ip daddr != 127.0.0.0/8 meta l4proto . th dport vmap @service-nodeports"),
        fake.rules("services"));
    assertEquals(List.of("ip daddr != 127.0.0.0/8 meta l4proto . th dport vmap @no-endpoint-nodeports"),
        fake.rules("nodeport-endpoints-check"));
    assertEquals(null, fake.elements("nodeport-ips"));
  }

  @Test
  void nodePortCidrsSelectInterfaceAddressesButNeverLoopback() throws Exception {
    ProxierSettings cidr = with(V4, false, V4.localDetector(), List.of("192.168.200.0/24", "127.0.0.0/8"));
    FakeNftables fake = new FakeNftables(IpFamily.IPv4);
    NftablesProxier p = new NftablesProxier(cidr, new dev.kubeproxy.host.ProcessCommandRunner(), fake,
        new CountingMetrics(), new TestClock(), () -> List.of("127.0.0.1", "192.168.200.7", "10.0.0.1", "192.168.200.9"));
    p.sync(new Model().state());
    assertEquals(List.of("192.168.200.7", "192.168.200.9"), fake.elements("nodeport-ips"));
  }

  @Test
  void sourceRangeContainingTheNodeAlsoAllowsTheLoadBalancerIps() throws Exception {
    FakeNftables fake = new FakeNftables(IpFamily.IPv4);
    NftablesProxier p = proxier(V4, fake, new CountingMetrics(), new TestClock());
    p.sync(new Model().put(svc(web, "10.96.12.34", 80).loadBalancer("203.0.113.10", "203.0.113.11")
        .sourceRanges("198.51.100.0/24", "192.168.0.0/16"), ready("10.244.1.5", 8080, true)).state());
    assertEquals(List.of("ip saddr != { 198.51.100.0/24 , 192.168.0.0/16 , 203.0.113.10 , 203.0.113.11 } drop"),
        fake.rules(ChainNames.firewallChain(web)));
  }

  @Test
  void multiplePortsShareTheClusterIpElementAndUdpUsesItsProtocol() throws Exception {
    FakeNftables fake = new FakeNftables(IpFamily.IPv4);
    NftablesProxier p = proxier(V4, fake, new CountingMetrics(), new TestClock());
    ServicePortName dnsUdp = new ServicePortName(new dev.kubeproxy.model.NamespacedName("kube-system", "dns"), "dns", "UDP");
    ServicePortName dnsTcp = new ServicePortName(new dev.kubeproxy.model.NamespacedName("kube-system", "dns"), "dns-tcp", "TCP");
    Model m = new Model().put(svc(dnsUdp, "10.96.0.10", 53), ready("10.244.1.2", 53, true))
        .put(svc(dnsTcp, "10.96.0.10", 53), ready("10.244.1.2", 53, true));
    p.sync(m.state());
    assertEquals(List.of("10.96.0.10"), fake.elements("cluster-ips"));
    assertEquals(java.util.Set.of("10.96.0.10 . udp . 53 : 10.244.1.2 . 53", "10.96.0.10 . tcp . 53 : 10.244.1.2 . 53"),
        java.util.Set.copyOf(fake.elements("single-endpoint-services")));
    // Removing one port keeps the shared cluster IP element.
    m.remove(dnsTcp);
    p.sync(m.state());
    assertEquals(List.of("10.96.0.10"), fake.elements("cluster-ips"));
    m.remove(dnsUdp);
    p.sync(m.state());
    assertEquals(List.of(), fake.elements("cluster-ips"));
  }
}
