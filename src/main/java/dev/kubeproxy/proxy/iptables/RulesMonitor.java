package dev.kubeproxy.proxy.iptables;

import static dev.kubeproxy.proxy.iptables.ChainNames.KUBE_EXTERNAL_SERVICES;
import static dev.kubeproxy.proxy.iptables.ChainNames.KUBE_FORWARD;
import static dev.kubeproxy.proxy.iptables.ChainNames.KUBE_MARK_MASQ;
import static dev.kubeproxy.proxy.iptables.ChainNames.KUBE_NODEPORTS;
import static dev.kubeproxy.proxy.iptables.ChainNames.KUBE_POSTROUTING;
import static dev.kubeproxy.proxy.iptables.ChainNames.KUBE_PROXY_CANARY;
import static dev.kubeproxy.proxy.iptables.ChainNames.KUBE_PROXY_FIREWALL;
import static dev.kubeproxy.proxy.iptables.ChainNames.KUBE_SERVICES;

import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Notices when something else changed kube-proxy's rules while the agent had nothing to sync:
 * upstream's canary monitor (pkg/util/iptables/monitor.go, Monitor, started by the iptables
 * proxier's NewProxier over mangle, nat and filter every syncPeriod), and beyond it the flushes
 * that leave the canary chains in place: {@code iptables -t nat -F} empties every chain but deletes
 * none. After each applied sync it records how many rules each top-level chain got (every sync,
 * partial ones included, rewrites those chains whole); a check then reads nat and filter once
 * each and compares: canaries, the jump rules from the built-in chains, and those rule counts.
 * Service chains left empty by a flush are caught through the top-level chains emptied with them.
 */
final class RulesMonitor {
  private static final Map<String, List<String>> TOP_LEVEL = Map.of(
      "filter", List.of(KUBE_SERVICES, KUBE_EXTERNAL_SERVICES, KUBE_FORWARD, KUBE_NODEPORTS, KUBE_PROXY_FIREWALL),
      "nat", List.of(KUBE_SERVICES, KUBE_NODEPORTS, KUBE_POSTROUTING, KUBE_MARK_MASQ));

  /** table → top-level chain → rules the last applied sync left there; null before the first sync. */
  private Map<String, Map<String, Integer>> expected;

  /** Records what a successful sync left in the kernel (its restore input). */
  void applied(String payload) {
    Map<String, Map<String, Integer>> counts = new HashMap<>();
    String table = null;
    int at = 0;
    int n = payload.length();
    while (at < n) {
      int end = payload.indexOf('\n', at);
      if (end < 0) {
        end = n;
      }
      char first = payload.charAt(at);
      if (first == '*') {
        table = payload.substring(at + 1, end);
        Map<String, Integer> chains = new HashMap<>();
        for (String chain : TOP_LEVEL.getOrDefault(table, List.of())) {
          chains.put(chain, 0);
        }
        counts.put(table, chains);
      } else if (first == '-' && payload.startsWith("-A KUBE-", at) && table != null) {
        int chainEnd = payload.indexOf(' ', at + 3);
        if (chainEnd > 0 && chainEnd < end) {
          counts.get(table).computeIfPresent(payload.substring(at + 3, chainEnd), (k, v) -> v + 1);
        }
      }
      at = end + 1;
    }
    counts.keySet().retainAll(TOP_LEVEL.keySet());
    expected = counts;
  }

  void reset() {
    expected = null;
  }

  boolean armed() {
    return expected != null;
  }

  /** What differs from the last applied sync, or null when nothing does. Three commands. */
  String check(IptablesTool tool) throws IOException {
    if (expected == null) {
      return null;
    }
    if (!tool.chainExists("mangle", KUBE_PROXY_CANARY)) {
      return "the mangle canary chain " + KUBE_PROXY_CANARY + " is gone";
    }
    for (String table : List.of("nat", "filter")) {
      String dump = "\n" + tool.save(table);
      if (!dump.contains("\n:" + KUBE_PROXY_CANARY + " ")) {
        return "the " + table + " canary chain " + KUBE_PROXY_CANARY + " is gone";
      }
      for (JumpRule jump : JumpRule.KUBE_PROXY) {
        if (jump.table().equals(table) && !dump.contains("\n" + jump.saveLine() + "\n")) {
          return "the " + table + " rule \"" + jump.saveLine() + "\" is gone";
        }
      }
      Map<String, Integer> want = expected.getOrDefault(table, Map.of());
      Map<String, Integer> have = countRules(dump, want);
      for (Map.Entry<String, Integer> e : want.entrySet()) {
        int found = have.getOrDefault(e.getKey(), -1);
        if (found != e.getValue()) {
          return "the " + table + " chain " + e.getKey() + (found < 0 ? " is gone" : " has " + found + " rules instead of "
              + e.getValue());
        }
      }
    }
    return null;
  }

  /** Rules per wanted chain in an iptables-save dump (-1 when the chain is not declared). */
  private static Map<String, Integer> countRules(String dump, Map<String, Integer> wanted) {
    Map<String, Integer> have = new HashMap<>();
    for (String chain : wanted.keySet()) {
      if (dump.contains("\n:" + chain + " ")) {
        have.put(chain, 0);
      }
    }
    int at = dump.indexOf("\n-A KUBE-");
    while (at >= 0) {
      int chainEnd = dump.indexOf(' ', at + 4);
      if (chainEnd > 0) {
        have.computeIfPresent(dump.substring(at + 4, chainEnd), (k, v) -> v + 1);
      }
      at = dump.indexOf("\n-A KUBE-", at + 1);
    }
    return have;
  }
}
