package dev.kubeproxy.backend.nftables;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.function.BooleanSupplier;

/**
 * Chooses each nftables sync's {@link SyncKind}: a load first, a rewrite after a failed full sync,
 * a reconcile after a failed partial sync, when asked, when the ServiceCIDRs change and once per
 * full sync period (an hour; skipped while nobody else has touched the table), else a partial sync. The one
 * state value is the kind the next sync must at least be.
 */
final class SyncPlanner {
  private SyncPlan next = new SyncPlan(SyncKind.LOAD, "first sync");
  private Instant lastFullSync;
  private List<String> appliedServiceCIDRs = List.of();

  /**
   * @param canReadBack     whether the table can be read back (else a full sync rewrites it)
   * @param unchangedByOthers whether the table still holds exactly what this agent last verified
   *                          (asked only when the sync period alone would make the sync full)
   */
  SyncPlan plan(List<String> serviceCIDRs, Instant start, Duration period, boolean canReadBack,
      BooleanSupplier unchangedByOthers) {
    SyncPlan plan = next;
    if (plan.kind() == SyncKind.PARTIAL) {
      if (lastFullSync == null) {
        plan = new SyncPlan(SyncKind.RECONCILE, "no full sync yet");
      } else if (!appliedServiceCIDRs.equals(serviceCIDRs)) {
        plan = new SyncPlan(SyncKind.RECONCILE, "service CIDRs changed");
      } else if (!start.isBefore(lastFullSync.plus(period))) {
        if (unchangedByOthers.getAsBoolean()) {
          // Nobody else has committed since the table was last verified, so it holds exactly what
          // this agent wrote, and the model's changes are all there is to send.
          lastFullSync = start;
          return new SyncPlan(SyncKind.PARTIAL, "sync period; table unchanged since verified");
        }
        plan = new SyncPlan(SyncKind.RECONCILE, "sync period");
      }
    }
    if (plan.kind() == SyncKind.RECONCILE && !canReadBack) {
      plan = new SyncPlan(SyncKind.REWRITE, plan.reason());
    }
    return plan;
  }

  /** The plan's transaction was applied (or there was nothing to send). */
  void succeeded(SyncPlan plan, Instant start, List<String> serviceCIDRs) {
    next = SyncPlan.PARTIAL;
    if (plan.full()) {
      lastFullSync = start;
      appliedServiceCIDRs = List.copyOf(serviceCIDRs);
    }
  }

  /** A failed load stays a load; a failed full sync is followed by a rewrite, a failed partial one by a reconcile. */
  void failed(SyncPlan plan) {
    next = switch (plan.kind()) {
      case LOAD -> plan;
      case REWRITE, RECONCILE -> new SyncPlan(SyncKind.REWRITE, "previous full sync failed");
      case PARTIAL -> new SyncPlan(SyncKind.RECONCILE, "previous partial sync failed");
    };
  }

  /** The next sync reads the table back (unless it has to write everything anyway). */
  void reconcileNext(String reason) {
    if (next.kind() == SyncKind.PARTIAL) {
      next = new SyncPlan(SyncKind.RECONCILE, reason);
    }
  }

  /** The table is gone: the next sync loads it again. */
  void reset(String reason) {
    next = new SyncPlan(SyncKind.LOAD, reason);
  }
}
