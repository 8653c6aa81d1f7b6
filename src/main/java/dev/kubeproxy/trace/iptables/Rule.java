package dev.kubeproxy.trace.iptables;

import java.util.List;
import java.util.Map;

/**
 * One parsed rule of a chain.
 *
 * @param table the table it is in
 * @param chain the chain it is in
 * @param text the rule as written ("-A CHAIN ..."), for the trace
 * @param conditions all must hold for the rule to match
 * @param target the -j (or -g) target, "" for a rule that only counts
 * @param targetOptions the target's options (e.g. "--to-destination" to "10.0.0.1:80"; a flag maps to "")
 * @param random the rule matches only for some packets (-m statistic): the kernel's choice, so both ways are
 *     followed
 * @param goTo -g rather than -j: a RETURN from the target returns past this chain
 * @param unsupported why the tracer cannot evaluate the rule (a match it does not know), or "" when it can; such
 *     a rule never matches
 */
record Rule(String table, String chain, String text, List<Condition> conditions, String target,
    Map<String, String> targetOptions, boolean random, boolean goTo, String unsupported) {

  Rule {
    conditions = List.copyOf(conditions);
    targetOptions = Map.copyOf(targetOptions);
  }

  /** Whether every match holds for the packet (a random rule: whether it can match). */
  boolean matches(PacketState packet) {
    if (!unsupported.isEmpty()) {
      return false;
    }
    for (Condition condition : conditions) {
      if (!condition.test(packet)) {
        return false;
      }
    }
    return true;
  }
}
