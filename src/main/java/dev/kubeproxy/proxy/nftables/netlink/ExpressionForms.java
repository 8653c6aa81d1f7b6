package dev.kubeproxy.proxy.nftables.netlink;

import java.nio.ByteOrder;

/**
 * The forms in which set and map elements compare between what the encoder writes and what the
 * kernel dumps (key, value or verdict, flags, user data), and the attribute walking they share
 * with {@link RuleForm}.
 */
final class ExpressionForms {
  private static final int TYPE_MASK = 0x3fff;
  private static final java.lang.invoke.VarHandle SHORT =
      java.lang.invoke.MethodHandles.byteArrayViewVarHandle(short[].class, ByteOrder.nativeOrder());

  private ExpressionForms() {}

  /**
   * The form of one set element as the kernel dumps it: key, data (a value, or a verdict's code
   * and chain), non-zero flags and user data; timeouts and expirations (the packet path's) are
   * left out. Built by {@link #element(byte[], byte[], boolean, int, String, int, byte[])} like the
   * encoder's side.
   */
  static String element(byte[] buf, int from, int to) {
    return read(buf, from, to).form();
  }

  /**
   * One element as dumped, read in one pass: its key's bytes (null when it has none), its
   * NFTA_SET_ELEM_FLAGS (an interval's end element has NFT_SET_ELEM_INTERVAL_END, 1) and the parts
   * of its form, built only when asked for (an interval's end element counts by its key alone).
   */
  record Read(byte[] key, byte[] value, boolean verdict, int code, String chain, int flags, byte[] userData) {
    String form() {
      return element(key, value, verdict, code, chain, flags, userData);
    }

    /** Whether this is an interval's end element (NFT_SET_ELEM_INTERVAL_END). */
    boolean end() {
      return flags == 1;
    }

    /** The form of the range this start element opens, ending before endKey (as {@link #range(String, byte[])} of {@link #form()}). */
    String rangeForm(byte[] endKey) {
      StringBuilder sb = new StringBuilder(64);
      appendElement(sb, key, value, verdict, code, chain, flags, userData);
      sb.append('-');
      raw(sb, endKey);
      return sb.toString();
    }

    /** The form of that range's key (as {@link #range(String, byte[])} of {@link #key(byte[])}). */
    String rangeKey(byte[] endKey) {
      StringBuilder sb = new StringBuilder(24);
      raw(sb, key);
      sb.append('-');
      raw(sb, endKey);
      return sb.toString();
    }
  }

  static Read read(byte[] buf, int from, int to) {
    byte[] key = null;
    byte[] value = null;
    byte[] userData = null;
    boolean verdict = false;
    int code = 0;
    String chain = null;
    int flags = 0;
    for (int at = from; at + 4 <= to; ) {
      int len = u16(buf, at);
      if (len < 4 || at + len > to) {
        break;
      }
      int type = u16(buf, at + 2) & TYPE_MASK;
      int vFrom = at + 4;
      int vTo = at + len;
      switch (type) {
        case 1 -> key = valueBytes(buf, vFrom, vTo); // NFTA_SET_ELEM_KEY
        case 2 -> { // NFTA_SET_ELEM_DATA
          int[] data = attributes(buf, vFrom, vTo);
          for (int i = 0; i < data.length; i += 3) {
            if (data[i] == 1) { // NFTA_DATA_VALUE
              value = java.util.Arrays.copyOfRange(buf, data[i + 1], data[i + 2]);
            } else if (data[i] == 2) { // NFTA_DATA_VERDICT
              verdict = true;
              int[] v = attributes(buf, data[i + 1], data[i + 2]);
              for (int j = 0; j < v.length; j += 3) {
                if (v[j] == 1 && v[j + 2] - v[j + 1] == 4) { // NFTA_VERDICT_CODE
                  code = be32(buf, v[j + 1]);
                } else if (v[j] == 2) { // NFTA_VERDICT_CHAIN
                  chain = string(buf, v[j + 1], v[j + 2]);
                }
              }
            }
          }
        }
        case 3 -> flags = len == 8 ? be32(buf, vFrom) : -1; // NFTA_SET_ELEM_FLAGS
        case 6 -> userData = java.util.Arrays.copyOfRange(buf, vFrom, vTo); // NFTA_SET_ELEM_USERDATA
        default -> { }
      }
      at += (len + 3) & ~3;
    }
    return new Read(key, value, verdict, code, chain, flags, userData);
  }

  /**
   * The form of an element from its parts: each length-prefixed, one char per byte (a compact
   * string that compares like the bytes; it is never printed).
   *
   * @param value   a value's bytes, or null
   * @param verdict whether the data is a verdict (code and chain, null for none)
   */
  static String element(byte[] key, byte[] value, boolean verdict, int code, String chain, int flags,
      byte[] userData) {
    StringBuilder sb = new StringBuilder(64);
    appendElement(sb, key, value, verdict, code, chain, flags, userData);
    return sb.toString();
  }

  private static void appendElement(StringBuilder sb, byte[] key, byte[] value, boolean verdict, int code,
      String chain, int flags, byte[] userData) {
    raw(sb, key);
    if (value != null) {
      sb.append('v');
      raw(sb, value);
    }
    if (verdict) {
      sb.append('g').append((char) (code >>> 24)).append((char) (code >>> 16 & 0xff))
          .append((char) (code >>> 8 & 0xff)).append((char) (code & 0xff));
      if (chain != null) {
        sb.append((char) chain.length()).append(chain);
      }
    }
    if (flags != 0) {
      sb.append('f').append(Integer.toHexString(flags));
    }
    if (userData != null) {
      sb.append('u');
      raw(sb, userData);
    }
  }

  /** The form of an element's key alone, as {@link #key(byte[], int, int)} reads it back. */
  static String key(byte[] key) {
    StringBuilder sb = new StringBuilder(24);
    raw(sb, key);
    return sb.toString();
  }

  /** The form of a range of an interval map: its start element's (or key's) form and its end key. */
  static String range(String startForm, byte[] endKey) {
    StringBuilder sb = new StringBuilder(startForm.length() + 8).append(startForm).append('-');
    raw(sb, endKey);
    return sb.toString();
  }

  /** The form of an element's key alone. */
  static String key(byte[] buf, int from, int to) {
    return key(read(buf, from, to).key());
  }

  /**
   * One char per byte value, spread over 16 bits: String's hash (a polynomial in 31) of the plain
   * bytes of addresses collides so often (a × 31 + b) that the maps of 100,000 keys turn their
   * buckets into trees.
   */
  private static final char[] SPREAD = new char[256];

  static {
    for (int b = 0; b < 256; b++) {
      SPREAD[b] = (char) ((b * 0x9E3779B1) >>> 16);
    }
  }

  /** Length, then one char per byte (nothing but the length 0 for null), appended at once. */
  private static void raw(StringBuilder sb, byte[] bytes) {
    if (bytes == null) {
      sb.append((char) 0);
      return;
    }
    char[] chars = new char[bytes.length + 1];
    chars[0] = (char) bytes.length;
    for (int i = 0; i < bytes.length; i++) {
      chars[i + 1] = SPREAD[bytes[i] & 0xff];
    }
    sb.append(chars);
  }

  /** An nft_data holding a value: its bytes, or null. */
  private static byte[] valueBytes(byte[] buf, int from, int to) {
    int[] a = attributes(buf, from, to);
    for (int i = 0; i < a.length; i += 3) {
      if (a[i] == 1) { // NFTA_DATA_VALUE
        return java.util.Arrays.copyOfRange(buf, a[i + 1], a[i + 2]);
      }
    }
    return null;
  }

  /**
   * The attributes in buf[from, to), three ints each: type (without the nested and byte-order
   * bits), start and end of the value. One array per level, not one per attribute: a read-back
   * at 10,000 Services walks millions of them.
   */
  static int[] attributes(byte[] buf, int from, int to) {
    int count = 0;
    int at = from;
    while (at + 4 <= to) {
      int len = u16(buf, at);
      if (len < 4 || at + len > to) {
        break;
      }
      count++;
      at += (len + 3) & ~3;
    }
    int[] out = new int[count * 3];
    at = from;
    for (int i = 0; i < out.length; i += 3) {
      int len = u16(buf, at);
      out[i] = u16(buf, at + 2) & TYPE_MASK;
      out[i + 1] = at + 4;
      out[i + 2] = at + len;
      at += (len + 3) & ~3;
    }
    return out;
  }

  /** A netlink attribute header field (host byte order). */
  private static int u16(byte[] buf, int at) {
    return (short) SHORT.get(buf, at) & 0xffff;
  }

  /** A netfilter integer (big-endian). */
  private static int be32(byte[] buf, int at) {
    return (buf[at] & 0xff) << 24 | (buf[at + 1] & 0xff) << 16 | (buf[at + 2] & 0xff) << 8 | (buf[at + 3] & 0xff);
  }

  static String string(byte[] buf, int from, int to) {
    int end = from;
    while (end < to && buf[end] != 0) {
      end++;
    }
    return new String(buf, from, end - from, java.nio.charset.StandardCharsets.UTF_8);
  }
}
