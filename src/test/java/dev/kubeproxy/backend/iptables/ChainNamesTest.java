package dev.kubeproxy.backend.iptables;

import static dev.kubeproxy.testutil.ModelFixtures.spn;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kubeproxy.testutil.tier.Unit;
import org.junit.jupiter.api.Test;

/** The hashes against the known values of iptables.md §1 and §3 (upstream's test fixtures). */
@Unit
class ChainNamesTest {
  private final ChainNames names = new ChainNames();

  @Test
  void serviceHashesMatchUpstream() {
    assertEquals("XPGD46QRK7WJZT7O", names.serviceHash(spn("ns1", "svc1", "p80", "TCP")));
    assertEquals("GNZBNJ2PO5MGZ6GT", names.serviceHash(spn("ns2", "svc2", "p80", "TCP")));
    assertEquals("XRY76EGRC3BSCIIJ", names.serviceHash(spn("demo", "web", "http", "TCP")));
  }

  @Test
  void endpointChainsMatchUpstream() {
    assertEquals("KUBE-SEP-SXIVWICOYRO3J4NJ", names.endpointChain("ns1/svc1:p80", "tcp", "10.180.0.1:80"));
    assertEquals("KUBE-SEP-NW5VICAF3Z2QABHQ", names.endpointChain("demo/web:http", "tcp", "10.244.1.5:8080"));
    assertEquals("KUBE-SEP-JPICTQTYOLMYNIJ7", names.endpointChain("demo/web:http", "tcp", "10.244.2.7:8080"));
  }

  @Test
  void protocolIsPartOfTheHash() {
    String tcp = names.serviceHash(spn("demo", "dns", "dns", "TCP"));
    String udp = names.serviceHash(spn("demo", "dns", "dns", "UDP"));
    assertFalse(tcp.equals(udp));
    assertEquals(16, tcp.length());
  }

  @Test
  void ownChainTest() {
    assertTrue(ChainNames.isServiceChain("KUBE-SVC-XPGD46QRK7WJZT7O"));
    assertTrue(ChainNames.isServiceChain("KUBE-SVL-XPGD46QRK7WJZT7O"));
    assertTrue(ChainNames.isServiceChain("KUBE-EXT-XPGD46QRK7WJZT7O"));
    assertTrue(ChainNames.isServiceChain("KUBE-FW-XPGD46QRK7WJZT7O"));
    assertTrue(ChainNames.isServiceChain("KUBE-SEP-SXIVWICOYRO3J4NJ"));
    assertFalse(ChainNames.isServiceChain("KUBE-SERVICES"));
    assertFalse(ChainNames.isServiceChain("KUBE-MARK-MASQ"));
    assertFalse(ChainNames.isServiceChain("OTHER-SVC-X"));
  }
}
