package dev.kubeproxy.backend.nftables.netlink;

import java.util.function.Function;

/**
 * The normalized form in which a rule's expressions compare between what the encoder writes and
 * what the kernel dumps: each expression's name and attributes (sorted by type, nft_data values
 * recursively), with the values the kernel fills in when they are not sent made explicit on both
 * sides (a lookup's flags 0, a nat's maximum registers equal to its minimum ones and its implied
 * range flags, a bitwise's boolean operation, a dynset's zero timeout and flags), and anonymous
 * sets replaced by their elements' forms. Two rules with the same form do the same.
 *
 * <p>Values are written as they are, one char per byte after their length, and attribute types and
 * lengths as one char each (a compact string, never printed), into a buffer of this instance's: a
 * resync computes one per rule on each side, the reading thread with its instance and the syncing
 * thread with another.
 */
final class RuleForm {
  /** The expressions the encoder writes, by name: their names are not copied out of each rule. */
  private static final String[] NAMES = {"payload", "cmp", "meta", "lookup", "immediate", "nat", "numgen",
      "bitwise", "counter", "ct", "fib", "dynset", "masq", "reject", "limit", "log", "byteorder", "range"};
  private static final byte[][] NAME_BYTES = java.util.Arrays.stream(NAMES)
      .map(n -> n.getBytes(java.nio.charset.StandardCharsets.US_ASCII)).toArray(byte[][]::new);

  private final FormChars chars = new FormChars();

  /**
   * The form of an NFTA_RULE_EXPRESSIONS payload and the rule's user data.
   *
   * @param anonymous an anonymous set's form by the name (or "#id" for one created in the same
   *                  batch) a lookup gives
   */
  String of(byte[] buf, int from, int to, byte[] userData, Function<String, String> anonymous) {
    chars.clear();
    int[] list = ExpressionForms.attributes(buf, from, to);
    for (int e = 0; e < list.length; e += 3) { // NFTA_LIST_ELEM
      String name = "";
      int dataFrom = 0;
      int dataTo = 0;
      int[] expr = ExpressionForms.attributes(buf, list[e + 1], list[e + 2]);
      for (int i = 0; i < expr.length; i += 3) {
        if (expr[i] == 1) { // NFTA_EXPR_NAME
          name = name(buf, expr[i + 1], expr[i + 2]);
        } else if (expr[i] == 2) { // NFTA_EXPR_DATA
          dataFrom = expr[i + 1];
          dataTo = expr[i + 2];
        }
      }
      chars.append(name);
      chars.append('{');
      expression(buf, name, sortedByType(ExpressionForms.attributes(buf, dataFrom, dataTo)), anonymous);
      chars.append('}');
    }
    if (userData != null) {
      chars.append('u');
      chars.bytes(userData, 0, userData.length);
    }
    return chars.done();
  }

  /**
   * An expression's attributes in type order. A lookup's set and a nat's flags are always written
   * (at their place in that order), as they come out of normalizing.
   */
  private void expression(byte[] buf, String name, int[] attrs, Function<String, String> anonymous) {
    int implied = switch (name) {
      case "lookup" -> 1; // NFTA_LOOKUP_SET: by name, or the anonymous set's elements
      case "nat" -> 7; // NFTA_NAT_FLAGS
      default -> -1;
    };
    for (int i = 0; i < attrs.length; i += 3) {
      int type = attrs[i];
      if (i + 3 < attrs.length && attrs[i + 3] == type) {
        continue; // sent twice: the last one counts
      }
      if (implied >= 0 && implied <= type) {
        chars.append((char) implied);
        impliedValue(buf, name, attrs, anonymous);
        boolean replaced = implied == type;
        implied = -1;
        if (replaced) {
          continue;
        }
      }
      if (defaulted(name, type, buf, attrs, i)) {
        continue;
      }
      chars.append((char) type);
      int from = attrs[i + 1];
      int to = attrs[i + 2];
      if (holdsData(name, type)) {
        nested(buf, from, to, false); // an nft_data: a value, or a verdict (code and chain)
      } else if (name.equals("dynset") && type == 1) { // NFTA_DYNSET_SET_NAME
        text(ExpressionForms.string(buf, from, to));
      } else {
        chars.bytes(buf, from, to);
      }
    }
    if (implied >= 0) {
      chars.append((char) implied);
      impliedValue(buf, name, attrs, anonymous);
    }
  }

  /** A lookup's set or a nat's flags, as normalized. */
  private void impliedValue(byte[] buf, String name, int[] attrs, Function<String, String> anonymous) {
    if (name.equals("lookup")) {
      int set = find(attrs, 1);
      int id = find(attrs, 4); // NFTA_LOOKUP_SET_ID
      String setName = set < 0 ? "" : ExpressionForms.string(buf, attrs[set + 1], attrs[set + 2]);
      if (setName.startsWith("__set") || setName.startsWith("__map")) {
        String key = id >= 0 && setName.contains("%d") ? "#" + unsigned(buf, attrs[id + 1], attrs[id + 2]) : setName;
        chars.append('a');
        text(anonymous.apply(key));
      } else {
        text(setName);
      }
    } else { // nat: the range flags its registers imply (NF_NAT_RANGE_MAP_IPS, NF_NAT_RANGE_PROTO_SPECIFIED)
      int flags = find(attrs, 7);
      long value = flags < 0 ? 0 : unsigned(buf, attrs[flags + 1], attrs[flags + 2]);
      value |= (find(attrs, 3) >= 0 ? 1 : 0) | (find(attrs, 5) >= 0 ? 2 : 0);
      chars.append((char) (value >>> 16));
      chars.append((char) value);
    }
  }

  /** Whether the attribute at i holds what the kernel assumes when it is not sent (or is normalized away). */
  private static boolean defaulted(String name, int type, byte[] buf, int[] attrs, int i) {
    int from = attrs[i + 1];
    int to = attrs[i + 2];
    return switch (name) {
      case "lookup" -> type == 4 || type == 5 && zero(buf, from, to, 4); // the set's id; NFTA_LOOKUP_FLAGS
      case "nat" -> (type == 4 || type == 6) && sameAs(buf, attrs, type - 1, from, to); // max registers = min ones
      case "bitwise" -> type == 6 && zero(buf, from, to, 4); // NFTA_BITWISE_OP: boolean
      case "dynset" -> type == 2 || type == 6 && zero(buf, from, to, 8) || type == 9 && zero(buf, from, to, 4);
      default -> false;
    };
  }

  /** Whether an expression's attribute is an nft_data (nested; the kernel dumps it without NLA_F_NESTED). */
  private static boolean holdsData(String expression, int type) {
    return switch (expression) {
      case "cmp" -> type == 3; // NFTA_CMP_DATA
      case "immediate" -> type == 2; // NFTA_IMMEDIATE_DATA
      case "bitwise" -> type == 4 || type == 5; // NFTA_BITWISE_MASK, NFTA_BITWISE_XOR
      default -> false;
    };
  }

  /**
   * Nested attributes in type order, each written raw except an nft_data's NFTA_DATA_VERDICT
   * (nested again) and a verdict's NFTA_VERDICT_CHAIN (a name).
   */
  private void nested(byte[] buf, int from, int to, boolean verdict) {
    int[] attrs = sortedByType(ExpressionForms.attributes(buf, from, to));
    chars.append('{');
    for (int i = 0; i < attrs.length; i += 3) {
      if (i + 3 < attrs.length && attrs[i + 3] == attrs[i]) {
        continue; // sent twice: the last one counts
      }
      chars.append((char) attrs[i]);
      if (attrs[i] == 2 && !verdict) { // NFTA_DATA_VERDICT
        nested(buf, attrs[i + 1], attrs[i + 2], true);
      } else if (attrs[i] == 2) { // NFTA_VERDICT_CHAIN
        text(ExpressionForms.string(buf, attrs[i + 1], attrs[i + 2]));
      } else {
        chars.bytes(buf, attrs[i + 1], attrs[i + 2]);
      }
    }
    chars.append('}');
  }

  /** An NFTA_EXPR_NAME (NUL-terminated). */
  private static String name(byte[] buf, int from, int to) {
    int end = from;
    while (end < to && buf[end] != 0) {
      end++;
    }
    for (int i = 0; i < NAMES.length; i++) {
      if (java.util.Arrays.equals(buf, from, end, NAME_BYTES[i], 0, NAME_BYTES[i].length)) {
        return NAMES[i];
      }
    }
    return ExpressionForms.string(buf, from, to);
  }

  /** Attribute triples (type, from, to) in type order, stable (so a repeated type's last stays last). */
  private static int[] sortedByType(int[] a) {
    for (int i = 3; i < a.length; i += 3) {
      int type = a[i];
      int from = a[i + 1];
      int to = a[i + 2];
      int j = i - 3;
      while (j >= 0 && a[j] > type) {
        a[j + 3] = a[j];
        a[j + 4] = a[j + 1];
        a[j + 5] = a[j + 2];
        j -= 3;
      }
      a[j + 3] = type;
      a[j + 4] = from;
      a[j + 5] = to;
    }
    return a;
  }

  /** Where the last attribute of a type is in the triples, or -1. */
  private static int find(int[] attrs, int type) {
    for (int i = attrs.length - 3; i >= 0; i -= 3) {
      if (attrs[i] == type) {
        return i;
      }
    }
    return -1;
  }

  /** Whether the attribute of that type holds the same bytes as buf[from, to). */
  private static boolean sameAs(byte[] buf, int[] attrs, int type, int from, int to) {
    int other = find(attrs, type);
    return other >= 0 && java.util.Arrays.equals(buf, attrs[other + 1], attrs[other + 2], buf, from, to);
  }

  private static boolean zero(byte[] buf, int from, int to, int length) {
    if (to - from != length) {
      return false;
    }
    for (int i = from; i < to; i++) {
      if (buf[i] != 0) {
        return false;
      }
    }
    return true;
  }

  /** A big-endian unsigned number of at most eight bytes. */
  private static long unsigned(byte[] buf, int from, int to) {
    long v = 0;
    for (int i = from; i < to; i++) {
      v = v << 8 | (buf[i] & 0xff);
    }
    return v;
  }

  /** 's', length (two chars: an anonymous set's form may be longer than one holds), then the text. */
  private void text(String s) {
    chars.append('s').append((char) (s.length() >>> 16)).append((char) s.length()).append(s);
  }
}
