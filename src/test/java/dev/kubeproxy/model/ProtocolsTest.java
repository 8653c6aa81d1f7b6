package dev.kubeproxy.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import dev.kubeproxy.testutil.tier.Unit;
import org.junit.jupiter.api.Test;

@Unit
class ProtocolsTest {
  @Test
  void theApisProtocolsShareOneLowerCaseStringEach() {
    assertSame(Protocols.lowerCase("TCP"), Protocols.lowerCase(new String("TCP")));
    assertEquals("udp", Protocols.lowerCase("UDP"));
    assertEquals("sctp", Protocols.lowerCase("SCTP"));
    assertEquals("quic", Protocols.lowerCase("QUIC"), "anything else is lowered as it is");
  }
}
