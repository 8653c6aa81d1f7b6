package dev.kubeproxy.backend.iptables;

import static dev.kubeproxy.testutil.ModelFixtures.ready;
import static dev.kubeproxy.testutil.ModelFixtures.spn;
import static dev.kubeproxy.testutil.ModelFixtures.state;
import static dev.kubeproxy.testutil.ModelFixtures.svc;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.kubeproxy.backend.iptables.RestoreRefusals.Decision;
import dev.kubeproxy.backend.iptables.SyncPlanner.SyncKind;
import dev.kubeproxy.backend.netfilter.IptablesTool;
import dev.kubeproxy.model.ProxyState;
import dev.kubeproxy.model.ServicePortName;
import dev.kubeproxy.testutil.tier.Unit;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

@Unit
class RestoreRefusalsTest {
  private static final ServicePortName BAD_HTTP = spn("demo", "bad", "http", "TCP");
  private static final ServicePortName BAD_DNS = spn("demo", "bad", "dns", "UDP");
  private static final ServicePortName GOOD = spn("demo", "good", "http", "TCP");

  private static final ProxyState STATE = state()
      .add(svc(BAD_HTTP, "10.96.0.10", 80), ready("10.244.1.5", 8080, true))
      .add(svc(BAD_DNS, "10.96.0.10", 53), ready("10.244.1.5", 53, true))
      .add(svc(GOOD, "10.96.0.11", 80), ready("10.244.1.6", 8080, true))
      .build();

  private static RestoreRefusals.Refused refused(SyncKind kind, ServicePortName culprit) {
    return new RestoreRefusals.Refused("refused", new IptablesTool.RestoreException("line 9 failed", 9, "-A x"),
        kind, culprit);
  }

  @Test
  void aRefusedFullSyncLeavesTheWholeServiceOutAndSyncsTheOthersAgain() {
    RestoreRefusals refusals = new RestoreRefusals();
    assertEquals(Decision.SYNC_AGAIN, refusals.refused(STATE, refused(SyncKind.FULL, BAD_HTTP), 0));
    assertEquals(Set.of(GOOD), refusals.withoutRefused(STATE).services().keySet());
    assertEquals(Set.of(BAD_HTTP, BAD_DNS), Set.copyOf(refusals.takeUnreported()));
    assertEquals(List.of(), refusals.takeUnreported());
  }

  @Test
  void aRefusedPartialSyncBlamesNobodyAndIsRetried() {
    RestoreRefusals refusals = new RestoreRefusals();
    assertEquals(Decision.SYNC_AGAIN, refusals.refused(STATE, refused(SyncKind.PARTIAL, BAD_HTTP), 0));
    assertEquals(STATE.services().keySet(), refusals.withoutRefused(STATE).services().keySet());
  }

  @Test
  void withNobodyToBlameOrTooManyAttemptsTheSyncFails() {
    RestoreRefusals refusals = new RestoreRefusals();
    assertEquals(Decision.GIVE_UP, refusals.refused(STATE, refused(SyncKind.FULL, null), 0));
    assertEquals(Decision.GIVE_UP,
        refusals.refused(STATE, refused(SyncKind.FULL, BAD_HTTP), RestoreRefusals.MAX_REFUSED_PER_SYNC));
    assertEquals(STATE.services().keySet(), refusals.withoutRefused(STATE).services().keySet());
  }
}
