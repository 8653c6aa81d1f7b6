package dev.kubeproxy.backend.iptables;

import dev.kubeproxy.backend.netfilter.IptablesTool;

import static dev.kubeproxy.backend.iptables.ChainNames.KUBE_PROXY_CANARY;

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
 * none. After each applied sync it records how many rules the generator wrote in each top-level
 * chain (every sync, partial ones included, rewrites those chains whole); a check then reads nat and filter once
 * each and compares: canaries, the jump rules from the built-in chains, and those rule counts.
 * Service chains left empty by a flush are caught through the top-level chains emptied with them.
 * The nat dump also tells which service chains are there that the agent did not write (stale ones
 * of another writer or an earlier process), for the next sync to delete: in large clusters this
 * read is the stale-chain scan upstream makes once per syncPeriod inside a sync.
 */
final class RulesMonitor {
  private static final Map<String, List<String>> TOP_LEVEL =
      Map.of("filter", ChainNames.FILTER_TOP_LEVEL, "nat", ChainNames.NAT_TOP_LEVEL);

  /** table → top-level chain → rules the last applied sync left there; null before the first sync. */
  private Map<String, Map<String, Integer>> expected;
  /** Service chains the last check found in nat that the agent did not write. */
  private Set<String> unknownChains = Set.of();

  /**
   * Records what a successful sync left in the kernel: the generator's count of the rules it wrote
   * in each top-level chain, by table (the restore input is not read again).
   */
  void applied(Map<String, Map<String, Integer>> topLevelRules) {
    Map<String, Map<String, Integer>> counts = new HashMap<>();
    for (Map.Entry<String, List<String>> table : TOP_LEVEL.entrySet()) {
      Map<String, Integer> written = topLevelRules.getOrDefault(table.getKey(), Map.of());
      Map<String, Integer> byChain = new HashMap<>();
      for (String chain : table.getValue()) {
        byChain.put(chain, written.getOrDefault(chain, 0));
      }
      counts.put(table.getKey(), byChain);
    }
    expected = counts;
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
   *
   * @param applied the service chains the agent wrote, to note the others in nat
   *                ({@link #takeUnknownChains}); null: not looked for
   */
  String check(IptablesTool tool, Set<String> applied) throws IOException {
    if (expected == null) {
      return null;
    }
    if (!tool.chainExists("mangle", KUBE_PROXY_CANARY)) {
      return "the mangle canary chain " + KUBE_PROXY_CANARY + " is gone";
    }
    for (String table : List.of("nat", "filter")) {
      Map<String, Integer> want = expected.getOrDefault(table, Map.of());
      DumpScan scan = new DumpScan(table, want, table.equals("nat") ? applied : null);
      tool.saveLines(table, scan::line);
      if (table.equals("nat")) {
        unknownChains = scan.unknown;
      }
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

  /** The service chains the last check found that the agent did not write; none until the next check. */
  Set<String> takeUnknownChains() {
    Set<String> found = unknownChains;
    unknownChains = Set.of();
    return found;
  }

  /** What one table's iptables-save lines hold of what the check looks for. */
  private static final class DumpScan {
    private final String canaryLine = ":" + KUBE_PROXY_CANARY + " ";
    private final Set<String> jumps = new HashSet<>();
    private final Map<String, Integer> wanted;
    /** The chains the agent wrote; null: unknown chains are not looked for in this table. */
    private final Set<String> applied;
    final Set<String> unknown = new HashSet<>();
    final Set<String> jumpsSeen = new HashSet<>();
    final Set<String> declared = new HashSet<>();
    final Map<String, Integer> rules = new HashMap<>();
    boolean canary;

    DumpScan(String table, Map<String, Integer> wanted, Set<String> applied) {
      this.wanted = wanted;
      this.applied = applied;
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
        String chain = end > 1 ? line.substring(1, end) : "";
        if (wanted.containsKey(chain)) {
          declared.add(chain);
        }
        if (applied != null && !applied.contains(chain)
            && (ChainNames.isServiceChain(chain) || ChainNames.isObsoleteChain(chain))) {
          unknown.add(chain);
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
