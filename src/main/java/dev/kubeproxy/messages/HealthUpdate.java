package dev.kubeproxy.messages;

import dev.kubeproxy.net.IpFamily;
import java.time.Instant;

/**
 * The proxier's health signal for one family (pkg/proxy/healthcheck/proxier_health.go QueuedUpdate, Updated): a sync was queued, or a
 * sync completed.
 */
public record HealthUpdate(IpFamily family, Type type, Instant time) {
  public enum Type { QUEUED, UPDATED }
}
