package dev.kubeproxy.platform.netlink;

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

  /** Starts a message with its nfgenmsg; returns its start for {@link #endMessage}. */
  public int beginMessage(int type, int flags, int seq, int family, int resId) {
    int start = buf.position();
    ensure(HEADER + 4);
    buf.putInt(0).putShort((short) type).putShort((short) flags).putInt(seq).putInt(0);
    buf.put((byte) family).put((byte) 0).put((byte) (resId >> 8)).put((byte) resId); // res_id is big-endian
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
    int len = 4 + value.length;
    ensure(align(len));
    buf.putShort((short) len).putShort((short) type).put(value);
    pad();
  }

  /** A NUL-terminated string attribute. */
  public void string(int type, String value) {
    byte[] raw = value.getBytes(StandardCharsets.UTF_8);
    bytes(type, Arrays.copyOf(raw, raw.length + 1));
  }

  /** A 32-bit big-endian integer attribute. */
  public void u32(int type, int value) {
    bytes(type, ByteBuffer.allocate(4).putInt(value).array());
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

  public byte[] toBytes() {
    return Arrays.copyOf(buf.array(), buf.position());
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
      ByteBuffer bigger = ByteBuffer.allocate(Math.max(buf.capacity() * 2, buf.position() + more))
          .order(ByteOrder.nativeOrder());
      buf.flip();
      bigger.put(buf);
      buf = bigger;
    }
  }
}
