package dev.kubeproxy.backend.ipvs;

import dev.kubeproxy.backend.netfilter.BackendSelector;
import dev.kubeproxy.backend.netfilter.IptablesTool;
import dev.kubeproxy.host.CommandRunner;
import dev.kubeproxy.metrics.ProxyMetrics;
import dev.kubeproxy.model.ProxyBackend.SyncException;
import dev.kubeproxy.net.IpFamily;
import java.io.IOException;
import java.util.Map;
import java.util.Set;

/**
 * The netfilter half of ipvs mode for one family (pkg/proxy/ipvs/proxier.go syncProxyRules after
 * the virtual servers): the ipsets, written through one "ipset restore", and the iptables chains
 * that match them, through iptables-restore --noflush plus the jumps from the built-in chains.
 */
final class IpvsNetfilterRules {
  private final IpFamily family;
  private final IpSetTool ipset;
  private final CommandRunner commands;
  private final BackendSelector backends;
  private final ProxyMetrics metrics;
  private IptablesTool iptables;

  /** @param iptables null: chosen as iptables-wrapper does, at the first use */
  IpvsNetfilterRules(IpFamily family, IpSetTool ipset, IptablesTool iptables, CommandRunner commands,
      BackendSelector backends, ProxyMetrics metrics) {
    this.family = family;
    this.ipset = ipset;
    this.iptables = iptables;
    this.commands = commands;
    this.backends = backends;
    this.metrics = metrics;
  }

  IpSetTool ipset() {
    return ipset;
  }

  IptablesTool iptables() {
    if (iptables == null) {
      iptables = new IptablesTool(commands, family, backends.choose());
    }
    return iptables;
  }

  /** Whether MASQUERADE --random-fully may be written: assumed until the tool has been chosen. */
  boolean randomFully() {
    return iptables == null || iptables.supportsRandomFully();
  }

  /** upstream ensureIPSet for every set of the family ("-exist": the existing ones stay). */
  void createSets() throws IOException {
    StringBuilder create = new StringBuilder();
    for (IpSet set : IpSets.all(family)) {
      create.append(set.createLine()).append('\n');
    }
    ipset.restore(create.toString());
  }

  /** The sets' differences, in one "ipset restore": additions first, then deletions (upstream's order). */
  void syncSets(IpvsRuleset ruleset) throws IOException {
    Map<String, Set<String>> current = ipset.entries("KUBE-");
    StringBuilder adds = new StringBuilder();
    StringBuilder dels = new StringBuilder();
    ruleset.ipsetEntries().forEach((name, wanted) -> {
      Set<String> have = current.getOrDefault(name, Set.of());
      for (String entry : wanted) {
        if (!have.contains(entry)) {
          adds.append("add ").append(name).append(' ').append(entry).append('\n');
        }
      }
      for (String entry : have) {
        if (!wanted.contains(entry)) {
          dels.append("del ").append(name).append(' ').append(entry).append('\n');
        }
      }
    });
    ipset.restore(adds.toString() + dels);
  }

  /**
   * The ruleset's chains through iptables-restore (its chain lines create the chains that are
   * missing); a refusal is counted in the iptables-restore failures metric.
   */
  void restoreChains(IpvsRuleset ruleset) throws SyncException {
    try {
      iptables().restore(ruleset.iptablesRestore(), null);
    } catch (IptablesTool.RestoreException e) {
      metrics.incIptablesRestoreFailures(family.name());
      throw new SyncException("Failed to execute iptables-restore: " + e.getMessage(), e);
    }
  }

  /**
   * upstream createAndLinkKubeChain's jumps from the built-in chains (its chains are the restore
   * input's); one iptables-save tells which are missing.
   */
  void ensureJumps() throws IOException {
    IptablesTool t = iptables();
    Map<String, String> tables = IptablesTool.tablesOf(t.save(null));
    for (IpvsRulesetGenerator.Jump jump : IpvsRulesetGenerator.JUMPS) {
      String line = "-A " + jump.from() + " -m comment --comment \"" + jump.comment() + "\" -j " + jump.to();
      if (!tables.getOrDefault(jump.table(), "").contains(line + "\n")) {
        t.ensureRuleAtTop(jump.table(), jump.from(), jump.args());
      }
    }
  }
}
