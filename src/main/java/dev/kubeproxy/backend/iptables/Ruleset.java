package dev.kubeproxy.backend.iptables;

import java.util.Map;
import java.util.Set;

/**
 * One generated iptables-restore input and what the sync needs to know about it.
 *
 * @param text               the input for iptables-restore --noflush (filter and nat tables), in
 *                           upstream's order: what the dry run prints and line numbers refer to
 * @param sent               the same lines in the order they are sent to the tool
 * @param filterRules        filter rule lines written
 * @param natRulesWritten    nat lines written in the rules part (including the -X lines)
 * @param natRulesSkipped    nat rule lines of unchanged services left out of a partial sync
 * @param deletedChains      stale chains flushed and deleted by this input
 * @param activeNatChains    every service chain that exists once this input is applied (the
 *                           generator's own, read-only: its next input changes it)
 * @param largeClusterMode   upstream's large-cluster mode (RulesetGenerator.largeClusterMode): comments
 *                           left out of SVC/SEP rules
 * @param lineOwners         which service port wrote which line
 * @param topLevelRules      by table, the rules written in each top-level chain (which every sync
 *                           rewrites whole): what the rules monitor expects to find
 */
public record Ruleset(
    RestoreText text,
    SentInput sent,
    int filterRules,
    int natRulesWritten,
    int natRulesSkipped,
    int deletedChains,
    Set<String> activeNatChains,
    int noLocalEndpointsInternal,
    int noLocalEndpointsExternal,
    boolean largeClusterMode,
    LineOwners lineOwners,
    Map<String, Map<String, Integer>> topLevelRules) {

  /** The input as one String (a copy: the dry run's output and tests; a sync hands {@link #text} to the tool). */
  public String payload() {
    return text.toString();
  }

  /** The service port whose rules hold this 1-based line of the payload, or null. */
  public dev.kubeproxy.model.ServicePortName serviceAtLine(int line) {
    return lineOwners.at(line);
  }

  /** Metric sync_proxy_rules_iptables_total{table="nat"}: rules in kube-proxy's nat chains. */
  public int natRulesTotal() {
    return natRulesWritten + natRulesSkipped - deletedChains;
  }

  /** Metric sync_proxy_rules_iptables_last{table="nat"}: nat rules written this sync. */
  public int natRulesLast() {
    return natRulesWritten - deletedChains;
  }
}
