package dev.kubeproxy.backend.nftables;

import dev.kubeproxy.backend.nftables.objects.Chain;
import dev.kubeproxy.backend.nftables.objects.Element;
import dev.kubeproxy.backend.nftables.objects.Transaction;

import static dev.kubeproxy.backend.nftables.Fixtures.*;
import static dev.kubeproxy.testutil.ModelFixtures.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kubeproxy.logging.Log;
import dev.kubeproxy.logging.LogFormat;
import dev.kubeproxy.net.IpFamily;
import dev.kubeproxy.model.ProxyBackend;
import dev.kubeproxy.model.ServicePortName;
import dev.kubeproxy.testutil.CountingMetrics;
import dev.kubeproxy.testutil.MutableClock;
import dev.kubeproxy.testutil.tier.Unit;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** A refused transaction's text is logged at -v=4, at most once every 24 hours (kubernetes#128886). */
@Unit
class FailedTransactionLogTest {
  private final ByteArrayOutputStream buffer = new ByteArrayOutputStream();
  private final MutableClock clock = new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));

  private void verbosity(int v) {
    Log.configure(LogFormat.TEXT, v, List.of(), false);
    PrintStream ps = new PrintStream(buffer, true, StandardCharsets.UTF_8);
    Log.setOutputs(ps, ps);
  }

  private long logged() {
    return buffer.toString(StandardCharsets.UTF_8).lines().filter(l -> l.contains("Failed transaction")).count();
  }

  @AfterEach
  void reset() {
    Log.configure(LogFormat.TEXT, 0, List.of(), false);
    Log.setOutputs(System.err, System.err);
  }

  private static Transaction twoLines() {
    return new Transaction().add(Chain.regular("services"))
        .add(Element.ofSet("cluster-ips", "10.96.0.10"));
  }

  @Test
  void logsTheWholeTransactionOnceADay() {
    verbosity(4);
    FailedTransactionLog log = new FailedTransactionLog(clock);
    Transaction tx = twoLines();
    assertTrue(log.log(tx, IpFamily.IPv4, true));
    String out = buffer.toString(StandardCharsets.UTF_8);
    for (String line : tx.render(IpFamily.IPv4).strip().split("\n")) {
      assertTrue(out.contains(line), "the log holds every line of the transaction: " + line + "\n" + out);
    }
    clock.advance(Duration.ofHours(23).plusMinutes(59));
    assertFalse(log.log(tx, IpFamily.IPv4, true), "a second failure within 24 hours is not logged");
    clock.advance(Duration.ofMinutes(1));
    assertTrue(log.log(tx, IpFamily.IPv4, true), "24 hours later the next failure is logged");
    assertEquals(2, logged());
  }

  @Test
  void belowVerbosityFourNothingIsLoggedNorUsedUp() {
    verbosity(3);
    FailedTransactionLog log = new FailedTransactionLog(clock);
    assertFalse(log.log(twoLines(), IpFamily.IPv4, true));
    assertEquals(0, logged());
    verbosity(4);
    assertTrue(log.log(twoLines(), IpFamily.IPv4, true), "raising -v logs the next failure at once");
    assertEquals(1, logged());
  }

  @Test
  void theProxierLogsItsRefusedTransactionOnceWhileItKeepsFailing() throws Exception {
    verbosity(4);
    TestClock testClock = new TestClock();
    FakeNftables fake = new FakeNftables(IpFamily.IPv4);
    NftablesProxier proxier = proxier(settings(IpFamily.IPv4), fake, new CountingMetrics(), testClock);
    ServicePortName web = spn("demo", "web", "http");
    Model m = new Model().put(svc(web, "10.96.12.34", 80), ready("10.244.1.5", 8080, true));
    fake.failWhenLineContains("add table");
    for (int i = 0; i < 3; i++) {
      assertThrows(ProxyBackend.SyncException.class, () -> proxier.sync(m.state()));
      testClock.advance(Duration.ofMinutes(10));
    }
    assertEquals(1, logged());
    assertTrue(buffer.toString(StandardCharsets.UTF_8).contains("10.96.12.34"), "the service's rules are in the dump");
    testClock.advance(Duration.ofHours(24));
    assertThrows(ProxyBackend.SyncException.class, () -> proxier.sync(m.state()));
    assertEquals(2, logged());
  }
}
