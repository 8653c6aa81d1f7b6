package dev.kubeproxy.messages;

import dev.kubeproxy.config.ProxyMode;

import dev.kubeproxy.model.EndpointCategorizer;

import java.util.List;

/**
 * The proxier's answer on {@link dev.kubeproxy.messages.EventBusAddresses#DEBUG_SERVICES}: what /debug/services
 * explains, as immutable values (the metrics server reads nothing else of the proxier).
 *
 * @param mode        the configured proxy mode
 * @param dryRun      rules are printed, not applied
 * @param initialized the initial lists have arrived and rules are being programmed
 * @param gates       the feature gates that decide topology
 * @param families    one entry per family the proxier runs, primary first
 * @param invalid     Services and EndpointSlices left out because an API server would reject them
 */
public record ProxierSnapshot(
    ProxyMode mode, boolean dryRun, boolean initialized, EndpointCategorizer.TopologyGates gates,
    List<FamilySnapshot> families, List<InvalidObjects.Invalid> invalid) {

  public ProxierSnapshot {
    families = List.copyOf(families);
    invalid = List.copyOf(invalid);
  }
}
