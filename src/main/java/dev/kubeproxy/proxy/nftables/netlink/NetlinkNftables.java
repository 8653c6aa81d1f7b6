package dev.kubeproxy.proxy.nftables.netlink;

import dev.kubeproxy.logging.Log;
import dev.kubeproxy.platform.netlink.LibC;
import dev.kubeproxy.platform.netlink.MessageWriter;
import dev.kubeproxy.platform.netlink.NetlinkMessage;
import dev.kubeproxy.platform.netlink.NetlinkSocket;
import dev.kubeproxy.proxy.IpFamily;
import dev.kubeproxy.proxy.nftables.NftablesException;
import dev.kubeproxy.proxy.nftables.Transaction;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Set;

/**
 * Sends small transactions to nf_tables over netlink directly, skipping the nft process, which
 * spends most of a small transaction's time reading every chain of the table back (about 40 ms
 * at 10,000 Services). Only what {@link BatchEncoder} writes goes this way; everything else, and
 * every transaction above {@link #MAX_BATCH_BYTES}, is left to nft. The batch is atomic, like nft's.
 * Not thread-safe: one instance per family, used by that family's proxier under its lock.
 */
public final class NetlinkNftables implements AutoCloseable {
  /** Below the default socket send buffer; larger transactions go through nft. */
  static final int MAX_BATCH_BYTES = 128 * 1024;
  private static final int NFNL_SUBSYS_NFTABLES = 10;
  private static final int GETGEN = 16;
  private static final int NLM_F_REQUEST = 1;
  /** errno values that mean the kernel did not understand a message: an encoding fault here. */
  private static final Set<Integer> PROTOCOL_ERRORS = Set.of(22, 34, 71, 90, 93, 95, 97);
  private static final int ENOENT = 2;

  private final IpFamily family;
  private final NetlinkSocket socket;
  private final BatchEncoder encoder;
  private final byte[] receiveBuffer = new byte[64 * 1024];
  private int nextSequence = (int) (System.currentTimeMillis() / 1000);
  private boolean disabled;
  private long batches;
  private long nanos;

  private NetlinkNftables(IpFamily family, NetlinkSocket socket) {
    this.family = family;
    this.socket = socket;
    this.encoder = new BatchEncoder(family);
  }

  /**
   * Opens the netlink socket; null (after logging why) when that is impossible here, e.g. where
   * JNA's native library cannot be loaded. Then nft does everything, as before.
   *
   * @param netns a namespace under /var/run/netns (tests and benchmarks), or null for the agent's own
   */
  public static NetlinkNftables open(IpFamily family, String netns) {
    try {
      return new NetlinkNftables(family, NetlinkSocket.open(LibC.load(), LibC.NETLINK_NETFILTER, netns));
    } catch (IOException | LinkageError | RuntimeException e) {
      Log.info("nftables: no netlink socket to nf_tables; every transaction goes through nft", "family", family,
          "err", e.toString());
      return null;
    }
  }

  /**
   * Applies the transaction over netlink when every command of it can be written that way.
   *
   * @return false when it could not (nothing was sent): the caller runs nft instead
   * @throws NftablesException the kernel refused it; nothing of it was applied
   */
  public boolean tryRun(Transaction tx) throws NftablesException {
    if (disabled || tx.isEmpty()) {
      return false;
    }
    BatchEncoder.Batch batch;
    try {
      batch = encoder.encode(tx, nextSequence);
    } catch (Unsupported e) {
      return false;
    }
    if (batch.bytes().length > MAX_BATCH_BYTES) {
      return false;
    }
    nextSequence += tx.size() + 2;
    long start = System.nanoTime();
    try {
      socket.send(batch.bytes());
      awaitAcknowledgements(batch);
    } catch (IOException e) {
      disabled = true;
      Log.error("nftables: netlink transaction failed without an answer; using nft from now on", "family", family,
          "err", e.getMessage());
      throw new NftablesException("netlink: " + e.getMessage(), e);
    }
    batches++;
    nanos += System.nanoTime() - start;
    return true;
  }

  /** Reads one answer per command; on an error, reads what else is queued, then reports the first. */
  private void awaitAcknowledgements(BatchEncoder.Batch batch) throws IOException, NftablesException {
    int expected = batch.commands().size();
    int answered = 0;
    NetlinkMessage firstError = null;
    while (answered < expected) {
      int length = socket.receive(receiveBuffer, firstError == null);
      if (length < 0) {
        break; // after an error: the kernel sent all it will
      }
      for (NetlinkMessage m : NetlinkMessage.parse(receiveBuffer, length)) {
        int index = m.sequence() - batch.firstSequence();
        if (m.type() != NetlinkMessage.NLMSG_ERROR || index < -1 || index > expected) {
          continue; // not an answer to this batch (-1: the batch as a whole)
        }
        answered++;
        if (m.errno() != 0 && firstError == null) {
          firstError = m;
        }
      }
    }
    if (firstError != null) {
      throw failure(batch, firstError.errno(), firstError.sequence());
    }
  }

  private NftablesException failure(BatchEncoder.Batch batch, int errno, int sequence) {
    int index = sequence - batch.firstSequence();
    String command = null;
    if (index >= 0 && index < batch.commands().size()) {
      Transaction.Operation op = batch.commands().get(index);
      command = op.verb().word() + " " + op.object().render(op.verb(), Transaction.familyKeyword(family) + " "
          + Transaction.TABLE, true);
    }
    String text = "netlink: Error: Could not process rule: " + socket.errorText(errno)
        + (command == null ? " (the batch as a whole)" : "\nfailing command: " + command);
    if (PROTOCOL_ERRORS.contains(errno)) {
      disabled = true;
      Log.error("nftables: the kernel did not accept a netlink message written here; using nft from now on",
          "family", family, "err", text);
    }
    return new NftablesException(text, command, errno == ENOENT);
  }

  /**
   * nf_tables' generation number in this namespace (NFT_MSG_GETGEN), which every commit by anyone
   * moves on by one.
   */
  public long generation() throws IOException {
    MessageWriter w = new MessageWriter();
    int seq = nextSequence++;
    w.endMessage(w.beginMessage(NFNL_SUBSYS_NFTABLES << 8 | GETGEN, NLM_F_REQUEST, seq, 0, 0));
    socket.send(w.toBytes());
    ByteBuffer in = ByteBuffer.wrap(receiveBuffer).order(ByteOrder.nativeOrder()); // attribute headers
    while (true) {
      for (NetlinkMessage m : NetlinkMessage.parse(receiveBuffer, socket.receive(receiveBuffer, true))) {
        if (m.sequence() != seq) {
          continue;
        }
        if (m.type() == NetlinkMessage.NLMSG_ERROR) {
          throw new IOException("GETGEN: " + socket.errorText(m.errno()));
        }
        for (int a = m.start() + 20; a + 8 <= m.start() + m.length(); ) { // attributes after nfgenmsg
          int attrLength = in.getShort(a) & 0xffff;
          if ((in.getShort(a + 2) & 0x7fff) == 1 && attrLength == 8) { // NFTA_GEN_ID, a big-endian value
            return Integer.toUnsignedLong(ByteBuffer.wrap(receiveBuffer, a + 4, 4).getInt());
          }
          a += Math.max(4, (attrLength + 3) & ~3);
        }
        throw new IOException("GETGEN answer without a generation id");
      }
    }
  }

  /** Batches applied over netlink so far. */
  public long batches() {
    return batches;
  }

  /** Time spent sending them and waiting for the kernel's answers. */
  public long nanos() {
    return nanos;
  }

  /** Whether a protocol-level failure has switched this path off for good. */
  public boolean disabled() {
    return disabled;
  }

  @Override
  public void close() {
    socket.close();
  }
}
