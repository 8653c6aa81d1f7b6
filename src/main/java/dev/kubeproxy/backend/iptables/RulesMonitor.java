package dev.kubeproxy.backend.iptables;

import dev.kubeproxy.backend.netfilter.IptablesTool;

import static dev.kubeproxy.backend.iptables.ChainNames.KUBE_EXTERNAL_SERVICES;
import static dev.kubeproxy.backend.iptables.ChainNames.KUBE_FORWARD;
import static dev.kubeproxy.backend.iptables.ChainNames.KUBE_MARK_MASQ;
import static dev.kubeproxy.backend.iptables.ChainNames.KUBE_NODEPORTS;
import static dev.kubeproxy.backend.iptables.ChainNames.KUBE_POSTROUTING;
import static dev.kubeproxy.backend.iptables.ChainNames.KUBE_PROXY_CANARY;
import static dev.kubeproxy.backend.iptables.ChainNames.KUBE_PROXY_FIREWALL;
import static dev.kubeproxy.backend.iptables.ChainNames.KUBE_SERVICES;

import java.io.IOException;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

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

  /**
   * Records what a successful sync left in the kernel (its restore input). Runs before the sync
   * counts as done: a 10,000-Service input has 380,000 rule lines, so no string is made per line.
   */
  void applied(RestoreText payload) {
    Map<String, Map<String, Integer>> counts = new HashMap<>();
    String table = null;
    List<String> chains = List.of();
    int[] rules = new int[0];
    int at = 0;
    int n = payload.length();
    while (at < n) {
      int end = payload.indexOf('\n', at);
      if (end < 0) {
        end = n;
      }
      char first = payload.charAt(at);
      if (first == '*') {
        record(counts, table, chains, rules);
        table = payload.substring(at + 1, end);
        chains = TOP_LEVEL.getOrDefault(table, List.of());
        rules = new int[chains.size()];
      } else if (first == '-' && payload.startsWith("-A KUBE-", at)) {
        for (int c = 0; c < rules.length; c++) {
          String chain = chains.get(c);
          int nameEnd = at + 3 + chain.length();
          if (nameEnd < end && payload.charAt(nameEnd) == ' ' && payload.startsWith(chain, at + 3)) {
            rules[c]++;
            break;
          }
        }
      }
      at = end + 1;
    }
    record(counts, table, chains, rules);
    expected = counts;
  }

  /** One top-level table's rule counts, by chain. */
  private static void record(Map<String, Map<String, Integer>> counts, String table, List<String> chains, int[] rules) {
    if (table != null && TOP_LEVEL.containsKey(table)) {
      Map<String, Integer> byChain = new HashMap<>();
      for (int c = 0; c < rules.length; c++) {
        byChain.put(chains.get(c), rules[c]);
      }
      counts.put(table, byChain);
    }
  }

  void reset() {
    expected = null;
  }

  boolean armed() {
    return expected != null;
  }

  /**
   * What differs from the last applied sync, or null when nothing does. Three commands; the two
   * dumps are read line by line, never held whole: on large clusters each is tens of megabytes.
   */
  String check(IptablesTool tool) throws IOException {
    if (expected == null) {
      return null;
    }
    if (!tool.chainExists("mangle", KUBE_PROXY_CANARY)) {
      return "the mangle canary chain " + KUBE_PROXY_CANARY + " is gone";
    }
    for (String table : List.of("nat", "filter")) {
      Map<String, Integer> want = expected.getOrDefault(table, Map.of());
      DumpScan scan = new DumpScan(table, want);
      tool.saveLines(table, scan::line);
      if (!scan.canary) {
        return "the " + table + " canary chain " + KUBE_PROXY_CANARY + " is gone";
      }
      for (JumpRule jump : JumpRule.KUBE_PROXY) {
        if (jump.table().equals(table) && !scan.jumpsSeen.contains(jump.saveLine())) {
          return "the " + table + " rule \"" + jump.saveLine() + "\" is gone";
        }
      }
      for (Map.Entry<String, Integer> e : want.entrySet()) {
        int found = scan.declared.contains(e.getKey()) ? scan.rules.getOrDefault(e.getKey(), 0) : -1;
        if (found != e.getValue()) {
          return "the " + table + " chain " + e.getKey() + (found < 0 ? " is gone" : " has " + found + " rules instead of "
              + e.getValue());
        }
      }
    }
    return null;
  }

  /** What one table's iptables-save lines hold of what the check looks for. */
  private static final class DumpScan {
    private final String canaryLine = ":" + KUBE_PROXY_CANARY + " ";
    private final Set<String> jumps = new HashSet<>();
    private final Map<String, Integer> wanted;
    final Set<String> jumpsSeen = new HashSet<>();
    final Set<String> declared = new HashSet<>();
    final Map<String, Integer> rules = new HashMap<>();
    boolean canary;

    DumpScan(String table, Map<String, Integer> wanted) {
      this.wanted = wanted;
      for (JumpRule jump : JumpRule.KUBE_PROXY) {
        if (jump.table().equals(table)) {
          jumps.add(jump.saveLine());
        }
      }
    }

    void line(String line) {
      if (line.startsWith(":")) {
        canary |= line.startsWith(canaryLine);
        int end = line.indexOf(' ');
        if (end > 1 && wanted.containsKey(line.substring(1, end))) {
          declared.add(line.substring(1, end));
        }
      } else if (line.startsWith("-A KUBE-")) {
        int chainEnd = line.indexOf(' ', 3);
        if (chainEnd > 0) {
          String chain = line.substring(3, chainEnd);
          if (wanted.containsKey(chain)) {
            rules.merge(chain, 1, Integer::sum);
          }
        }
      }
      if (jumps.contains(line)) {
        jumpsSeen.add(line);
      }
    }
  }
}
