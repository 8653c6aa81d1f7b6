package dev.kubeproxy.backend.nftables.netlink;

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
   * One element as dumped, read in one pass: its key's bytes (null when it has none), its
   * NFTA_SET_ELEM_FLAGS (an interval's end element has NFT_SET_ELEM_INTERVAL_END, 1) and the parts
   * of its form, built only when asked for (an interval's end element counts by its key alone).
   */
  record Read(byte[] key, byte[] value, boolean verdict, int code, String chain, int flags, byte[] userData) {
    /**
     * The form of the element as the kernel dumps it: key, data (a value, or a verdict's code and
     * chain), non-zero flags and user data; timeouts and expirations (the packet path's) are left
     * out. Built like the encoder's side ({@link ExpressionForms#element}).
     */
    String form(FormChars f) {
      return appendTo(f.clear(), null).done();
    }

    /** Whether this is an interval's end element (NFT_SET_ELEM_INTERVAL_END). */
    boolean end() {
      return flags == 1;
    }

    /**
     * Appends the form of the element to f; for a range's start element, of the range ending
     * before rangeEnd (the encoder's element form of a range), else rangeEnd is null.
     */
    FormChars appendTo(FormChars f, byte[] rangeEnd) {
      return appendElement(f, key, value, verdict, code, chain, flags, userData, rangeEnd);
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
   * @param value    a value's bytes, or null
   * @param verdict  whether the data is a verdict (code and chain, null for none)
   * @param rangeEnd the end key of an interval map's range (as {@link Read#appendTo}), or null
   */
  static FormChars element(FormChars f, byte[] key, byte[] value, boolean verdict, int code, String chain,
      int flags, byte[] userData, byte[] rangeEnd) {
    return appendElement(f.clear(), key, value, verdict, code, chain, flags, userData, rangeEnd);
  }

  private static FormChars appendElement(FormChars f, byte[] key, byte[] value, boolean verdict, int code,
      String chain, int flags, byte[] userData, byte[] rangeEnd) {
    f.raw(key);
    if (value != null) {
      f.append('v').raw(value);
    }
    if (verdict) {
      f.append('g').append((char) (code >>> 24)).append((char) (code >>> 16 & 0xff))
          .append((char) (code >>> 8 & 0xff)).append((char) (code & 0xff));
      if (chain != null) {
        f.append((char) chain.length()).append(chain);
      }
    }
    if (flags != 0) {
      f.append('f').append(Integer.toHexString(flags));
    }
    if (userData != null) {
      f.append('u').raw(userData);
    }
    return rangeEnd == null ? f : f.append('-').raw(rangeEnd);
  }

  /** The form of an element's key alone (with the end key of its range, or null). */
  static FormChars key(FormChars f, byte[] key, byte[] rangeEnd) {
    return appendKey(f.clear(), key, rangeEnd);
  }

  /** Appends that form to f. */
  static FormChars appendKey(FormChars f, byte[] key, byte[] rangeEnd) {
    f.raw(key);
    return rangeEnd == null ? f : f.append('-').raw(rangeEnd);
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
   * walks every attribute of every rule.
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
