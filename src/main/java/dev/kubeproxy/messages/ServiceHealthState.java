package dev.kubeproxy.messages;

import dev.kubeproxy.net.IpFamily;
import dev.kubeproxy.model.NamespacedName;
import java.util.Map;

/**
 * After each successful sync: which services need a health-check server on which port, and
 * how many local ready endpoints (distinct IPs) each has (pkg/proxy/healthcheck/service_health.go SyncEndpoints).
 *
 * @param family the proxier's IP family that sent it; with dual-stack each family's proxier sends
 *               its own view and the health-check servers combine them. Null means "the only
 *               proxier": the message replaces everything known.
 */
public record ServiceHealthState(
    Map<NamespacedName, Integer> healthCheckNodePorts,
    Map<NamespacedName, Integer> localReadyEndpoints,
    IpFamily family) {

  /** A single proxier's state (no family). */
  public ServiceHealthState(Map<NamespacedName, Integer> healthCheckNodePorts, Map<NamespacedName, Integer> localReadyEndpoints) {
    this(healthCheckNodePorts, localReadyEndpoints, null);
  }
}
