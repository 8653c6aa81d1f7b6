package dev.kubeproxy.backend.iptables;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.kubeproxy.testutil.tier.Unit;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

@Unit
class AppliedChainsTest {
  static final String SVC_A = "KUBE-SVC-AAAAAAAAAAAAAAAA";
  static final String SEP_A1 = "KUBE-SEP-A1A1A1A1A1A1A1A1";
  static final String SEP_A2 = "KUBE-SEP-A2A2A2A2A2A2A2A2";
  static final String SVC_B = "KUBE-SVC-BBBBBBBBBBBBBBBB";
  static final String SEP_B = "KUBE-SEP-BBBBBBBBBBBBBBBB";

  @Test
  void aFullInputDeletesWhatWasAppliedOrKnownAndIsNotActive() {
    AppliedChains applied = new AppliedChains();
    applied.replace(Set.of(SVC_A, SEP_A1, SVC_B, SEP_B), List.of());
    applied.settle(true);
    assertEquals(Set.of(SVC_B, SEP_B, "KUBE-SEP-LEFTOVER0000000"),
        applied.replace(Set.of(SVC_A, SEP_A1), List.of("KUBE-SEP-LEFTOVER0000000", "KUBE-SERVICES", "OTHER")),
        "ours only: a top-level chain or another program's is never stale");
    assertEquals(Set.of(SVC_A, SEP_A1), applied.view());
  }

  @Test
  void aPartialInputChangesOnlyTheChangedPortsChains() {
    AppliedChains applied = new AppliedChains();
    applied.replace(new java.util.HashSet<>(Set.of(SVC_A, SEP_A1, SVC_B, SEP_B)), List.of());
    applied.settle(true);
    // A's endpoint replaced: SEP_A1 goes, SEP_A2 comes; B untouched.
    assertEquals(Set.of(SEP_A1), applied.update(Set.of(SVC_A, SEP_A1), Set.of(SVC_A, SEP_A2), List.of()));
    assertEquals(Set.of(SVC_A, SEP_A2, SVC_B, SEP_B), applied.view());
  }

  @Test
  void aRefusedInputLeavesTheChainsAsBefore() {
    AppliedChains applied = new AppliedChains();
    applied.replace(new java.util.HashSet<>(Set.of(SVC_A, SEP_A1, SVC_B, SEP_B)), List.of());
    applied.settle(true);
    applied.update(Set.of(SVC_A, SEP_A1), Set.of(SVC_A, SEP_A2), List.of());
    applied.settle(false);
    assertEquals(Set.of(SVC_A, SEP_A1, SVC_B, SEP_B), applied.view(), "a refused partial input");
    applied.replace(Set.of(SVC_B), List.of());
    applied.settle(false);
    assertEquals(Set.of(SVC_A, SEP_A1, SVC_B, SEP_B), applied.view(), "a refused full input");
    assertEquals(Set.of(SEP_A1), applied.update(Set.of(SVC_A, SEP_A1), Set.of(SVC_A, SEP_A2), List.of()),
        "the next input deletes what the kernel still has");
  }
}
