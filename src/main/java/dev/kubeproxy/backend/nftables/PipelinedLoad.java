package dev.kubeproxy.backend.nftables;

import dev.kubeproxy.backend.nftables.objects.NftablesException;
import dev.kubeproxy.backend.nftables.objects.Table;
import dev.kubeproxy.backend.nftables.objects.Transaction;
import dev.kubeproxy.logging.Log;
import dev.kubeproxy.model.ProxyState;
import dev.kubeproxy.net.IpFamily;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * The first sync into a namespace without this family's table: the table goes to the kernel in
 * several transactions, each encoded on one thread and committed on another while the next is
 * built, so that the kernel's work overlaps the agent's instead of following it. The rules of the
 * base chains, through which alone packets enter the rest of the table, come in the last
 * transaction: until it commits the base chains are empty and let every packet pass, so none meets
 * the table half-built, as with one transaction. When the kernel refuses a piece, the pieces
 * committed before it are undone (the table deleted) and the caller sends the load as one
 * transaction, whose refusal is reported and its service ports isolated like any full sync's.
 */
final class PipelinedLoad {
  /**
   * Commands per transaction: many, so that a commit's fixed cost is small beside its elements, and
   * far fewer than a large table's, so that building and committing overlap.
   */
  static final int PIECE_COMMANDS = 16_384;
  /**
   * Pieces built and not yet committed: the builder runs at most this far ahead, which absorbs the
   * unevenness of the three stages while few pieces' objects are held at once.
   */
  private static final int AHEAD = 4;

  private final IpFamily family;
  private final Committer committer;
  /** Every piece sent, when kept (tests read the transaction a load sent); else stays empty. */
  private final Transaction sent = new Transaction();
  private final boolean keepSent;
  /** The kernel's refusal of a piece (set on the committing thread; the pieces after it are not sent). */
  private volatile NftablesException refused;
  private int pieces;
  private int commands;

  PipelinedLoad(IpFamily family, Committer committer, boolean keepSent) {
    this.family = family;
    this.committer = committer;
    this.keepSent = keepSent;
  }

  /**
   * Builds and sends the whole table.
   *
   * @return the pieces sent, as one transaction (empty unless kept), once every one was committed;
   *         null when the kernel refused one (logged, and what was committed deleted again)
   */
  Transaction run(FullTransactionBuilder builder, ProxyState state, List<String> nodePortIPs) {
    ExecutorService encoding = thread("nftables-load-encode-" + family);
    ExecutorService committing = thread("nftables-load-commit-" + family);
    Deque<Future<?>> inFlight = new ArrayDeque<>();
    try {
      builder.buildInPieces(state, nodePortIPs, PIECE_COMMANDS, piece -> {
        while (inFlight.size() >= AHEAD) {
          await(inFlight.removeFirst());
        }
        commands += piece.size();
        if (keepSent) {
          sent.append(piece);
        }
        inFlight.add(CompletableFuture.supplyAsync(() -> refused == null ? committer.prepare(piece) : null, encoding)
            .thenAcceptAsync(this::commit, committing));
      });
      while (!inFlight.isEmpty()) {
        await(inFlight.removeFirst());
      }
    } finally {
      encoding.shutdown();
      committing.shutdown();
    }
    if (refused == null) {
      Log.v(4).info("nftables: the first load went in pieces", "family", family, "transactions", pieces,
          "commands", commands);
      return sent;
    }
    Log.warn("nftables: the kernel refused a piece of the first load; sending the load as one transaction",
        "family", family, "committedPieces", pieces, "err", refused.getMessage());
    if (pieces > 0) {
      try {
        committer.apply(new Transaction().delete(new Table(null)));
      } catch (NftablesException e) {
        Log.error("nftables: cannot delete the partly loaded table; the load as one transaction replaces it",
            "family", family, "err", e.getMessage());
      }
    }
    return null;
  }

  private static ExecutorService thread(String name) {
    return Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, name);
      t.setDaemon(true);
      return t;
    });
  }

  /** On the committing thread: one piece, unless an earlier one was refused. */
  private void commit(Committer.Ready piece) {
    if (refused != null || piece == null) {
      return;
    }
    try {
      piece.apply();
      pieces++;
    } catch (NftablesException e) {
      refused = e;
    }
  }

  private static void await(Future<?> commit) {
    try {
      commit.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while the first load was committed", e);
    } catch (ExecutionException e) {
      throw e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e.getCause());
    }
  }
}
