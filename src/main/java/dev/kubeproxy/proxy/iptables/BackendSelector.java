package dev.kubeproxy.proxy.iptables;

import dev.kubeproxy.logging.Log;
import dev.kubeproxy.platform.CommandRunner;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.WeakHashMap;

/**
 * Chooses between iptables-legacy and iptables-nft the way iptables-wrapper does: the backend
 * holding kubelet's hint chains (KUBE-IPTABLES-HINT / KUBE-KUBELET-CANARY in mangle) wins; else the
 * one holding more rules (legacy when it has 10 or more); else (a node without rules) the legacy
 * backend if it works here, otherwise nft. Decided once per node (per runner) and logged.
 */
public final class BackendSelector {
  private static final Map<CommandRunner, IptablesBackend> CHOSEN = new WeakHashMap<>();

  private BackendSelector() {}

  /** The backend for this node; both families use the same one. */
  public static synchronized IptablesBackend choose(CommandRunner runner) {
    IptablesBackend chosen = CHOSEN.get(runner);
    if (chosen == null) {
      chosen = detect(runner);
      CHOSEN.put(runner, chosen);
    }
    return chosen;
  }

  static IptablesBackend detect(CommandRunner runner) {
    // Plain iptables-save lists only the tables that exist: looking creates nothing.
    String legacyDump = save(runner, "iptables-legacy-save") + save(runner, "ip6tables-legacy-save");
    String nftDump = save(runner, "iptables-nft-save") + save(runner, "ip6tables-nft-save");
    for (IptablesBackend backend : List.of(IptablesBackend.NFT, IptablesBackend.LEGACY)) {
      String dump = "\n" + (backend == IptablesBackend.NFT ? nftDump : legacyDump);
      if (dump.contains("\n:KUBE-IPTABLES-HINT ") || dump.contains("\n:KUBE-KUBELET-CANARY ")) {
        Log.info("Using iptables-" + backend.suffix(), "reason", "kubelet's hint chain is in that backend");
        return backend;
      }
    }
    int legacy = ruleLines(legacyDump);
    int nft = ruleLines(nftDump);
    IptablesBackend chosen;
    String why;
    if (legacy >= 10 || (legacy > 0 && legacy >= nft)) {
      chosen = IptablesBackend.LEGACY;
      why = "it holds the node's rules (" + legacy + " legacy, " + nft + " nft rules)";
    } else if (nft > legacy) {
      chosen = IptablesBackend.NFT;
      why = "it holds the node's rules (" + legacy + " legacy, " + nft + " nft rules)";
    } else if (works(runner, IptablesBackend.LEGACY)) {
      chosen = IptablesBackend.LEGACY;
      why = "no rules on the node yet and the legacy backend works here";
    } else {
      chosen = IptablesBackend.NFT;
      why = "no rules on the node yet and the legacy backend does not work here";
    }
    Log.info("Using iptables-" + chosen.suffix(), "reason", why);
    return chosen;
  }

  private static boolean works(CommandRunner runner, IptablesBackend backend) {
    try {
      return runner.run(List.of("iptables-" + backend.suffix(), "-w", "5", "-S", "-t", "filter")).ok();
    } catch (IOException e) {
      return false;
    }
  }

  private static String save(CommandRunner runner, String command) {
    try {
      CommandRunner.Result result = runner.run(List.of(command));
      return result.ok() ? result.stdout() : "";
    } catch (IOException e) {
      return "";
    }
  }

  static int ruleLines(String saveOutput) {
    int count = 0;
    int start = 0;
    while (start < saveOutput.length()) {
      if (saveOutput.charAt(start) == '-') {
        count++;
      }
      int next = saveOutput.indexOf('\n', start);
      if (next < 0) {
        break;
      }
      start = next + 1;
    }
    return count;
  }
}
