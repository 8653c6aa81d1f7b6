package dev.kubeproxy.e2e;

import java.util.EnumSet;
import java.util.Set;

/** The real-traffic checks a scenario class can run (each a test method of ProxyScenarios). */
public enum Check {
  CLUSTER_IP_FROM_POD,
  CLUSTER_IP_FROM_NODE,
  CLUSTER_IP_UDP,
  NODE_PORT,
  EXTERNAL_IP,
  LB_SOURCE_RANGES,
  EXTERNAL_TRAFFIC_POLICY_LOCAL,
  INTERNAL_TRAFFIC_POLICY_LOCAL,
  SESSION_AFFINITY,
  NO_ENDPOINTS,
  HAIRPIN,
  REMOVED_ENDPOINT,
  SCALE_TO_ZERO_AND_BACK,
  DELETED_UDP_SERVICE,
  TOPOLOGY,
  NFACCT_COUNTERS,
  CLEANUP;

  public static Set<Check> all() {
    return EnumSet.allOf(Check.class);
  }

  /** The smaller set for the heavier variations: the basic paths, policies and cleanup. */
  public static Set<Check> reduced() {
    return EnumSet.of(CLUSTER_IP_FROM_POD, CLUSTER_IP_FROM_NODE, CLUSTER_IP_UDP, NODE_PORT,
        EXTERNAL_TRAFFIC_POLICY_LOCAL, NO_ENDPOINTS, HAIRPIN, REMOVED_ENDPOINT, CLEANUP);
  }
}
