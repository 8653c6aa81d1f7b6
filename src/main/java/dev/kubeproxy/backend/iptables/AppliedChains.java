package dev.kubeproxy.backend.iptables;

import java.util.Collection;
import java.util.Collections;
import java.util.HashSet;
import java.util.Set;
import java.util.TreeSet;

/**
 * The service chains of the nat table as of the last input: replaced whole by a full sync, and
 * changed in place by a partial one by what it writes for the ports it changes, so that a partial
 * sync finds the chains to delete among the chains of those ports instead of building and
 * comparing every chain of the table (a set that big, made at every sync, outlived the young
 * collections of the restore). Until the input is known applied or refused ({@link #settle}), the
 * change can be taken back. Not thread safe: one per generator.
 */
final class AppliedChains {
  private Set<String> chains = new HashSet<>();
  /** Takes back the last input's change; null when settled. */
  private Runnable undo;

  /** The chains (read-only; the next input changes them). */
  Set<String> view() {
    return Collections.unmodifiableSet(chains);
  }

  /**
   * A full input's chains replace the applied ones. Returns the chains to delete: those applied
   * before or known from the kernel that are service chains (or an older layout's) and not active.
   */
  TreeSet<String> replace(Set<String> active, Collection<String> known) {
    Set<String> before = chains;
    TreeSet<String> stale = new TreeSet<>();
    addStale(before, active, stale);
    addStale(known, active, stale);
    chains = active;
    undo = () -> chains = before;
    return stale;
  }

  /**
   * A partial input: the changed ports had the chains before and have those written now (chain
   * names are a port's own, so no other port has either). Returns the chains to delete: those of
   * before not written again, and those known from the kernel not active.
   */
  TreeSet<String> update(Set<String> before, Set<String> written, Collection<String> known) {
    chains.removeAll(before);
    chains.addAll(written);
    TreeSet<String> stale = new TreeSet<>();
    for (String chain : before) {
      if (!written.contains(chain)) {
        stale.add(chain);
      }
    }
    addStale(known, chains, stale);
    undo = () -> {
      chains.removeAll(written);
      chains.addAll(before);
    };
    return stale;
  }

  /** The last input was applied (its chains stay) or refused (the chains are as before it). */
  void settle(boolean applied) {
    if (!applied && undo != null) {
      undo.run();
    }
    undo = null;
  }

  /** No chain of ours is left (after a cleanup). */
  void clear() {
    chains = new HashSet<>();
    undo = null;
  }

  private static void addStale(Collection<String> candidates, Set<String> active, Set<String> stale) {
    if (candidates == null) {
      return;
    }
    for (String chain : candidates) {
      if (!active.contains(chain) && (ChainNames.isServiceChain(chain) || ChainNames.isObsoleteChain(chain))) {
        stale.add(chain);
      }
    }
  }
}
