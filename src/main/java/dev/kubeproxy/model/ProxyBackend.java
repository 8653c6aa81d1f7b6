package dev.kubeproxy.model;

import dev.kubeproxy.net.IpFamily;

/**
 * A rule backend for one IP family (iptables or nftables). Its family proxier calls these methods
 * on the proxier verticle's worker context, one call at a time; a backend answers through return
 * values and exceptions only, never by calling back into the proxier.
 */
public interface ProxyBackend {

  /** Which family this backend programs. */
  IpFamily family();

  /**
   * Writes the rules for this state. A backend decides itself between a full and a partial sync
   * (a full one first, after any failure, and whenever its own checks ask for it). Service ports
   * whose rules the kernel refused are left out and named in {@link SyncResult#refusedPorts()}.
   *
   * @throws SyncException when the rules could not be applied; the kernel keeps the previous rules
   */
  SyncResult sync(ProxyState state) throws SyncException;

  /**
   * One-time privileged setup done at construction upstream (iptables: route_localnet for localhost
   * NodePorts, the be_liberal check). Runs before the first sync, and alone with --init-only.
   */
  void privilegedInit() throws SyncException;

  /**
   * A cheap look at the kernel, made every syncPeriod even while nothing changes (upstream's canary
   * monitor): whether something else removed or flushed this backend's rules since its last sync.
   * When it answers true, the backend's next sync is a full one that repairs them. A backend that
   * checks nothing answers false.
   */
  default boolean rulesDisturbed() {
    return false;
  }

  /**
   * What is programmed for one service port right now (read from the kernel, or in --dry-run from
   * the last rules printed), for /debug/services. Blocking; runs on a worker, possibly during a
   * sync. A backend that cannot tell answers empty.
   *
   * @param endpoints the port's endpoints as of the last sync (per-endpoint chains are named after them)
   */
  default java.util.Optional<ProgrammedRules> programmedRules(ServicePort port, java.util.List<Endpoint> endpoints) {
    return java.util.Optional.empty();
  }

  /**
   * The whole ruleset, for tracing a packet through what is programmed rather than through the
   * model: read from the kernel, or in --dry-run the rules last printed. Blocking, as
   * {@link #programmedRules}. A backend whose rules no tracer reads answers empty.
   */
  default java.util.Optional<ProgrammedRuleset> programmedRuleset() {
    return java.util.Optional.empty();
  }

  /**
   * Releases what the backend holds open besides the kernel's rules (nftables: the localhost NodePort
   * listeners and their connections), at agent shutdown; the rules stay. A backend holding nothing
   * does nothing.
   */
  default void close() {}

  /** Removes every table, chain and rule this backend creates. Harmless when there are none. */
  void cleanup() throws SyncException;

  /** A failed sync: what failed, with the tool's message and the failing input line when known. */
  class SyncException extends Exception {
    public SyncException(String message) {
      super(message);
    }

    public SyncException(String message, Throwable cause) {
      super(message, cause);
    }
  }
}
