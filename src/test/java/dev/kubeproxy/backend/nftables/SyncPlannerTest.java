package dev.kubeproxy.backend.nftables;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.kubeproxy.testutil.tier.Unit;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The nftables sync kinds, one transition at a time. */
@Unit
class SyncPlannerTest {
  private static final Duration PERIOD = Duration.ofSeconds(30);
  private static final List<String> CIDRS = List.of("10.96.0.0/16");
  private final SyncPlanner planner = new SyncPlanner();
  private final Instant t0 = Instant.parse("2026-12-03T00:00:00Z");

  private SyncKind plan(Instant at, boolean canReadBack, boolean unchanged) {
    return planner.plan(CIDRS, at, PERIOD, canReadBack, unchanged).kind();
  }

  private void succeed(SyncKind kind, Instant at) {
    planner.succeeded(new SyncPlan(kind, "test"), at, CIDRS);
  }

  @Test
  void loadsFirstAndAgainAfterAFailedLoad() {
    assertEquals(SyncKind.LOAD, plan(t0, true, false));
    planner.failed(new SyncPlan(SyncKind.LOAD, "first sync"));
    assertEquals(SyncKind.LOAD, plan(t0, true, false));
    succeed(SyncKind.LOAD, t0);
    assertEquals(SyncKind.PARTIAL, plan(t0.plusSeconds(1), true, false));
  }

  @Test
  void aFailedFullSyncIsFollowedByARewriteAndAFailedPartialOneByAReconcile() {
    succeed(SyncKind.LOAD, t0);
    planner.failed(SyncPlan.PARTIAL);
    assertEquals(SyncKind.RECONCILE, plan(t0.plusSeconds(1), true, false));
    planner.failed(new SyncPlan(SyncKind.RECONCILE, "previous partial sync failed"));
    assertEquals(SyncKind.REWRITE, plan(t0.plusSeconds(2), true, false));
    succeed(SyncKind.REWRITE, t0.plusSeconds(2));
    assertEquals(SyncKind.PARTIAL, plan(t0.plusSeconds(3), true, false));
  }

  @Test
  void theSyncPeriodReconcilesUnlessNobodyElseTouchedTheTable() {
    succeed(SyncKind.LOAD, t0);
    Instant due = t0.plus(PERIOD);
    SyncPlan skipped = planner.plan(CIDRS, due, PERIOD, true, true);
    assertEquals(SyncKind.PARTIAL, skipped.kind(), "verified and unchanged: only the model's changes");
    assertFalse(skipped.full());
    assertEquals(SyncKind.PARTIAL, plan(due.plusSeconds(1), true, false), "the skip counts as the period's resync");
    assertEquals(SyncKind.RECONCILE, plan(due.plus(PERIOD), true, false));
    assertEquals(SyncKind.REWRITE, plan(due.plus(PERIOD), false, false), "nothing to read the table back with");
  }

  @Test
  void changedServiceCidrsARequestAndACleanupMakeTheNextSyncFull() {
    succeed(SyncKind.LOAD, t0);
    assertEquals(SyncKind.RECONCILE,
        planner.plan(List.of("10.97.0.0/16"), t0.plusSeconds(1), PERIOD, true, true).kind());
    planner.reconcileNext("requested");
    assertEquals(SyncKind.RECONCILE, plan(t0.plusSeconds(1), true, true));
    succeed(SyncKind.RECONCILE, t0.plusSeconds(1));
    planner.reset("after cleanup");
    planner.reconcileNext("requested");
    assertEquals(SyncKind.LOAD, plan(t0.plusSeconds(2), true, true), "a request does not weaken a load");
  }
}
