package dev.kubeproxy.backend.nftables.netlink;

import static dev.kubeproxy.backend.nftables.netlink.NfTablesMessages.GETGEN;
import static dev.kubeproxy.backend.nftables.netlink.NfTablesMessages.NFNL_SUBSYS_NFTABLES;

import dev.kubeproxy.logging.Log;
import dev.kubeproxy.host.netlink.LibC;
import dev.kubeproxy.host.netlink.MessageWriter;
import dev.kubeproxy.host.netlink.NetlinkExchange;
import dev.kubeproxy.host.netlink.NetlinkMessage;
import dev.kubeproxy.host.netlink.NetlinkSocket;
import dev.kubeproxy.net.IpFamily;
import dev.kubeproxy.backend.nftables.objects.FormArena;
import dev.kubeproxy.backend.nftables.objects.NftablesException;
import dev.kubeproxy.backend.nftables.objects.TableVisitor;
import dev.kubeproxy.backend.nftables.objects.Transaction;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * Sends transactions to nf_tables over netlink directly, skipping the nft process, which spends
 * most of a small transaction's time reading every chain of the table back and a large one's
 * parsing its text. Full and partial syncs go this way when
 * {@link BatchEncoder} writes every command; anything else, and every transaction above
 * {@link #MAX_BATCH_BYTES}, is left to nft. The batch is one datagram and atomic, like nft's.
 *
 * <p>Answers: the kernel handles a batch within the send call and always reports errors; only the
 * last command asks for an acknowledgement, so a batch of thousands of commands gets one answer
 * instead of thousands (which overrun the receive buffer: ENOBUFS). A lost answer fails that sync only (the next one is a full sync); it never
 * switches the path off. Not thread-safe: one instance per family, used by that family's proxier
 * under its lock.
 */
public final class NetlinkNftables implements NetlinkPath, AutoCloseable {
  /** The largest batch sent in one datagram (the socket's send buffer is sized for it); larger ones go through nft. */
  static final int MAX_BATCH_BYTES = 64 << 20;
  private static final int RECEIVE_BUFFER_BYTES = 1 << 20;
  /** The kernel answers within the send call; waiting longer only guards against a lost answer. */
  private static final java.time.Duration ANSWER_TIMEOUT = java.time.Duration.ofSeconds(2);
  private static final int NLM_F_REQUEST = 1;
  /** errno values that mean the kernel did not understand a message: an encoding fault here. */
  private static final Set<Integer> PROTOCOL_ERRORS = Set.of(22, 34, 71, 90, 93, 95, 97);
  private static final int ENOENT = 2;
  private static final java.time.Duration PROTOCOL_ERROR_BACKOFF = java.time.Duration.ofMinutes(5);

  /** Attempts at reading the table while nobody else commits (a commit between the dumps makes them disagree). */
  private static final int READ_ATTEMPTS = 3;

  private final IpFamily family;
  private final NetlinkSocket socket;
  private final BatchEncoder encoder;
  private final TableDump dump;
  private final byte[] receiveBuffer = new byte[64 * 1024];
  private int nextSequence = (int) (System.currentTimeMillis() / 1000);
  /**
   * Sequence numbers of generation requests: a range of their own, far below the batches', since
   * the thread that sends a prepared batch reads generations while another encodes the next one.
   */
  private final AtomicInteger generationSequence = new AtomicInteger(1);
  /** System.nanoTime() before which every transaction goes through nft (after a protocol error). */
  private long disabledUntil = Long.MIN_VALUE;

  private NetlinkNftables(IpFamily family, NetlinkSocket socket) throws IOException {
    this.family = family;
    this.socket = socket;
    this.encoder = new BatchEncoder(family);
    this.dump = new TableDump(new NetlinkExchange(socket), Values.nfproto(family), new ElementCodec(family));
    socket.bufferSizes(MAX_BATCH_BYTES + (64 << 10), RECEIVE_BUFFER_BYTES);
    socket.receiveTimeout(ANSWER_TIMEOUT);
  }

  /**
   * Opens the netlink socket; null (after logging why) when that is impossible here, e.g. where
   * JNA's native library cannot be loaded. Then nft does everything, as before.
   *
   * @param netns a namespace under /var/run/netns (tests use scratch ones), or null for the agent's own
   */
  public static NetlinkNftables open(IpFamily family, String netns) {
    try {
      NetlinkSocket socket = NetlinkSocket.open(LibC.load(), LibC.NETLINK_NETFILTER, netns);
      try {
        return new NetlinkNftables(family, socket);
      } catch (IOException e) {
        socket.close();
        throw e;
      }
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
  @Override
  public boolean tryRun(Transaction tx) throws NftablesException {
    return prepare(tx).send();
  }

  /** Encodes now; the step sends (encoder and socket each used by one thread at a time). */
  @Override
  public Prepared prepare(Transaction tx) {
    if (disabled() || tx.isEmpty()) {
      return () -> false;
    }
    Batch batch;
    try {
      batch = encoder.encode(tx, nextSequence);
    } catch (Unsupported e) {
      return () -> false;
    }
    if (batch.bytes().limit() > MAX_BATCH_BYTES) {
      batch.release();
      return () -> false;
    }
    nextSequence += batch.commands().size() + 2;
    return () -> {
      try {
        send(batch, tx.size());
      } finally {
        batch.release(); // the kernel copied it within the send call
      }
      return true;
    };
  }

  private void send(Batch batch, int commands) throws NftablesException {
    try {
      socket.send(batch.bytes());
      awaitAnswers(batch);
    } catch (IOException e) {
      socket.drain(receiveBuffer); // whatever is still queued belongs to this batch
      Log.error("nftables: no complete answer to a netlink transaction; the next sync is a full one", "family",
          family, "commands", commands, "err", e.getMessage());
      throw new NftablesException("netlink: " + e.getMessage(), e);
    }
  }

  /**
   * Reads the answers: the acknowledgement of the last command, or errors (then everything else
   * queued, and the first error is reported). Answers to earlier batches are skipped by sequence.
   */
  private void awaitAnswers(Batch batch) throws IOException, NftablesException {
    int first = batch.firstSequence() - 1; // the batch-begin message
    int last = batch.firstSequence() + batch.commands().size() - 1;
    NetlinkMessage firstError = null;
    boolean acknowledged = false;
    while (!acknowledged) {
      int length = socket.receive(receiveBuffer, firstError == null);
      if (length < 0) {
        break; // after an error: the kernel sent all it will
      }
      for (NetlinkMessage m : NetlinkMessage.parse(receiveBuffer, length)) {
        if (m.type() != NetlinkMessage.NLMSG_ERROR || m.sequence() < first || m.sequence() > last + 1) {
          continue;
        }
        if (m.errno() != 0) {
          firstError = firstError == null ? m : firstError;
        } else if (m.sequence() == last && firstError == null) {
          acknowledged = true;
        }
      }
    }
    if (firstError != null) {
      throw failure(batch, firstError.errno(), firstError.sequence());
    }
  }

  private NftablesException failure(Batch batch, int errno, int sequence) {
    int index = sequence - batch.firstSequence();
    String command = null;
    if (index >= 0 && index < batch.commands().size()) {
      Transaction.Operation op = batch.commands().get(index);
      command = op.verb().word() + " " + op.object().render(op.verb(), family, true);
    }
    String text = "netlink: Error: Could not process rule: " + socket.errorText(errno)
        + (command == null ? " (the batch as a whole)" : "\nfailing command: " + command);
    if (PROTOCOL_ERRORS.contains(errno)) {
      // Perhaps an encoding fault here, perhaps a value the kernel refuses: nft takes every
      // transaction for a while, then netlink is tried again.
      disabledUntil = System.nanoTime() + PROTOCOL_ERROR_BACKOFF.toNanos();
      Log.error("nftables: the kernel did not accept a netlink message written here; using nft for a while",
          "family", family, "backoff", PROTOCOL_ERROR_BACKOFF, "err", text);
    }
    return new NftablesException(text, command, errno == ENOENT);
  }

  /**
   * nf_tables' generation number in this namespace (NFT_MSG_GETGEN), which every commit by anyone
   * moves on by one.
   */
  @Override
  public long generation() throws IOException {
    MessageWriter w = new MessageWriter();
    int seq = generationSequence.getAndIncrement();
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

  /**
   * Reads the table with nf_tables dumps; the dumps are several requests, so they are repeated when
   * the generation number moved while they ran (someone committed in between).
   */
  @Override
  public <V extends TableVisitor> Optional<V> read(Supplier<V> visitors) throws NftablesException {
    try {
      for (int attempt = 1; ; attempt++) {
        long before = generation();
        V visitor = visitors.get();
        boolean exists = dump.read(visitor);
        if (generation() == before) {
          return exists ? Optional.of(visitor) : Optional.empty();
        }
        if (attempt == READ_ATTEMPTS) {
          throw new NftablesException("netlink: the table kept changing while it was read (" + READ_ATTEMPTS
              + " attempts)", null, false);
        }
      }
    } catch (IOException e) {
      throw new NftablesException("netlink: cannot read table " + Transaction.familyKeyword(family) + " "
          + Transaction.TABLE + ": " + e.getMessage(), e);
    }
  }

  /** The chains and sets by two name dumps: no nft process at every full rewrite. */
  @Override
  public dev.kubeproxy.backend.nftables.objects.Nftables.TableContents contents() throws NftablesException {
    try {
      return dump.contents();
    } catch (IOException e) {
      throw new NftablesException("netlink: cannot list table " + Transaction.familyKeyword(family) + " "
          + Transaction.TABLE + ": " + e.getMessage(), e);
    }
  }

  @Override
  public String ruleForm(dev.kubeproxy.backend.nftables.objects.Rule rule) {
    try {
      return encoder.ruleForm(rule);
    } catch (Unsupported e) {
      return "unwritable: " + e.getMessage(); // equal to nothing read: the chain is rewritten (through nft)
    }
  }

  @Override
  public void keyForm(dev.kubeproxy.backend.nftables.objects.Element element, FormArena out) {
    try {
      encoder.keyForm(element).appendTo(out);
    } catch (Unsupported e) {
      out.append("unwritable: " + element.container() + " " + element.keyText());
    }
  }

  @Override
  public void elementForm(dev.kubeproxy.backend.nftables.objects.Element element, FormArena out) {
    try {
      encoder.elementForm(element).appendTo(out);
    } catch (Unsupported e) {
      out.append("unwritable: " + e.getMessage());
    }
  }

  @Override
  public dev.kubeproxy.backend.nftables.objects.Element decode(String container, boolean map, char[] forms, int start, int end) {
    return dump.decode(container, map, forms, start, end);
  }

  /** Whether a recent protocol-level failure has switched this path off for now. */
  public boolean disabled() {
    return disabledUntil != Long.MIN_VALUE && System.nanoTime() - disabledUntil < 0;
  }

  @Override
  public void close() {
    socket.close();
  }
}
