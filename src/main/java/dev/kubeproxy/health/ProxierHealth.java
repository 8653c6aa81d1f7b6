package dev.kubeproxy.health;

import dev.kubeproxy.messages.HealthUpdate;

import dev.kubeproxy.net.IpFamily;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumMap;
import java.util.Map;

/**
 * The proxier's health state (pkg/proxy/healthcheck/proxier_health.go ProxierHealthServer): per IP family the time of the last
 * successful sync and of the oldest queued-but-unapplied change, plus the node's eligibility.
 * Unhealthy means: some family that has synced at least once has a change queued for at least
 * the health timeout (2 × syncPeriod) without a successful sync since.
 */
public final class ProxierHealth {
  /** The verdict and the last-updated time that goes with it (null = Go's zero time). */
  public record Verdict(boolean healthy, Instant lastUpdated) {}

  /** One family's proxier: when it last synced, and whether it is late. */
  public record FamilyHealth(Instant lastUpdated, boolean healthy) {}

  /**
   * The whole picture (upstream's ProxyHealth since v1.33): healthy when no family is late, the
   * newest sync of any family (null = zero time), and each family that has synced at least once.
   */
  public record Health(boolean healthy, Instant lastUpdated, Instant now, Map<IpFamily, FamilyHealth> status) {
    /** The status keyed as upstream's JSON keys it ("IPv4", "IPv6"). */
    public Map<String, FamilyHealth> statusByName() {
      Map<String, FamilyHealth> out = new java.util.TreeMap<>();
      status.forEach((family, h) -> out.put(family.name(), h));
      return out;
    }
  }

  private final Duration healthTimeout;
  private final Clock clock;
  private final Map<IpFamily, Instant> lastUpdated = new EnumMap<>(IpFamily.class);
  private final Map<IpFamily, Instant> oldestPendingQueued = new EnumMap<>(IpFamily.class);
  private boolean nodeEligible = true;

  public ProxierHealth(Duration healthTimeout, Clock clock) {
    this.healthTimeout = healthTimeout;
    this.clock = clock;
  }

  public Duration healthTimeout() {
    return healthTimeout;
  }

  public Instant now() {
    return clock.instant();
  }

  /** Applies a message from the proxier; a missing time means "now". */
  public void apply(HealthUpdate update) {
    Instant at = update.time() != null ? update.time() : clock.instant();
    if (update.type() == HealthUpdate.Type.QUEUED) {
      queued(update.family(), at);
    } else {
      updated(update.family(), at);
    }
  }

  /** A change was queued; an older pending change keeps its (older) time. */
  public synchronized void queued(IpFamily family, Instant at) {
    oldestPendingQueued.putIfAbsent(family, at);
  }

  /** A sync finished successfully: nothing is pending any more for this family. */
  public synchronized void updated(IpFamily family, Instant at) {
    oldestPendingQueued.remove(family);
    lastUpdated.put(family, at);
  }

  public synchronized void setNodeEligible(boolean eligible) {
    nodeEligible = eligible;
  }

  public synchronized boolean nodeEligible() {
    return nodeEligible;
  }

  /** Every family's state (pkg/proxy/healthcheck/proxy_health.go, ProxyHealthServer.Health). */
  public synchronized Health health() {
    Instant now = clock.instant();
    Instant newest = null;
    boolean healthy = true;
    Map<IpFamily, FamilyHealth> status = new EnumMap<>(IpFamily.class);
    for (Map.Entry<IpFamily, Instant> e : lastUpdated.entrySet()) {
      Instant familyUpdated = e.getValue();
      if (newest == null || familyUpdated.isAfter(newest)) {
        newest = familyUpdated;
      }
      Instant pending = oldestPendingQueued.get(e.getKey());
      boolean late = pending != null && Duration.between(pending, now).compareTo(healthTimeout) >= 0;
      status.put(e.getKey(), new FamilyHealth(familyUpdated, !late));
      healthy &= !late;
    }
    return new Health(healthy, newest, now, status);
  }

  /**
   * The health verdict, ignoring node eligibility (what /livez and the service health checks use):
   * the first late family with its last update, else healthy with the newest update.
   */
  public synchronized Verdict verdict() {
    Health health = health();
    for (FamilyHealth family : health.status().values()) {
      if (!family.healthy()) {
        return new Verdict(false, family.lastUpdated());
      }
    }
    return new Verdict(true, health.lastUpdated());
  }
}
