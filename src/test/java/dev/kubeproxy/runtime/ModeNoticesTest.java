package dev.kubeproxy.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kubeproxy.messages.EventRequest;
import dev.kubeproxy.logging.Log;
import dev.kubeproxy.testutil.tier.Unit;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

@Unit
class ModeNoticesTest {
  private final ByteArrayOutputStream buffer = new ByteArrayOutputStream();

  private String announce(String mode, List<EventRequest> events) {
    PrintStream ps = new PrintStream(buffer, true, StandardCharsets.UTF_8);
    Log.setOutputs(ps, ps);
    events.addAll(ModeNotices.announce(mode));
    return buffer.toString(StandardCharsets.UTF_8);
  }

  @AfterEach
  void restore() {
    Log.setOutputs(System.err, System.err);
  }

  @Test
  void ipvsIsAWarningAndAWarningEventOnTheNode() {
    List<EventRequest> events = new java.util.ArrayList<>();
    String log = announce("ipvs", events);
    assertTrue(log.startsWith("W"), log);
    assertTrue(log.contains("The ipvs proxier is now deprecated and may be removed in a future release. "
        + "Please use 'nftables' instead."), log);
    assertEquals(1, events.size());
    EventRequest e = events.get(0);
    assertEquals(List.of("Warning", "IPVSDeprecation", "ProxyModeCheck"), List.of(e.type(), e.reason(), e.action()));
    assertEquals(null, e.serviceName(), "regarding the Node");
    assertEquals(ModeNotices.IPVS_DEPRECATION, e.note());
  }

  @Test
  void aDefaultedModeWarnsOfTheComingDefault() {
    for (String mode : new String[] {null, ""}) {
      buffer.reset();
      List<EventRequest> events = new java.util.ArrayList<>();
      String log = announce(mode, events);
      assertTrue(log.startsWith("W") && log.contains(ModeNotices.DEFAULTED_MODE), log);
      assertEquals(List.of(), events);
    }
  }

  @Test
  void anExplicitIptablesOrNftablesModeIsQuiet() {
    for (String mode : List.of("iptables", "nftables")) {
      buffer.reset();
      List<EventRequest> events = new java.util.ArrayList<>();
      assertEquals("", announce(mode, events));
      assertEquals(List.of(), events);
    }
  }
}
