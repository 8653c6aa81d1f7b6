package dev.kubeproxy.backend.ipvs;

import dev.kubeproxy.logging.Log;
import dev.kubeproxy.host.CommandRunner;
import dev.kubeproxy.net.IpAddresses;
import dev.kubeproxy.net.IpFamily;
import dev.kubeproxy.model.ProxyBackend.SyncException;
import dev.kubeproxy.backend.netfilter.IptablesBackend;
import dev.kubeproxy.backend.netfilter.IptablesTool;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Removes what kube-proxy's ipvs mode wrote (pkg/proxy/ipvs/proxier.go CleanupLeftovers and
 * cleanupIptablesLeftovers), for one family. Each part is skipped where its tool or kernel support
 * is missing, so it runs on any node (--cleanup, or the leftovers of another mode).
 */
final class IpvsCleanup {
  private IpvsCleanup() {}

  /**
   * Removes one family's leftovers: its virtual servers, kube-ipvs0, its ipvs chains and jumps on
   * both iptables backends, then its ipsets (after the rules that use them).
   *
   * @param ipvs   the IPVS netlink socket (opened at the first use; an error means no IPVS to clean)
   * @throws SyncException naming every part that failed
   */
  static void cleanup(IpFamily family, IpvsProxier.IpvsOpener ipvs, DummyInterface dummy, IpSetTool ipset,
      CommandRunner runner) throws SyncException {
    List<String> failures = new ArrayList<>();
    try {
      Ipvs kernel = ipvs.open();
      for (VirtualServer vs : kernel.virtualServers()) {
        if (IpAddresses.familyOf(vs.address()) == family) {
          kernel.deleteVirtualServer(vs);
        }
      }
    } catch (IOException e) {
      Log.v(2).info("No IPVS to clean up", "err", e.getMessage());
    }
    try {
      dummy.delete();
    } catch (IOException e) {
      failures.add(e.getMessage());
    }
    for (IptablesBackend backend : IptablesBackend.values()) {
      IptablesTool t = new IptablesTool(runner, family, backend);
      if (!t.available()) {
        continue;
      }
      try {
        cleanupIptables(t);
      } catch (IOException e) {
        failures.add(e.getMessage());
      }
    }
    try {
      ipset.version();
      Set<String> existing = ipset.entries("KUBE-").keySet();
      List<String> destroy = new ArrayList<>();
      for (IpSet set : IpSets.all(family)) {
        if (existing.contains(set.name())) {
          destroy.add(set.name());
        }
      }
      ipset.destroyAll(destroy);
    } catch (IOException e) {
      Log.v(2).info("No ipsets to clean up", "err", e.getMessage());
    }
    if (!failures.isEmpty()) {
      throw new SyncException("ipvs cleanup: " + String.join("; ", failures));
    }
  }

  /** upstream cleanupIptablesLeftovers: the jumps, then flush every chain, then delete them. */
  private static void cleanupIptables(IptablesTool t) throws IOException {
    Map<String, String> tables = IptablesTool.tablesOf(t.save(null));
    Set<String> nat = IptablesTool.chainsOf(tables.getOrDefault("nat", ""));
    Set<String> filter = IptablesTool.chainsOf(tables.getOrDefault("filter", ""));
    for (IpvsRulesetGenerator.Jump jump : IpvsRulesetGenerator.JUMPS) {
      if ((jump.table().equals("nat") ? nat : filter).contains(jump.to())) {
        t.deleteRule(jump.table(), jump.from(), jump.args());
      }
    }
    for (int pass = 0; pass < 2; pass++) { // flush all first: that removes the jumps between them
      for (String chain : IpvsRulesetGenerator.NAT_CHAINS) {
        if (nat.contains(chain)) {
          t.run(List.of(pass == 0 ? "-F" : "-X", chain, "-t", "nat"));
        }
      }
      for (String chain : IpvsRulesetGenerator.FILTER_CHAINS) {
        if (filter.contains(chain)) {
          t.run(List.of(pass == 0 ? "-F" : "-X", chain, "-t", "filter"));
        }
      }
    }
  }
}
