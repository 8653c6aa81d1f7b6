package dev.kubeproxy.health;

import dev.kubeproxy.messages.HealthUpdate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kubeproxy.net.IpFamily;
import dev.kubeproxy.testutil.MutableClock;
import dev.kubeproxy.testutil.tier.Unit;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

@Unit
class ProxierHealthTest {
  private final Instant t0 = Instant.parse("2026-01-01T00:00:00Z");
  private final MutableClock clock = new MutableClock(t0);
  private final ProxierHealth health = new ProxierHealth(Duration.ofSeconds(60), clock);

  @Test
  void healthyWithZeroTimeBeforeAnyUpdate() {
    ProxierHealth.Verdict v = health.verdict();
    assertTrue(v.healthy());
    assertNull(v.lastUpdated());
    assertTrue(health.nodeEligible());
  }

  @Test
  void perFamilyHealthAsUpstreamsProxyHealth() {
    ProxierHealth.Health none = health.health();
    assertTrue(none.healthy());
    assertNull(none.lastUpdated());
    assertTrue(none.status().isEmpty());

    Instant v4 = t0;
    Instant v6 = t0.plusSeconds(30);
    health.updated(IpFamily.IPv4, v4);
    health.updated(IpFamily.IPv6, v6);
    health.queued(IpFamily.IPv4, t0.plusSeconds(31));
    health.queued(IpFamily.IPv6, t0.plusSeconds(31)); // IPv6 queued as long, but synced again below
    health.updated(IpFamily.IPv6, t0.plusSeconds(40));
    clock.advance(Duration.ofSeconds(91)); // IPv4's change has waited 60 s
    ProxierHealth.Health h = health.health();
    assertFalse(h.healthy());
    assertEquals(t0.plusSeconds(40), h.lastUpdated(), "the newest sync of any family, even when unhealthy");
    assertEquals(clock.instant(), h.now());
    assertEquals(new ProxierHealth.FamilyHealth(v4, false), h.status().get(IpFamily.IPv4));
    assertEquals(new ProxierHealth.FamilyHealth(t0.plusSeconds(40), true), h.status().get(IpFamily.IPv6));
    assertEquals(java.util.List.of("IPv4", "IPv6"), java.util.List.copyOf(h.statusByName().keySet()));
    assertFalse(health.verdict().healthy(), "the verdict agrees");
  }

  @Test
  void aFamilyThatOnlyQueuedIsNotConsidered() {
    health.queued(IpFamily.IPv4, t0);
    clock.advance(Duration.ofMinutes(10));
    assertTrue(health.verdict().healthy());
  }

  @Test
  void unhealthyOnlyOnceAQueuedChangeWaitedTheTimeout() {
    health.updated(IpFamily.IPv4, t0);
    clock.advance(Duration.ofSeconds(5));
    health.queued(IpFamily.IPv4, clock.instant());
    clock.advance(Duration.ofSeconds(59));
    assertEquals(new ProxierHealth.Verdict(true, t0), health.verdict());
    clock.advance(Duration.ofSeconds(1)); // exactly the timeout: no longer "less than"
    assertEquals(new ProxierHealth.Verdict(false, t0), health.verdict());
    Instant synced = clock.instant();
    health.updated(IpFamily.IPv4, synced);
    assertEquals(new ProxierHealth.Verdict(true, synced), health.verdict());
  }

  @Test
  void theOldestQueuedTimeIsKept() {
    health.updated(IpFamily.IPv4, t0);
    health.queued(IpFamily.IPv4, t0);
    clock.advance(Duration.ofSeconds(30));
    health.queued(IpFamily.IPv4, clock.instant());
    clock.advance(Duration.ofSeconds(30));
    assertFalse(health.verdict().healthy());
  }

  @Test
  void dualStackReportsTheNewestUpdateOrTheFailingFamily() {
    Instant v4 = t0;
    Instant v6 = t0.plusSeconds(10);
    health.updated(IpFamily.IPv4, v4);
    health.updated(IpFamily.IPv6, v6);
    clock.advance(Duration.ofSeconds(20));
    assertEquals(new ProxierHealth.Verdict(true, v6), health.verdict());
    health.queued(IpFamily.IPv4, clock.instant());
    clock.advance(Duration.ofSeconds(61));
    assertEquals(new ProxierHealth.Verdict(false, v4), health.verdict());
  }

  @Test
  void nodeEligibilityIsSeparateFromTheVerdict() {
    health.setNodeEligible(false);
    assertFalse(health.nodeEligible());
    assertTrue(health.verdict().healthy());
  }

  @Test
  void messagesApply() {
    health.apply(new HealthUpdate(IpFamily.IPv6, HealthUpdate.Type.UPDATED, t0));
    health.apply(new HealthUpdate(IpFamily.IPv6, HealthUpdate.Type.QUEUED, t0));
    clock.advance(Duration.ofSeconds(60));
    assertEquals(new ProxierHealth.Verdict(false, t0), health.verdict());
  }
}
