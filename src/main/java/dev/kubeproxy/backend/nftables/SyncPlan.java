package dev.kubeproxy.backend.nftables;

/** What the next nftables sync does, and why (for the log). */
record SyncPlan(SyncKind kind, String reason) {
  static final SyncPlan PARTIAL = new SyncPlan(SyncKind.PARTIAL, "changed services");

  boolean full() {
    return kind.full();
  }
}
