package dev.kubeproxy.proxy.nftables.netlink;

import java.nio.ByteOrder;
import java.util.HexFormat;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * The normalized form in which a rule's expressions compare between what the encoder writes and
 * what the kernel dumps: each expression's name and attributes (sorted by type, nested ones
 * recursively), with the values the kernel fills in when they are not sent made explicit on both
 * sides (a lookup's flags 0, a nat's maximum registers equal to its minimum ones and its implied
 * range flags, a bitwise's boolean operation, a dynset's zero timeout and flags), and anonymous
 * sets replaced by their elements. Two rules with the same form do the same.
 */
final class ExpressionForms {
    private static final int TYPE_MASK = 0x3fff;
  private static final HexFormat HEX = HexFormat.of();
  private static final String ZERO32 = "00000000";
  private static final java.lang.invoke.VarHandle SHORT =
      java.lang.invoke.MethodHandles.byteArrayViewVarHandle(short[].class, ByteOrder.nativeOrder());

  private ExpressionForms() {}

  /**
   * The form of an NFTA_RULE_EXPRESSIONS payload and the rule's user data.
   *
   * @param anonymous an anonymous set's form by the name (or "#id" for one created in the same
   *                  batch) a lookup gives
   */
  static String rule(byte[] buf, int from, int to, byte[] userData, Function<String, String> anonymous) {
    StringBuilder sb = new StringBuilder();
    int[] list = attributes(buf, from, to);
    for (int e = 0; e < list.length; e += 3) { // NFTA_LIST_ELEM
      String name = null;
      int dataFrom = 0;
      int dataTo = 0;
      int[] expr = attributes(buf, list[e + 1], list[e + 2]);
      for (int i = 0; i < expr.length; i += 3) {
        if (expr[i] == 1) {
          name = string(buf, expr[i + 1], expr[i + 2]);
        } else if (expr[i] == 2) {
          dataFrom = expr[i + 1];
          dataTo = expr[i + 2];
        }
      }
      Map<Integer, String> attrs = new TreeMap<>();
      int[] data = attributes(buf, dataFrom, dataTo);
      for (int i = 0; i < data.length; i += 3) {
        int type = data[i];
        attrs.put(type, holdsData(name, type) ? data(buf, data[i + 1], data[i + 2])
            : HEX.formatHex(buf, data[i + 1], data[i + 2]));
      }
      normalize(name, attrs, anonymous);
      sb.append(name).append('{'); // as attrs.toString(), without the intermediate string
      String separator = "";
      for (Map.Entry<Integer, String> a : attrs.entrySet()) {
        sb.append(separator).append(a.getKey().intValue()).append('=').append(a.getValue());
        separator = ", ";
      }
      sb.append("};");
    }
    if (userData != null) {
      sb.append("userdata=").append(HEX.formatHex(userData));
    }
    return sb.toString();
  }

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

  /** Length, then one char per byte (nothing but the length 0 for null). */
  private static void raw(StringBuilder sb, byte[] bytes) {
    if (bytes == null) {
      sb.append((char) 0);
      return;
    }
    sb.append((char) bytes.length);
    for (byte b : bytes) {
      sb.append(SPREAD[b & 0xff]);
    }
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

  private static void normalize(String name, Map<Integer, String> attrs, Function<String, String> anonymous) {
    switch (name == null ? "" : name) {
      case "lookup" -> {
        if (ZERO32.equals(attrs.get(5))) {
          attrs.remove(5); // NFTA_LOOKUP_FLAGS
        }
        String set = attrs.get(1);
        String id = attrs.remove(4); // NFTA_LOOKUP_SET_ID
        String setName = set == null ? "" : stringOf(set);
        if (setName.startsWith("__set") || setName.startsWith("__map")) {
          String key = id != null && setName.contains("%d") ? "#" + Long.parseLong(id, 16) : setName;
          attrs.put(1, "anonymous" + anonymous.apply(key));
        } else {
          attrs.put(1, setName);
        }
      }
      case "nat" -> {
        if (attrs.containsKey(3) && attrs.get(3).equals(attrs.get(4))) {
          attrs.remove(4); // NFTA_NAT_REG_ADDR_MAX
        }
        if (attrs.containsKey(5) && attrs.get(5).equals(attrs.get(6))) {
          attrs.remove(6); // NFTA_NAT_REG_PROTO_MAX
        }
        long flags = attrs.containsKey(7) ? Long.parseLong(attrs.get(7), 16) : 0;
        flags |= (attrs.containsKey(3) ? 1 : 0) | (attrs.containsKey(5) ? 2 : 0); // MAP_IPS, PROTO_SPECIFIED
        attrs.put(7, String.format("%08x", flags));
      }
      case "bitwise" -> {
        if (ZERO32.equals(attrs.get(6))) {
          attrs.remove(6); // NFTA_BITWISE_OP: boolean
        }
      }
      case "dynset" -> {
        attrs.remove(2); // NFTA_DYNSET_SET_ID
        attrs.computeIfPresent(1, (k, v) -> stringOf(v)); // NFTA_DYNSET_SET_NAME
        if ("0000000000000000".equals(attrs.get(6))) {
          attrs.remove(6); // NFTA_DYNSET_TIMEOUT
        }
        if (ZERO32.equals(attrs.get(9))) {
          attrs.remove(9); // NFTA_DYNSET_FLAGS
        }
      }
      default -> { }
    }
  }

  /** Whether an expression's attribute is an nft_data (nested; the kernel dumps it without NLA_F_NESTED). */
  private static boolean holdsData(String expression, int type) {
    return switch (expression == null ? "" : expression) {
      case "cmp" -> type == 3; // NFTA_CMP_DATA
      case "immediate" -> type == 2; // NFTA_IMMEDIATE_DATA
      case "bitwise" -> type == 4 || type == 5; // NFTA_BITWISE_MASK, NFTA_BITWISE_XOR
      default -> false;
    };
  }

  /** An nft_data: a value (hex) or a verdict (code and chain). */
  private static String data(byte[] buf, int from, int to) {
    Map<Integer, String> inner = new TreeMap<>();
    int[] b = attributes(buf, from, to);
    for (int i = 0; i < b.length; i += 3) {
      if (b[i] == 2) { // NFTA_DATA_VERDICT
        Map<Integer, String> verdict = new TreeMap<>();
        int[] c = attributes(buf, b[i + 1], b[i + 2]);
        for (int j = 0; j < c.length; j += 3) {
          verdict.put(c[j], c[j] == 2 ? string(buf, c[j + 1], c[j + 2]) : HEX.formatHex(buf, c[j + 1], c[j + 2]));
        }
        inner.put(2, verdict.toString());
      } else {
        inner.put(b[i], HEX.formatHex(buf, b[i + 1], b[i + 2]));
      }
    }
    return inner.toString();
  }

  /**
   * The attributes in buf[from, to), three ints each: type (without the nested and byte-order
   * bits), start and end of the value. One array per level, not one per attribute: a read-back
   * at 10,000 Services walks millions of them.
   */
  private static int[] attributes(byte[] buf, int from, int to) {
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

  private static String string(byte[] buf, int from, int to) {
    int end = from;
    while (end < to && buf[end] != 0) {
      end++;
    }
    return new String(buf, from, end - from, java.nio.charset.StandardCharsets.UTF_8);
  }

  private static String stringOf(String hex) {
    byte[] raw = HEX.parseHex(hex);
    return string(raw, 0, raw.length);
  }
}
