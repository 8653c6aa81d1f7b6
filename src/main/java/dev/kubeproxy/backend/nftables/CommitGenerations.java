package dev.kubeproxy.backend.nftables;

import dev.kubeproxy.net.IpFamily;
import java.util.EnumSet;
import java.util.Set;

/**
 * Tells whether anyone but this agent has committed to nf_tables in a network namespace. The
 * kernel moves one generation number per namespace on every commit; each of the agent's commits
 * (both families share one instance) is bracketed by two readings. While every change of the
 * number is one of those brackets moving by exactly one, nobody else wrote, and a table the
 * agent has verified against a listing still holds exactly what the agent put there. Any other
 * change makes every family unverified again. (The agent sends no transaction that changes
 * nothing; one that did could let a foreign commit within the same milliseconds pass as its own.)
 *
 * <p>One instance per network namespace, created by whoever creates that namespace's proxiers
 * ({@code Proxiers}) and given to both families.
 */
public final class CommitGenerations {

  /** The last generation number whose history is accounted for (-1: none yet). */
  private long known = -1;
  /** Families whose table matched the model at {@link #known}, changed since only by the agent. */
  private final Set<IpFamily> verified = EnumSet.noneOf(IpFamily.class);

  public CommitGenerations() {}

  /** A reading outside the agent's commits: a move means someone else committed. */
  synchronized void observed(long generation) {
    if (generation != known) {
      verified.clear();
      known = generation;
    }
  }

  /**
   * One of the agent's transactions, with the readings just before and just after it (equal when
   * the kernel found nothing to change).
   */
  synchronized void committed(long before, long after) {
    observed(before);
    if (after != before && after != next(before)) {
      verified.clear(); // someone else committed in between
    }
    known = after;
  }

  /**
   * A family's table was listed at generation listedAt and brought to the model by a transaction
   * bracketed by before and after (both the current reading when nothing needed sending):
   * verified when nobody else committed from the listing on.
   */
  synchronized void reconciled(IpFamily family, long listedAt, long before, long after) {
    observed(after);
    if (listedAt == before && (after == before || after == next(before))) {
      verified.add(family);
    }
  }

  /** Whether the family's table is still what the agent made it, at this reading. */
  synchronized boolean unchanged(IpFamily family, long generation) {
    observed(generation);
    return verified.contains(family);
  }

  private static long next(long generation) {
    return (generation + 1) & 0xffffffffL;
  }
}
