package dev.kubeproxy.backend.ipvs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kubeproxy.guest.Guest;
import dev.kubeproxy.host.CommandRunner;
import dev.kubeproxy.testutil.tier.InGuest;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The IPVS primitives against a kernel with IP_VS (Debian's, in the QEMU guest): the generic
 * netlink client (add, update, delete and list virtual and real servers, timeouts, flush) as
 * ipvsadm then shows the table; the dummy interface's addresses; ipsets created and filled through
 * "ipset restore"; graceful termination of a real server that still carries a connection. One boot
 * (IpvsPrimitivesGuestMain runs every step and prints the kernel's state).
 */
@InGuest
class IpvsPrimitivesGuestIT {
  @Test
  void primitivesProgramTheKernelAsIpvsadmIpAndIpsetShow() throws Exception {
    Guest.assumeAvailable();
    CommandRunner.Result r = GuestRun.java(IpvsPrimitivesGuestMain.class);
    assertEquals(0, r.exitCode(), r.toString());
    check(GuestRun.sections(r.stdout()));
  }

  /** What the guest printed, each section's trailing blanks (ipvsadm pads its columns) removed. */
  static void check(Map<String, String> s) {

    assertEquals("""
        IP Virtual Server version 1.2.1 (size=4096)
        Prot LocalAddress:Port Scheduler Flags
          -> RemoteAddress:Port           Forward Weight ActiveConn InActConn
        TCP  10.96.0.10:80 rr
          -> 10.0.0.2:8080                Masq    1      0          0
          -> 10.0.0.3:8080                Masq    1      0          0
        UDP  [fd00::10]:53 wrr persistent 10800
          -> [fd00:1::2]:5353             Masq    1      0          0
        """, s.get("after add"));
    assertEquals("""
        IP Virtual Server version 1.2.1 (size=4096)
        Prot LocalAddress:Port Scheduler Flags
          -> RemoteAddress:Port           Forward Weight ActiveConn InActConn
        TCP  10.96.0.10:80 mh (mh-port)
          -> 10.0.0.3:8080                Masq    5      0          0
        UDP  [fd00::10]:53 wrr persistent 10800
          -> [fd00:1::2]:5353             Masq    1      0          0
        Timeout (tcp tcpfin udp): 900 120 300
        """, s.get("after update"));
    assertEquals("""
        10.96.0.10:80/TCP mh flags=16 timeout=0
          -> 10.0.0.3:8080 weight=5 active=0 inactive=0
        [fd00::10]:53/UDP wrr flags=1 timeout=10800
          -> [fd00:1::2]:5353 weight=1 active=0 inactive=0
        """, s.get("client reading"));
    assertTrue(s.get("after delete").contains("TCP  10.96.0.10:80 mh") && !s.get("after delete").contains("fd00::10"),
        s.get("after delete"));
    assertTrue(s.get("after flush").endsWith("InActConn\n"), s.get("after flush"));

    assertEquals("10.96.0.10\nfd00::10\nother addresses hold 10.96.0.10: false\n", s.get("dummy bound"));
    assertEquals("fd00::10\n", s.get("dummy after unbind"));
    assertEquals("exists: false", s.get("dummy deleted").trim());

    assertTrue(s.get("ipset version").endsWith("at least 6.0: true\n"), s.get("ipset version"));
    String sets = s.get("ipsets");
    assertTrue(sets.contains("KUBE-CLUSTER-IP: 10.96.0.10,tcp:80\n"), sets);
    assertTrue(sets.contains("KUBE-6-CLUSTER-IP: fd00::10,udp:53\n"), sets);
    assertTrue(sets.contains("KUBE-LOOP-BACK: 10.0.0.2,tcp:8080,10.0.0.2\n"), sets);
    assertTrue(sets.contains("KUBE-LOAD-BALANCER-SOURCE-CIDR: 192.0.2.1,tcp:80,10.0.0.0/8\n"), sets);
    assertTrue(sets.contains("KUBE-IPVS-IPS: 10.96.0.10\n"), sets);
    assertTrue(sets.contains("KUBE-NODE-PORT-TCP:\n"), sets); // its entry was deleted
    assertTrue(sets.contains("KUBE-6-LOAD-BALANCER-SOURCE-CID:\n"), sets); // 31 characters at most
    assertEquals(34, sets.split("\n").length, sets);
    assertEquals("", s.get("ipsets after destroy"));

    // The TCP real server with a connection drains at weight 0; the idle one and the UDP one are gone.
    String draining = s.get("draining");
    assertTrue(draining.startsWith("active connections before: 1\n"), draining);
    assertTrue(draining.contains("  -> 10.0.0.2:8080                Masq    0      1"), draining);
    assertTrue(!draining.contains("10.0.0.3:8080") && !draining.contains("10.0.0.2:5353"), draining);
    assertTrue(draining.endsWith("waiting: [10.96.0.20:80/TCP/10.0.0.2:8080]\n"), draining);
    assertTrue(!s.get("moved out").contains("10.0.0.2:8080") && s.get("moved out").endsWith("waiting: []\n"),
        s.get("moved out"));
  }
}
