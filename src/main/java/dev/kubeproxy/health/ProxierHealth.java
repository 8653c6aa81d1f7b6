package dev.kubeproxy.health;

import dev.kubeproxy.proxy.IpFamily;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumMap;
import java.util.Map;

/**
 * The proxier's health state (observability.md §2.1–2.3): per IP family the time of the last
 * successful sync and of the oldest queued-but-unapplied change, plus the node's eligibility.
 * Unhealthy means: some family that has synced at least once has a change queued for at least
 * the health timeout (2 × syncPeriod) without a successful sync since.
 */
public final class ProxierHealth {
  /** The verdict and the last-updated time that goes with it (null = Go's zero time). */
  public record Verdict(boolean healthy, Instant lastUpdated) {}

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

  /** The health verdict, ignoring node eligibility (what /livez and the service health checks use). */
  public synchronized Verdict verdict() {
    Instant now = clock.instant();
    Instant newest = null;
    for (Map.Entry<IpFamily, Instant> e : lastUpdated.entrySet()) {
      Instant familyUpdated = e.getValue();
      if (newest == null || familyUpdated.isAfter(newest)) {
        newest = familyUpdated;
      }
      Instant pending = oldestPendingQueued.get(e.getKey());
      if (pending == null || Duration.between(pending, now).compareTo(healthTimeout) < 0) {
        continue; // fully synced, or a change is queued but not late yet
      }
      return new Verdict(false, familyUpdated);
    }
    return new Verdict(true, newest);
  }
}
