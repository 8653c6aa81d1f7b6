package dev.kubeproxy.backend.iptables;

import dev.kubeproxy.logging.Log;
import java.io.IOException;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.Callable;

/**
 * The nfacct counters the ruleset's rules count into: the client opened at the first full sync,
 * each counter made sure of at every full sync (upstream 1.31 syncProxyRules), and which of them
 * exist. A counter that cannot be created just loses its metric, and its rule is written without
 * "-m nfacct".
 */
final class RuleCounters {
  /** Opens the client (in the namespace the rules go to); null: no nfacct. */
  private final Callable<NfacctCounters> opener;
  private NfacctCounters nfacct;
  private boolean opened;
  private Set<String> existing = Set.of();

  RuleCounters(Callable<NfacctCounters> opener) {
    this.opener = opener;
  }

  /** Makes sure each counter exists (a full sync's step); opens the client the first time. */
  void ensure() {
    if (!opened) {
      opened = true;
      if (opener != null) {
        try {
          nfacct = opener.call();
        } catch (Exception e) {
          Log.error("Failed to create nfacct runner, nfacct based metrics won't be available", "err", e.getMessage());
        }
      }
    }
    if (nfacct == null) {
      return;
    }
    Set<String> ensured = new HashSet<>();
    for (String counter : new java.util.TreeSet<>(NfacctCounters.ALL)) {
      try {
        nfacct.ensure(counter);
        ensured.add(counter);
      } catch (IOException | RuntimeException e) {
        Log.error("Failed to create nfacct counter; the corresponding metric will not be updated", "counter", counter,
            "err", e.getMessage());
      }
    }
    existing = Set.copyOf(ensured);
  }

  /** The counters that existed at the last full sync: their rules count packets. */
  Set<String> existing() {
    return existing;
  }
}
