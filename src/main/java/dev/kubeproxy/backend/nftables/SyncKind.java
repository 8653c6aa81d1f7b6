package dev.kubeproxy.backend.nftables;

/** What one nftables sync writes (chosen by {@link SyncPlanner}). */
enum SyncKind {
  /** The first of this process (or after a cleanup): base chains recreated, everything written. */
  LOAD,
  /** After a failed full sync, or with nothing to read the table back: everything written again. */
  REWRITE,
  /** The table read back and only the differences from the model sent. */
  RECONCILE,
  /** Only the model's changes. */
  PARTIAL;

  /** Whether the sync writes (or compares) the whole table. */
  boolean full() {
    return this != PARTIAL;
  }
}
