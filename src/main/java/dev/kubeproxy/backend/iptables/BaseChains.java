package dev.kubeproxy.backend.iptables;

import dev.kubeproxy.backend.netfilter.IptablesTool;

import static dev.kubeproxy.backend.iptables.ChainNames.KUBE_PROXY_CANARY;

import dev.kubeproxy.logging.Log;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The rules outside kube-proxy's own chains that a full sync makes sure of: the jump rules from
 * the built-in chains and kubelet's chains (pkg/proxy/iptables/proxier.go syncProxyRules, the
 * iptablesJumpChains and iptablesKubeletJumpChains loops), and the KUBE-PROXY-CANARY chains whose
 * absence tells that something flushed the tables (pkg/util/iptables/monitor.go Monitor).
 * Not thread-safe: owned by one {@link IptablesProxier}.
 */
final class BaseChains {
  private static final List<String> CANARY_TABLES = List.of("mangle", "nat", "filter");

  /**
   * Adds what is missing. With the current iptables-save (tables), everything missing goes in one
   * small iptables-restore (-I inserts at the top, in upstream's order, so the result is the same as
   * upstream's one command per rule); without it (save failed), one command per item.
   */
  void ensure(IptablesTool t, Map<String, String> tables) throws IOException, IptablesTool.RestoreException {
    List<JumpRule> all = new ArrayList<>(JumpRule.KUBE_PROXY);
    all.addAll(JumpRule.KUBELET);
    if (tables == null) {
      Set<String> ensured = new HashSet<>();
      for (JumpRule jump : all) {
        if (ensured.add(jump.table() + "/" + jump.target())) {
          t.ensureChain(jump.table(), jump.target());
        }
        t.ensureRuleAtTop(jump.table(), jump.builtin(), jump.ruleArgs());
      }
      ensureCanariesOneByOne(t);
      return;
    }
    Map<String, StringBuilder> chainLines = new LinkedHashMap<>();
    Map<String, StringBuilder> ruleLines = new HashMap<>();
    Map<String, Set<String>> declared = new HashMap<>();
    for (JumpRule jump : all) {
      String dump = "\n" + tables.getOrDefault(jump.table(), "");
      Set<String> existing = IptablesTool.chainsOf(dump.substring(1));
      if (!existing.contains(jump.target())
          && declared.computeIfAbsent(jump.table(), k -> new HashSet<>()).add(jump.target())) {
        chainLines.computeIfAbsent(jump.table(), k -> new StringBuilder())
            .append(':').append(jump.target()).append(" - [0:0]\n");
      }
      if (!dump.contains("\n" + jump.saveLine() + "\n")) {
        chainLines.computeIfAbsent(jump.table(), k -> new StringBuilder());
        ruleLines.computeIfAbsent(jump.table(), k -> new StringBuilder())
            .append(jump.saveLine().replaceFirst("^-A ", "-I ")).append('\n');
      }
    }
    for (String table : CANARY_TABLES) {
      if (!IptablesTool.chainsOf(tables.getOrDefault(table, "")).contains(KUBE_PROXY_CANARY)) {
        chainLines.computeIfAbsent(table, k -> new StringBuilder())
            .append(':').append(KUBE_PROXY_CANARY).append(" - [0:0]\n");
      }
    }
    if (!chainLines.isEmpty()) {
      StringBuilder input = new StringBuilder();
      for (Map.Entry<String, StringBuilder> table : chainLines.entrySet()) {
        input.append('*').append(table.getKey()).append('\n').append(table.getValue());
        input.append(ruleLines.getOrDefault(table.getKey(), new StringBuilder())).append("COMMIT\n");
      }
      t.restore(input.toString(), null);
    }
  }

  private void ensureCanariesOneByOne(IptablesTool t) {
    try {
      for (String table : CANARY_TABLES) {
        t.ensureChain(table, KUBE_PROXY_CANARY);
      }
    } catch (IOException e) {
      Log.warn("Could not create the iptables canary chains (will retry)", "err", e);
    }
  }
}
