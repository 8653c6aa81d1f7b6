package dev.kubeproxy.backend.nftables.netlink;

import dev.kubeproxy.backend.nftables.objects.Transaction;
import dev.kubeproxy.host.netlink.MessageWriter;
import java.nio.ByteBuffer;
import java.util.List;

/**
 * An encoded transaction: its messages in native memory, and for each message from firstSequence
 * on the command it belongs to. {@link #release} frees the memory once the batch is sent or
 * dropped; a full load's pieces are megabytes each.
 */
record Batch(MessageWriter writer, int firstSequence, List<Transaction.Operation> commands) {
  /** The messages, from position 0. */
  ByteBuffer bytes() {
    return writer.written();
  }

  void release() {
    writer.release();
  }
}
