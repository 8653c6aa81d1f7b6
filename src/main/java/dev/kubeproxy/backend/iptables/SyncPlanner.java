package dev.kubeproxy.backend.iptables;

import dev.kubeproxy.model.ProxyState;

/**
 * What the next sync does: full or partial, and why (pkg/proxy/iptables/proxier.go syncProxyRules,
 * tryPartialSync and needFullSync). A sync is full at the first sync, after a failure or a cleanup,
 * when the model asks (node labels changed), when the canary is gone or the rules monitor saw a
 * change, and once an hour (not in large clusters: {@link FullSyncCadence}). Also keeps the nat
 * chains the last applied input left, which the next one deletes when they are not active any
 * more, and when a partial sync must look for stale chains in the kernel.
 */
final class SyncPlanner {
  /** Whether a sync rewrites every service's chains or only the changed ones'. */
  enum SyncKind { FULL, PARTIAL }

  /** What the next sync does, and why (for the log). */
  record SyncPlan(SyncKind kind, String reason) {
    static final SyncPlan PARTIAL = new SyncPlan(SyncKind.PARTIAL, "changed services");

    static SyncPlan full(String reason) {
      return new SyncPlan(SyncKind.FULL, reason);
    }

    boolean full() {
      return kind == SyncKind.FULL;
    }
  }

  private final FullSyncCadence cadence;
  /** Set while the next sync must be full, whatever the model says: the first one, after a failure, ... */
  private SyncPlan pendingFull = SyncPlan.full("first sync");

  SyncPlanner(FullSyncCadence cadence) {
    this.cadence = cadence;
  }

  /** The clock the cadence runs on, read at the start of a sync. */
  long now() {
    return cadence.now();
  }

  /** Full or partial, and why; no kernel access (the canary is checked by the caller). */
  SyncPlan next(ProxyState state, boolean large) {
    if (pendingFull != null) {
      return pendingFull;
    }
    if (state.fullSyncRequested()) {
      return SyncPlan.full(state.fullSyncReason().toString());
    }
    if (cadence.periodicFullSyncDue(large)) {
      return SyncPlan.full("full sync period");
    }
    return SyncPlan.PARTIAL;
  }

  /** The next sync is full, for this reason (a failure, a cleanup, rules changed by something else). */
  void fullNext(String reason) {
    pendingFull = SyncPlan.full(reason);
  }

  /** A ruleset was applied: nothing pending any more. */
  void applied(SyncPlan plan, long start) {
    pendingFull = null;
    if (plan.full()) {
      cadence.fullSynced(start);
    }
  }

  /** After a cleanup: the next sync is full. */
  void cleanedUp() {
    fullNext("after cleanup");
  }

  /** Whether a partial sync should read the nat table for stale chains now. */
  boolean staleScanDue(boolean large) {
    return cadence.staleScanDue(large);
  }

  void staleScanned() {
    cadence.staleScanned();
  }
}
