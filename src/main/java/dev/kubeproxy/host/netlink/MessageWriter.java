package dev.kubeproxy.host.netlink;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Writes netlink messages: the nlmsghdr and nfgenmsg headers (host byte order) and attributes,
 * nested or not, each padded to four bytes. Integer attributes of nf_tables are big-endian.
 */
public final class MessageWriter {
  public static final int NLA_F_NESTED = 0x8000;
  private static final int HEADER = 16;

  private ByteBuffer buf;

  public MessageWriter() {
    this(4096);
  }

  /** A writer whose buffer starts at this size (it grows as needed). */
  public MessageWriter(int initialCapacity) {
    buf = ByteBuffer.allocate(initialCapacity).order(ByteOrder.nativeOrder());
  }

  private MessageWriter(ByteBuffer buf) {
    this.buf = buf;
  }

  /**
   * A writer into native memory, for a batch that may be tens of megabytes: the socket sends it as
   * it is, where a heap array would be copied once more for the call, and its growth leaves no
   * large arrays for the collector.
   */
  public static MessageWriter offHeap(int initialCapacity) {
    return new MessageWriter(ByteBuffer.allocateDirect(initialCapacity).order(ByteOrder.nativeOrder()));
  }

  /** Starts a message with its nfgenmsg; returns its start for {@link #endMessage}. */
  public int beginMessage(int type, int flags, int seq, int family, int resId) {
    int start = buf.position();
    ensure(HEADER + 4);
    buf.putInt(0).putShort((short) type).putShort((short) flags).putInt(seq).putInt(0);
    buf.put((byte) family).put((byte) 0).put((byte) (resId >> 8)).put((byte) resId); // res_id is big-endian
    return start;
  }

  /**
   * Starts a generic netlink message (family id as type) with its genlmsghdr: command, version, and
   * two reserved bytes; returns its start for {@link #endMessage}.
   */
  public int beginGenericMessage(int familyId, int flags, int seq, int command, int version) {
    int start = buf.position();
    ensure(HEADER + 4);
    buf.putInt(0).putShort((short) familyId).putShort((short) flags).putInt(seq).putInt(0);
    buf.put((byte) command).put((byte) version).putShort((short) 0);
    return start;
  }

  public void endMessage(int start) {
    buf.putInt(start, buf.position() - start);
  }

  /** Adds flags to the header of the message started at start (e.g. NLM_F_ACK once it is known to be the last). */
  public void orFlags(int start, int flags) {
    buf.putShort(start + 6, (short) (buf.getShort(start + 6) | flags));
  }

  public void bytes(int type, byte[] value) {
    header(type, value.length);
    buf.put(value);
    pad();
  }

  /** A NUL-terminated string attribute. */
  public void string(int type, String value) {
    byte[] raw = value.getBytes(StandardCharsets.UTF_8);
    bytes(type, Arrays.copyOf(raw, raw.length + 1));
  }

  /** A 32-bit big-endian integer attribute. */
  public void u32(int type, int value) {
    header(type, 4);
    buf.putInt(buf.order() == ByteOrder.BIG_ENDIAN ? value : Integer.reverseBytes(value));
  }

  /** A 16-bit integer attribute in host byte order (NLA_U16 of generic netlink families). */
  public void hostU16(int type, int value) {
    header(type, 2);
    buf.putShort((short) value);
    pad();
  }

  /** A 32-bit integer attribute in host byte order (NLA_U32 of generic netlink families). */
  public void hostU32(int type, int value) {
    header(type, 4);
    buf.putInt(value);
  }

  /** A 16-bit big-endian integer attribute (a port in network byte order). */
  public void be16(int type, int value) {
    header(type, 2);
    buf.putShort(buf.order() == ByteOrder.BIG_ENDIAN ? (short) value : Short.reverseBytes((short) value));
    pad();
  }

  /** An attribute's header, with room for its value (written in place: no array per integer). */
  private void header(int type, int valueLength) {
    ensure(align(4 + valueLength));
    buf.putShort((short) (4 + valueLength)).putShort((short) type);
  }

  /** Starts a nested attribute; returns its start for {@link #endNested}. */
  public int beginNested(int type) {
    int start = buf.position();
    ensure(4);
    buf.putShort((short) 0).putShort((short) (type | NLA_F_NESTED));
    return start;
  }

  public void endNested(int start) {
    buf.putShort(start, (short) (buf.position() - start));
  }

  public int size() {
    return buf.position();
  }

  /** Empties the writer for the next message (its buffer is kept). */
  public MessageWriter reset() {
    buf.clear();
    return this;
  }

  /** The buffer itself: what was written is its first {@link #size()} bytes, until the next write. */
  public byte[] buffer() {
    return buf.array();
  }

  public byte[] toBytes() {
    return Arrays.copyOf(buf.array(), buf.position());
  }

  /** What was written, as a buffer of its own from position 0 (sharing the writer's memory). */
  public ByteBuffer written() {
    return buf.duplicate().flip();
  }

  /**
   * Frees an off-heap writer's memory now; neither the writer nor what {@link #written} returned
   * may be used afterwards. A heap writer is left to the collector.
   */
  public void release() {
    DirectMemory.free(buf);
    buf = null;
  }

  private void pad() {
    while (buf.position() % 4 != 0) {
      buf.put((byte) 0);
    }
  }

  private static int align(int len) {
    return (len + 3) & ~3;
  }

  private void ensure(int more) {
    if (buf.remaining() < more) {
      int capacity = Math.max(buf.capacity() * 2, buf.position() + more);
      ByteBuffer bigger = (buf.isDirect() ? ByteBuffer.allocateDirect(capacity) : ByteBuffer.allocate(capacity))
          .order(ByteOrder.nativeOrder());
      buf.flip();
      bigger.put(buf);
      DirectMemory.free(buf);
      buf = bigger;
    }
  }
}
