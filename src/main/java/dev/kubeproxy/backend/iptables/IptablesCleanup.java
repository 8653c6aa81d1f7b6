package dev.kubeproxy.backend.iptables;

import dev.kubeproxy.backend.netfilter.IptablesBackend;
import dev.kubeproxy.backend.netfilter.IptablesTool;

import static dev.kubeproxy.backend.iptables.ChainNames.KUBE_EXTERNAL_SERVICES;
import static dev.kubeproxy.backend.iptables.ChainNames.KUBE_FIREWALL;
import static dev.kubeproxy.backend.iptables.ChainNames.KUBE_FORWARD;
import static dev.kubeproxy.backend.iptables.ChainNames.KUBE_KUBELET_CANARY;
import static dev.kubeproxy.backend.iptables.ChainNames.KUBE_MARK_MASQ;
import static dev.kubeproxy.backend.iptables.ChainNames.KUBE_NODEPORTS;
import static dev.kubeproxy.backend.iptables.ChainNames.KUBE_POSTROUTING;
import static dev.kubeproxy.backend.iptables.ChainNames.KUBE_PROXY_CANARY;
import static dev.kubeproxy.backend.iptables.ChainNames.KUBE_PROXY_FIREWALL;
import static dev.kubeproxy.backend.iptables.ChainNames.KUBE_SERVICES;

import dev.kubeproxy.logging.Log;
import dev.kubeproxy.metrics.ProxyMetrics;
import dev.kubeproxy.host.CommandRunner;
import dev.kubeproxy.net.IpFamily;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Removes what kube-proxy's iptables mode wrote (pkg/proxy/iptables/proxier.go CleanupLeftovers), for one family on one backend:
 * the jump rules from the built-in chains, then every KUBE-* chain of ours in nat, filter and mangle.
 * Beyond upstream, it also removes KUBE-MARK-MASQ, KUBE-PROXY-FIREWALL, the canaries and (when no
 * kubelet manages this node's iptables, i.e. there is no KUBE-KUBELET-CANARY) KUBE-FIREWALL, each only
 * when no remaining rule jumps to it. A backend holding no KUBE-* chain at all is not touched.
 */
public final class IptablesCleanup {
  private static final Map<String, List<String>> OWN_CHAINS = Map.of(
      "nat", List.of(KUBE_SERVICES, KUBE_NODEPORTS, KUBE_POSTROUTING, KUBE_MARK_MASQ, KUBE_PROXY_CANARY),
      "filter", List.of(KUBE_SERVICES, KUBE_EXTERNAL_SERVICES, KUBE_FORWARD, KUBE_NODEPORTS, KUBE_PROXY_FIREWALL,
          KUBE_PROXY_CANARY),
      "mangle", List.of(KUBE_PROXY_CANARY));
  private static final List<String> TABLES = List.of("nat", "filter", "mangle");

  private IptablesCleanup() {}

  /** Both families on both backends; true when everything went well. For --cleanup. */
  public static boolean cleanupAll(CommandRunner runner, ProxyMetrics metrics) {
    boolean ok = true;
    for (IpFamily family : IpFamily.values()) {
      for (IptablesBackend backend : IptablesBackend.values()) {
        ok &= cleanup(new IptablesTool(runner, family, backend), metrics);
      }
    }
    return ok;
  }

  /** One family on one backend; true when everything went well (or there was nothing to do). */
  public static boolean cleanup(IptablesTool tool, ProxyMetrics metrics) {
    if (!tool.available()) {
      return true;
    }
    Map<String, String> before = saveAll(tool);
    if (before == null) {
      return false;
    }
    boolean anyOurs = false;
    boolean kubelet = false;
    for (String dump : before.values()) {
      for (String chain : IptablesTool.chainsOf(dump)) {
        anyOurs |= chain.startsWith("KUBE-") && !chain.equals(KUBE_KUBELET_CANARY)
            && !chain.equals("KUBE-IPTABLES-HINT");
        kubelet |= chain.equals(KUBE_KUBELET_CANARY);
      }
    }
    if (!anyOurs) {
      return true;
    }
    boolean ok = true;
    List<JumpRule> jumps = new ArrayList<>(JumpRule.KUBE_PROXY);
    if (!kubelet) {
      jumps.addAll(JumpRule.KUBELET);
    }
    for (JumpRule jump : jumps) {
      if (!IptablesTool.chainsOf(before.getOrDefault(jump.table(), "")).contains(jump.target())) {
        continue;
      }
      try {
        tool.deleteRule(jump.table(), jump.builtin(), jump.ruleArgs());
      } catch (IOException e) {
        Log.error("Error removing pure-iptables proxy rule", e);
        ok = false;
      }
    }
    Map<String, String> after = saveAll(tool);
    if (after == null) {
      return false;
    }
    for (String table : TABLES) {
      String dump = after.getOrDefault(table, "");
      Set<String> existing = IptablesTool.chainsOf(dump);
      Set<String> delete = new LinkedHashSet<>();
      for (String chain : OWN_CHAINS.get(table)) {
        if (existing.contains(chain)) {
          delete.add(chain);
        }
      }
      if (table.equals("filter") && !kubelet && existing.contains(KUBE_FIREWALL)) {
        delete.add(KUBE_FIREWALL);
      }
      if (table.equals("nat")) {
        for (String chain : existing) {
          if (ChainNames.isServiceChain(chain) || ChainNames.isObsoleteChain(chain)) {
            delete.add(chain);
          }
        }
      }
      // A chain that some other rule still jumps to cannot be deleted: leave it (and say so).
      for (String chain : List.copyOf(delete)) {
        String referrer = referrerOutside(dump, chain, delete);
        if (referrer != null) {
          delete.remove(chain);
          Log.info("Leaving a chain that another chain still jumps to", "chain", chain, "table", table,
              "command", tool.command(), "referrer", referrer);
        }
      }
      if (delete.isEmpty()) {
        continue;
      }
      StringBuilder input = new StringBuilder("*").append(table).append('\n');
      for (String chain : delete) {
        input.append(':').append(chain).append(" - [0:0]\n");
      }
      for (String chain : delete) {
        input.append("-X ").append(chain).append('\n');
      }
      input.append("COMMIT\n");
      try {
        tool.restore(input.toString(), table);
      } catch (IptablesTool.RestoreException e) {
        Log.error("Failed to execute iptables-restore", e, "table", table);
        metrics.incIptablesRestoreFailures(tool.family().name());
        ok = false;
      }
    }
    return ok;
  }

  /** The tables that exist (none is created by looking); null (logged) when the tool cannot list them. */
  private static Map<String, String> saveAll(IptablesTool tool) {
    try {
      return IptablesTool.tablesOf(tool.save(null));
    } catch (IOException e) {
      Log.error("Failed to execute iptables-save", e);
      return null;
    }
  }

  /** A chain outside `deleting` with a rule jumping to `chain`, or null. */
  private static String referrerOutside(String dump, String chain, Set<String> deleting) {
    String jump = " -j " + chain;
    String gotoJump = " -g " + chain;
    for (String line : dump.split("\n")) {
      if (!line.startsWith("-A ")) {
        continue;
      }
      if (line.endsWith(jump) || line.contains(jump + " ") || line.endsWith(gotoJump) || line.contains(gotoJump + " ")) {
        int end = line.indexOf(' ', 3);
        String owner = line.substring(3, end < 0 ? line.length() : end);
        if (!deleting.contains(owner)) {
          return owner;
        }
      }
    }
    return null;
  }
}
