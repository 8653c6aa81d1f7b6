package dev.kubeproxy.backend.nftables;

import dev.kubeproxy.backend.nftables.objects.Chain;
import dev.kubeproxy.backend.nftables.objects.NftablesException;
import dev.kubeproxy.backend.nftables.objects.Transaction;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

/**
 * Service chains no longer used: flushed when they go out of use (by the sync that stops using
 * them) and deleted at least {@link #GRACE} later, in a transaction of their own.
 */
final class StaleChains {
  /** Kernels before 6.2 may still see a chain as referenced just after its last reference went. */
  static final Duration GRACE = Duration.ofSeconds(1);

  /** Chain name to when it went out of use. */
  private final Map<String, Instant> since = new LinkedHashMap<>();

  /** The chain went out of use now (its grace starts again if it was stale already). */
  void markNow(String chain, Instant at) {
    since.put(chain, at);
  }

  /** The chain is out of use; its grace keeps running if it was stale already. */
  void mark(String chain, Instant at) {
    since.putIfAbsent(chain, at);
  }

  /** The chain is used again. */
  void revive(String chain) {
    since.remove(chain);
  }

  /** Forgets every stale chain the predicate rejects (it is in use again, or not in the kernel). */
  void retainOnly(Predicate<String> stillStale) {
    since.keySet().removeIf(stillStale.negate());
  }

  void clear() {
    since.clear();
  }

  Set<String> names() {
    return Set.copyOf(since.keySet());
  }

  /**
   * Deletes the chains whose grace is over, in their own transaction; forgets them once deleted.
   *
   * @throws NftablesException the kernel refused; they stay to be tried again
   */
  void deleteDue(Instant now, Committer committer) throws NftablesException {
    Transaction tx = new Transaction();
    List<String> deleting = new ArrayList<>();
    for (Map.Entry<String, Instant> e : since.entrySet()) {
      if (!e.getValue().plus(GRACE).isAfter(now)) {
        tx.delete(Chain.regular(e.getKey()));
        deleting.add(e.getKey());
      }
    }
    if (tx.isEmpty()) {
      return;
    }
    committer.apply(tx);
    deleting.forEach(since::remove);
  }
}
