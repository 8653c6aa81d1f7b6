package dev.kubeproxy.model;

/**
 * Why the model asks the backend to rewrite every service, beyond {@link ProxyState#changedServices()}:
 * upstream's proxiers set needFullSync for the same two (pkg/proxy/iptables/proxier.go NewProxier and
 * OnNodeUpdate; pkg/proxy/nftables/proxier.go likewise). A backend adds its own reasons (a failed
 * sync, rules changed behind its back, the periodic resync).
 */
public enum FullSyncReason {
  /** Only the changed services need rewriting. */
  NONE,
  /** No sync of this family has succeeded yet. */
  FIRST_SYNC,
  /** The node's labels changed: topology may pick other endpoints for any service. */
  NODE_LABELS_CHANGED;

  /** The spelling in log lines ("node-labels-changed"). */
  @Override
  public String toString() {
    return name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
  }
}
