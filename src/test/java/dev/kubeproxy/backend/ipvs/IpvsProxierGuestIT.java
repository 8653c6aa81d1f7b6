package dev.kubeproxy.backend.ipvs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kubeproxy.guest.Guest;
import dev.kubeproxy.host.CommandRunner;
import dev.kubeproxy.testutil.tier.InGuest;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Real traffic through the ipvs proxier of both families under Debian's kernel (the QEMU guest),
 * one boot: ClusterIP from the node and from a pod, hairpin, NodePort from outside (masqueraded),
 * session affinity, externalTrafficPolicy Local keeping the client's address, no endpoints, IPv6,
 * an endpoint removed while a connection is open (drains at weight 0), and cleanup.
 */
@InGuest
class IpvsProxierGuestIT {
  @Test
  void servicesCarryTrafficThroughIpvs() throws Exception {
    Guest.assumeAvailable();
    CommandRunner.Result r = GuestRun.java(IpvsProxierGuestMain.class);
    System.out.println(r.stdout()); // the guest's report, kept in the failsafe output file
    assertEquals(0, r.exitCode(), r.toString());
    check(GuestRun.sections(r.stdout()));
  }

  static void check(Map<String, String> s) {
    String fromNode = s.get("clusterIP from node");
    assertTrue(fromNode.contains("pod1 ") && fromNode.contains("pod2 ") && !fromNode.contains("error"), fromNode);
    // a pod's own address is kept (ClusterCIDR detection)
    assertEquals("pod1 [::ffff:10.244.1.7] x3\npod2 [::ffff:10.244.1.7] x3\n", s.get("clusterIP from pod3"));
    assertTrue(s.get("hairpin pod1 to itself").startsWith("pod1 "), s.get("hairpin pod1 to itself"));
    // from outside through a NodePort: masqueraded to the node's address towards the pods
    assertEquals("pod1 [::ffff:10.244.1.1] x2\npod2 [::ffff:10.244.1.1] x2\n", s.get("nodePort from outside"));
    String sticky = s.get("sticky");
    assertTrue(sticky.endsWith(" x6\n") && sticky.split("\n").length == 1, sticky);
    // externalTrafficPolicy Local: only the local pod, and it sees the client's own address
    assertEquals("pod1 [::ffff:192.168.0.100] x3\n", s.get("eTP Local nodePort from outside"));
    assertEquals("exit 7\n", s.get("no endpoints")); // refused: no real server
    assertEquals("pod1 [fd00:244::1] x4\n", s.get("ipv6 clusterIP from node"));
    String afterLeave = s.get("after pod2 left web");
    // its earlier requests' connections are still in IPVS's table (inactive): it drains at weight 0 too
    assertTrue(afterLeave.contains("  -> 10.244.1.6:8080              Masq    0      0"), afterLeave);
    assertTrue(afterLeave.contains("  -> 10.244.1.6:9000              Masq    0      1"), afterLeave); // draining
    assertTrue(s.get("web after pod2 left").startsWith("pod1 ") && s.get("web after pod2 left").endsWith(" x4\n"),
        s.get("web after pod2 left"));
    assertEquals("virtual servers: 1 ()\nkube-ipvs0: false\nsets:\nipvs chains: []", s.get("after cleanup").strip());
  }
}
