package dev.kubeproxy.backend.nftables.netlink;

import dev.kubeproxy.backend.nftables.objects.NftCounter;
import dev.kubeproxy.backend.nftables.objects.Transaction;
import dev.kubeproxy.host.netlink.MessageWriter;

/** The NEWOBJ / DELOBJ messages of a named counter ({@link NftCounter}). */
final class CounterObjects {
  static final int NEWOBJ = 18;
  static final int DELOBJ = 20;
  private static final int NFT_OBJECT_COUNTER = 1;

  private CounterObjects() {}

  /** The attributes after the message header; a new counter starts at zero. */
  static void attributes(MessageWriter w, NftCounter counter, boolean adds) {
    w.string(1, Transaction.TABLE); // NFTA_OBJ_TABLE
    w.string(2, counter.name()); // NFTA_OBJ_NAME
    w.u32(3, NFT_OBJECT_COUNTER); // NFTA_OBJ_TYPE
    if (adds) {
      // NFTA_OBJ_DATA is required; adding an existing counter keeps its counts (counters have no update).
      int data = w.beginNested(4);
      w.bytes(1, new byte[8]); // NFTA_COUNTER_BYTES
      w.bytes(2, new byte[8]); // NFTA_COUNTER_PACKETS
      w.endNested(data);
    }
  }
}
