package dev.kubeproxy.explain;

import dev.kubeproxy.config.ProxyMode;

import dev.kubeproxy.model.ProgrammedRules;
import java.util.List;

/**
 * What /debug/services and {@code kube-proxy explain} tell: per service port and family, the
 * model, every endpoint with the set it falls in and why, the policy decided for the port, the
 * last sync that touched it, why it may be left out, what is programmed, and a packet's path.
 *
 * @param mode        the proxy mode whose rules are explained
 * @param dryRun      rules are printed, not applied
 * @param initialized whether the agent programs rules yet (it waits for the initial lists)
 * @param query       what was asked, in words
 * @param ports       the matching service ports
 * @param notes       what else bears on the query: invalid objects, orphan endpoints
 * @param closeNames  when nothing matched: Services with a similar name
 */
public record DebugReport(
    ProxyMode mode, boolean dryRun, boolean initialized, String query, List<Port> ports, List<String> notes,
    List<String> closeNames) {

  public DebugReport {
    ports = List.copyOf(ports);
    notes = List.copyOf(notes);
    closeNames = List.copyOf(closeNames);
  }

  /** True when no service port matched the query. */
  public boolean empty() {
    return ports.isEmpty();
  }

  /**
   * One service port of one family.
   *
   * @param servicePort          "namespace/name:port" (":port" left out for an unnamed port)
   * @param trafficDistribution  what the endpoints' hints ask for, as kube-proxy sees it (it reads
   *                             only the hints the EndpointSlice controller writes for the Service's
   *                             trafficDistribution)
   * @param topologyMode         the topology mode used: none, PreferSameNode or PreferSameZone
   * @param policy               the decisions of the port's plan, by name
   * @param problems             why the port or some of it is not programmed as the model says
   * @param programmed           what the kernel holds for it (or the dry run printed), null when not read
   * @param path                 the packet path asked for, or null
   * @param kernel               that packet traced through the rules programmed (or printed), or null
   */
  public record Port(
      String family, String servicePort, String protocol, String clusterIP, int port, int nodePort,
      List<String> externalIPs, List<String> loadBalancerIPs, List<String> loadBalancerSourceRanges,
      String externalTrafficPolicy, String internalTrafficPolicy, int healthCheckNodePort,
      String sessionAffinity, int affinityTimeoutSeconds, String hintsAnnotation, String trafficDistribution,
      String topologyMode, List<Policy> policy, List<EndpointEntry> endpoints, LastSync lastSync,
      List<String> problems, ProgrammedRules programmed, PacketPath path, KernelPath kernel) {}

  /** One decision of the port's plan: its name, its value and what it means here. */
  public record Policy(String name, boolean value, String meaning) {}

  /**
   * One endpoint of the port.
   *
   * @param sets   where the rules use it: "cluster", "local", "terminating fallback", "filtered by
   *               topology", or "unused"
   * @param reason why it falls there
   */
  public record EndpointEntry(
      String endpoint, boolean ready, boolean serving, boolean terminating, String node, String zone,
      boolean local, List<String> sets, String reason) {}

  /**
   * The last sync that programmed the port (a full sync programs every one).
   *
   * @param at     ISO-8601 time, null when no sync has run yet
   * @param kind   "full", "partial" or "unknown"
   * @param result "ok" or the failure
   */
  public record LastSync(String at, String kind, String result) {}
}
