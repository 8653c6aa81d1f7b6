package dev.kubeproxy.backend.nftables;

import dev.kubeproxy.backend.nftables.objects.Nftables;
import dev.kubeproxy.backend.nftables.objects.NftablesException;
import dev.kubeproxy.backend.nftables.objects.TableReader;
import dev.kubeproxy.backend.nftables.objects.Transaction;

import dev.kubeproxy.logging.Log;
import dev.kubeproxy.net.IpFamily;
import dev.kubeproxy.backend.nftables.netlink.NetlinkPath;
import java.io.IOException;

/**
 * Sends one family's transactions to the kernel: over netlink when they can go that way, else
 * through nft; brackets each commit with nf_tables generation readings ({@link CommitGenerations})
 * so that a periodic resync can tell whether anybody else has written since the table was last
 * verified; and gives the reader a reconciling sync lists the table with.
 */
final class Committer {
  private final IpFamily family;
  private final Nftables nft;
  /** Who else commits to nf_tables in this namespace; shared by both families' proxiers. */
  private final CommitGenerations sharedGenerations;
  /** Where transactions go when they can (null: nft does everything). */
  private NetlinkPath netlink;
  /** {@link #sharedGenerations} while there is a netlink socket to read generations, else null. */
  private CommitGenerations generations;
  /** Reads the table back for reconciling (null: every full sync rewrites the whole table). */
  private TableReader reader;
  /** The generation readings around the last commit (-1: not read). */
  private long lastBefore = -1;
  private long lastAfter = -1;

  Committer(IpFamily family, Nftables nft, CommitGenerations generations) {
    this.family = family;
    this.nft = nft;
    this.sharedGenerations = generations;
    this.reader = nft instanceof TableReader r ? r : null;
  }

  /** Sends transactions over this netlink socket when they can go that way (null: never). */
  void useNetlink(NetlinkPath netlink) {
    boolean wasNetlink = this.netlink != null;
    this.netlink = netlink;
    this.generations = netlink == null ? null : sharedGenerations;
    this.reader = netlink != null ? netlink : nft instanceof TableReader r ? r : null;
    // logged when the way changes, not on every call (a test switches back and forth)
    if (netlink != null && !wasNetlink) {
      Log.info("nftables: transactions go to nf_tables over netlink (nft for what the encoder does not write)",
          "family", family);
    } else if (netlink == null && wasNetlink) {
      Log.info("nftables: transactions go through nft", "family", family);
    }
  }

  /** The table's reader for a reconciling sync, or null when there is none. */
  TableReader reader() {
    return reader;
  }

  boolean viaNetlink() {
    return netlink != null;
  }

  /** Applies a transaction: over netlink when it can go that way (returns true), else through nft. */
  boolean apply(Transaction tx) throws NftablesException {
    return prepare(tx).apply();
  }

  /** A transaction made ready to apply by {@link #prepare}. */
  @FunctionalInterface
  interface Ready {
    /** As {@link Committer#apply}. */
    boolean apply() throws NftablesException;
  }

  /**
   * {@link #apply} in two steps ({@link NetlinkPath#prepare}): the encoding now, the commit with
   * its generation readings in the returned step. Steps are applied in the order they were made.
   */
  Ready prepare(Transaction tx) {
    NetlinkPath.Prepared prepared = netlink == null ? () -> false : netlink.prepare(tx);
    return () -> {
      long before = generation();
      boolean viaNetlink = prepared.send();
      if (!viaNetlink) {
        nft.run(tx);
      }
      long after = generation();
      if (before >= 0 && after >= 0) {
        generations.committed(before, after);
      }
      lastBefore = before;
      lastAfter = after;
      return viaNetlink;
    };
  }

  /**
   * Which chains and sets exist (for a full rewrite): over netlink when there is a socket, else
   * (or when the netlink listing fails) through nft.
   */
  Nftables.TableContents list() throws NftablesException {
    if (netlink != null) {
      try {
        return netlink.contents();
      } catch (NftablesException e) {
        Log.v(2).info("nftables: cannot list the table over netlink; asking nft", "family", family,
            "err", e.getMessage());
      }
    }
    return nft.list();
  }

  /** nf_tables' generation number, or -1 without a netlink socket or when it cannot be read. */
  long generation() {
    if (netlink == null) {
      return -1;
    }
    try {
      return netlink.generation();
    } catch (IOException e) {
      Log.v(2).info("nftables: cannot read the generation number", "err", e.getMessage());
      return -1;
    }
  }

  /** True when this family's table was verified and nobody else has committed since. */
  boolean unchangedByOthers() {
    long now = generation();
    return now >= 0 && generations.unchanged(family, now);
  }

  /**
   * A reconciling sync that listed the table at generation listedAt succeeded: its table is
   * verified unless somebody else committed in between.
   *
   * @param sent whether a transaction was applied (else nothing differed and nothing was sent)
   */
  void reconciled(long listedAt, boolean sent) {
    if (generations == null || listedAt < 0) {
      return;
    }
    if (sent) {
      generations.reconciled(family, listedAt, lastBefore, lastAfter);
    } else {
      long now = generation(); // nothing sent: one reading stands for both sides of the (absent) commit
      generations.reconciled(family, listedAt, now, now);
    }
  }
}
