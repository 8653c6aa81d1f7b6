package dev.kubeproxy.host.netlink;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The attributes (netlink TLVs) in one region of a received buffer, indexed by type for lookup.
 * Nested attributes are read with {@link #nested}. Integers of netfilter families are big-endian.
 * Only the last attribute of each type is kept, which is all the netfilter answers need.
 */
public final class Attributes {
  private static final int TYPE_MASK = 0x3fff; // without NLA_F_NESTED and NLA_F_NET_BYTEORDER

  private final byte[] buffer;
  private final int[] start;
  private final int[] length;

  private Attributes(byte[] buffer, int maxType) {
    this.buffer = buffer;
    this.start = new int[maxType + 1];
    this.length = new int[maxType + 1];
    Arrays.fill(start, -1);
  }

  /**
   * Reads the attributes in buffer[from, to).
   *
   * @param maxType the largest type kept; others are skipped
   */
  public static Attributes parse(byte[] buffer, int from, int to, int maxType) {
    Attributes a = new Attributes(buffer, maxType);
    ByteBuffer in = ByteBuffer.wrap(buffer).order(ByteOrder.nativeOrder());
    int at = from;
    while (at + 4 <= to) {
      int len = in.getShort(at) & 0xffff;
      int type = in.getShort(at + 2) & TYPE_MASK;
      if (len < 4 || at + len > to) {
        break; // a truncated attribute ends the list
      }
      if (type <= maxType) {
        a.start[type] = at + 4;
        a.length[type] = len - 4;
      }
      at += (len + 3) & ~3;
    }
    return a;
  }

  /** The attributes of a netfilter message (after its nlmsghdr and nfgenmsg). */
  public static Attributes ofNetfilterMessage(byte[] buffer, NetlinkMessage m, int maxType) {
    return parse(buffer, m.start() + 20, m.start() + m.length(), maxType);
  }

  /** The attributes of a generic netlink message (after its nlmsghdr and genlmsghdr). */
  public static Attributes ofGenericMessage(byte[] buffer, NetlinkMessage m, int maxType) {
    return parse(buffer, m.start() + 20, m.start() + m.length(), maxType);
  }

  public boolean has(int type) {
    return type < start.length && start[type] >= 0;
  }

  public Attributes nested(int type, int maxType) {
    if (!has(type)) {
      return parse(buffer, 0, 0, maxType);
    }
    return parse(buffer, start[type], start[type] + length[type], maxType);
  }

  public byte[] bytes(int type) {
    return has(type) ? Arrays.copyOfRange(buffer, start[type], start[type] + length[type]) : null;
  }

  /** A NUL-terminated string, or null. */
  public String string(int type) {
    if (!has(type)) {
      return null;
    }
    int end = start[type];
    while (end < start[type] + length[type] && buffer[end] != 0) {
      end++;
    }
    return new String(buffer, start[type], end - start[type], StandardCharsets.UTF_8);
  }

  public int u8(int type, int missing) {
    return has(type) && length[type] >= 1 ? buffer[start[type]] & 0xff : missing;
  }

  /** A big-endian 16-bit value, or missing. */
  public int be16(int type, int missing) {
    return has(type) && length[type] >= 2 ? ByteBuffer.wrap(buffer, start[type], 2).getShort() & 0xffff : missing;
  }

  /** A 16-bit value in host byte order, or missing. */
  public int hostU16(int type, int missing) {
    return has(type) && length[type] >= 2
        ? ByteBuffer.wrap(buffer, start[type], 2).order(ByteOrder.nativeOrder()).getShort() & 0xffff : missing;
  }

  /** A 32-bit value in host byte order, or missing. */
  public long hostU32(int type, long missing) {
    return has(type) && length[type] >= 4
        ? ByteBuffer.wrap(buffer, start[type], 4).order(ByteOrder.nativeOrder()).getInt() & 0xffffffffL : missing;
  }

  /** A big-endian 32-bit value, or missing. */
  public long be32(int type, long missing) {
    return has(type) && length[type] >= 4 ? ByteBuffer.wrap(buffer, start[type], 4).getInt() & 0xffffffffL : missing;
  }

  /** A big-endian 64-bit value, or missing. */
  public long be64(int type, long missing) {
    return has(type) && length[type] >= 8 ? ByteBuffer.wrap(buffer, start[type], 8).getLong() : missing;
  }
}
