package dev.kubeproxy.backend.nftables;

import dev.kubeproxy.backend.nftables.objects.Nftables;
import dev.kubeproxy.backend.nftables.objects.NftablesException;
import dev.kubeproxy.backend.nftables.objects.Transaction;

import dev.kubeproxy.logging.Log;
import dev.kubeproxy.metrics.ProxyMetrics;
import dev.kubeproxy.net.IpFamily;
import dev.kubeproxy.model.ProxyState;
import dev.kubeproxy.model.RefusedServicePorts;
import dev.kubeproxy.model.ServicePortName;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;

/**
 * What one family's failed syncs leave behind: the failure counters and metrics, the refused
 * transaction's text in the log (at most once a day), and the service ports whose objects the
 * kernel refuses on their own, left out of the following syncs until they change so that every
 * other one is programmed.
 */
final class SyncFailures {
  /** At most this many refused service ports are found and left out per sync (each round is one nft --check). */
  static final int MAX_ISOLATION_ROUNDS = 3;

  private final IpFamily family;
  private final Nftables nft;
  private final ProxyMetrics metrics;
  private final FailedTransactionLog failedTransactions;
  private final RefusedServicePorts refused = new RefusedServicePorts("nftables");
  /** Rounds left for leaving refused service ports out within the current sync. */
  private int isolationRounds;
  private long syncFailures;
  private long cleanupFailures;

  SyncFailures(IpFamily family, Nftables nft, ProxyMetrics metrics, Clock clock) {
    this.family = family;
    this.nft = nft;
    this.metrics = metrics;
    this.failedTransactions = new FailedTransactionLog(clock);
  }

  /** A sync starts: it may leave out up to {@link #MAX_ISOLATION_ROUNDS} more refused service ports. */
  void syncStarts() {
    isolationRounds = MAX_ISOLATION_ROUNDS;
  }

  /** The state without the refused service ports that have not changed since. */
  ProxyState withoutRefused(ProxyState state) {
    return refused.filter(state);
  }

  /** What the proxier does after a failed attempt. */
  enum Decision {
    /** Service ports the kernel refuses were left out: sync the others again at once. */
    SYNC_AGAIN_WITHOUT_REFUSED,
    /** Nothing more to leave out: the sync fails (and the next one is full). */
    GIVE_UP
  }

  /**
   * Counts a failed sync and logs its transaction; after a full sync the kernel refused, finds the
   * service ports whose commands it refuses on their own (nft --check, one command a line) and
   * leaves them out until they change.
   *
   * @param built   the transaction the kernel refused, null when the sync failed before building it
   * @param owners  the table as built, which names the service port each object belongs to
   */
  Decision syncFailed(ProxyState state, Transaction built, boolean full, NftablesException error,
      AppliedTable owners) {
    syncFailures++;
    metrics.incNftablesSyncFailures(family.name());
    if (built == null) {
      return Decision.GIVE_UP;
    }
    failedTransactions.log(built, family, !(nft instanceof NftCommand c) || c.objectComments());
    if (!full || isolationRounds-- <= 0) {
      return Decision.GIVE_UP;
    }
    List<ServicePortName> culprits = new ArrayList<>();
    for (int index : nft.refusedCommands(built)) {
      ServicePortName owner = owners.ownerOf(built.operations().get(index).object());
      if (owner != null && !culprits.contains(owner)) {
        culprits.add(owner);
      }
    }
    for (ServicePortName spn : culprits) {
      refused.add(state, spn);
      Log.error("nftables: the kernel refuses the rules of this service port; programming every other one and"
          + " leaving it out until it changes (check its names, ports and session affinity timeout)",
          "servicePort", spn, "err", error.getMessage());
    }
    return culprits.isEmpty() ? Decision.GIVE_UP : Decision.SYNC_AGAIN_WITHOUT_REFUSED;
  }

  /** Stale chains could not be deleted. */
  void cleanupFailed() {
    cleanupFailures++;
    metrics.incNftablesCleanupFailures(family.name());
  }

  /** The service ports left out since the last call, each once (for the proxier's event). */
  List<ServicePortName> takeRefused() {
    return refused.takeUnreported();
  }

  long syncFailures() {
    return syncFailures;
  }

  long cleanupFailures() {
    return cleanupFailures;
  }
}
