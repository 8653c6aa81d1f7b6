package dev.kubeproxy.net;

import dev.kubeproxy.server.ServerLoop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.kubeproxy.testutil.tier.Unit;
import java.net.BindException;
import org.junit.jupiter.api.Test;

@Unit
class HostPortTest {
  @Test
  void parsesIpv4AndBracketedIpv6() {
    assertEquals(new HostPort("0.0.0.0", 10256), HostPort.parse("0.0.0.0:10256"));
    assertEquals(new HostPort("::", 10256), HostPort.parse("[::]:10256"));
    assertEquals(new HostPort("fd00::1", 0), HostPort.parse("[fd00::1]:0"));
    assertEquals("[::1]:10249", HostPort.parse("[::1]:10249").toString());
    assertEquals("127.0.0.1:4242", HostPort.parse("127.0.0.1:0").text(4242));
  }

  @Test
  void rejectsWhatIsNotIpPort() {
    assertThrows(IllegalArgumentException.class, () -> HostPort.parse(""));
    assertThrows(IllegalArgumentException.class, () -> HostPort.parse("10.0.0.1"));
    assertThrows(IllegalArgumentException.class, () -> HostPort.parse("::1:80"));
    assertThrows(IllegalArgumentException.class, () -> HostPort.parse("1.2.3.4:65536"));
    assertThrows(IllegalArgumentException.class, () -> HostPort.parse("1.2.3.4:http"));
  }

  @Test
  void listenErrorsReadLikeGos() {
    HostPort a = HostPort.parse("0.0.0.0:10256");
    assertEquals("listen tcp 0.0.0.0:10256: bind: address already in use",
        ServerLoop.listenError(a, new RuntimeException(new BindException("Address already in use"))));
    assertEquals("listen tcp 0.0.0.0:10256: bind: address already in use",
        ServerLoop.listenError(a, new RuntimeException("bind(..) failed: Address already in use")));
  }
}
