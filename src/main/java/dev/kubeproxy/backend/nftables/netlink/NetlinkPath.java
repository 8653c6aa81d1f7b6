package dev.kubeproxy.backend.nftables.netlink;

import dev.kubeproxy.backend.nftables.objects.NftablesException;
import dev.kubeproxy.backend.nftables.objects.Transaction;
import java.io.IOException;

/**
 * The proxier's way to nf_tables over netlink ({@link NetlinkNftables}): transactions, the
 * generation number, and the table read back; tests wrap it to count and time.
 */
public interface NetlinkPath extends dev.kubeproxy.backend.nftables.objects.TableReader {

  /**
   * Applies the transaction over netlink when every command of it can be written that way.
   *
   * @return false when it could not (nothing was sent): the caller runs nft instead
   * @throws NftablesException the kernel refused it, or its answer was lost; nothing of it may be assumed applied
   */
  boolean tryRun(Transaction tx) throws NftablesException;

  /**
   * {@link #tryRun} in two steps, so that one thread can encode a transaction while another waits
   * for the kernel's answer to the one before: the work that needs no kernel is done now, the
   * returned step sends and answers as tryRun would. Steps are taken in the order they were made.
   */
  default Prepared prepare(Transaction tx) {
    return () -> tryRun(tx);
  }

  /** The sending step of {@link #prepare}. */
  @FunctionalInterface
  interface Prepared {
    /** As {@link NetlinkPath#tryRun}: false when nothing was sent (the caller runs nft instead). */
    boolean send() throws NftablesException;
  }

  /** The chains and sets (not maps) of this family's table, as {@link dev.kubeproxy.backend.nftables.objects.Nftables#list}. */
  dev.kubeproxy.backend.nftables.objects.Nftables.TableContents contents() throws NftablesException;

  /** nf_tables' generation number in this namespace, which every commit by anyone moves on by one. */
  long generation() throws IOException;
}
