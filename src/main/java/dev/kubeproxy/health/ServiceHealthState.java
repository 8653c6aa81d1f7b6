package dev.kubeproxy.health;

import dev.kubeproxy.proxy.NamespacedName;
import java.util.Map;

/**
 * After each successful sync: which services need a health-check server on which port, and
 * how many local ready endpoints (distinct IPs) each has (observability.md §3).
 */
public record ServiceHealthState(
    Map<NamespacedName, Integer> healthCheckNodePorts,
    Map<NamespacedName, Integer> localReadyEndpoints) {}
