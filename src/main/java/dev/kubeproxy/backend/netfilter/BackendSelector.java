package dev.kubeproxy.backend.netfilter;

import dev.kubeproxy.logging.Log;
import dev.kubeproxy.host.CommandRunner;
import java.io.IOException;
import java.util.List;

/**
 * Chooses between iptables-legacy and iptables-nft the way iptables-wrapper does: the backend
 * holding kubelet's hint chains (KUBE-IPTABLES-HINT / KUBE-KUBELET-CANARY in mangle) wins; else the
 * one holding more rules (legacy when it has 10 or more); else (a node without rules) the legacy
 * backend if it works here, otherwise nft. Decided once per agent, at the first use, and logged: the
 * agent's one selector lives in its {@code AgentContext}, so both families and every mode's rules
 * (iptables, ipvs) use the same backend.
 */
public final class BackendSelector {
  private final CommandRunner runner;
  private IptablesBackend chosen;

  /** @param runner runs the probes, in the namespace the rules go to */
  public BackendSelector(CommandRunner runner) {
    this.runner = runner;
  }

  /** The backend for this node; both families use the same one. Blocking on the first call. */
  public synchronized IptablesBackend choose() {
    if (chosen == null) {
      chosen = detect(runner);
    }
    return chosen;
  }

  public static IptablesBackend detect(CommandRunner runner) {
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
    } else if (legacyWorks(runner)) {
      chosen = IptablesBackend.LEGACY;
      why = "no rules on the node yet and the legacy backend works here";
    } else {
      chosen = IptablesBackend.NFT;
      why = "no rules on the node yet and the legacy backend does not work here";
    }
    Log.info("Using iptables-" + chosen.suffix(), "reason", why);
    return chosen;
  }

  /**
   * iptables' exit status when it stopped waiting for the xtables lock (RESOURCE_PROBLEM; upstream
   * pkg/util/iptables iptables.go isResourceError).
   */
  static final int RESOURCE_PROBLEM = 4;

  /** Runs of {@link #works} that find the xtables lock held, before the held lock is taken as the answer. */
  static final int LOCKED_ATTEMPTS = 4;

  /**
   * Whether iptables-legacy works here. A lock timeout is no sign that it does not: it is retried
   * (each run waits 5 s for the lock); a lock held all that time means another program is using
   * iptables-legacy on this node (iptables-nft takes no xtables lock), so legacy works.
   */
  static boolean legacyWorks(CommandRunner runner) {
    for (int attempt = 1; ; attempt++) {
      CommandRunner.Result result;
      try {
        result = runner.run(List.of("iptables-" + IptablesBackend.LEGACY.suffix(), "-w", "5", "-S", "-t", "filter"));
      } catch (IOException e) {
        return false;
      }
      if (result.exitCode() != RESOURCE_PROBLEM) {
        return result.ok();
      }
      if (attempt == LOCKED_ATTEMPTS) {
        Log.info("The xtables lock is still held; another program uses iptables-legacy here, so it works",
            "attempts", attempt);
        return true;
      }
      Log.info("The xtables lock is held by another program; waiting for it", "attempt", attempt,
          "stderr", result.stderr().strip());
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

  public static int ruleLines(String saveOutput) {
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
