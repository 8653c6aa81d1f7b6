package dev.kubeproxy.backend.nftables;

import dev.kubeproxy.backend.nftables.objects.Transaction;

import dev.kubeproxy.logging.Log;
import dev.kubeproxy.net.IpFamily;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;

/**
 * Logs the whole text of a transaction the kernel refused, at -v=4 and at most once a day, as
 * upstream does since v1.33 (pkg/proxy/nftables/proxier.go, Proxier.logFailure, with a token
 * bucket of one per 24 hours made in NewProxier). A refused transaction usually
 * keeps being refused on every retry; one copy a day keeps a dump in logs that roll over without
 * flooding them.
 */
final class FailedTransactionLog {
  static final Duration INTERVAL = Duration.ofHours(24);
  static final int VERBOSITY = 4;

  private final Clock clock;
  private Instant lastLogged;

  FailedTransactionLog(Clock clock) {
    this.clock = clock;
  }

  /** Logs the transaction if -v is at least 4 and none was logged in the last 24 hours; returns whether it did. */
  synchronized boolean log(Transaction tx, IpFamily family, boolean objectComments) {
    if (!Log.enabled(VERBOSITY)) {
      return false; // (below -v=4 nothing is used up: raising -v later logs the next failure)
    }
    Instant now = clock.instant();
    if (lastLogged != null && now.isBefore(lastLogged.plus(INTERVAL))) {
      return false;
    }
    lastLogged = now;
    Log.v(VERBOSITY).info("Failed transaction", "ipFamily", family, "transaction",
        tx.render(family, objectComments));
    return true;
  }
}
