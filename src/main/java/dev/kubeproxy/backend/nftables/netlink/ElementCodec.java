package dev.kubeproxy.backend.nftables.netlink;

import dev.kubeproxy.net.IpAddresses;
import dev.kubeproxy.net.IpFamily;
import dev.kubeproxy.backend.nftables.objects.Element;
import dev.kubeproxy.backend.nftables.objects.ElementValue;
import dev.kubeproxy.backend.nftables.objects.Verdict;
import java.util.List;

/**
 * Keys and values of the elements of the kube-proxy table's shared sets and maps, as the kernel
 * stores them: the fields of a concatenation each padded to four bytes. Knows the layout of each
 * set and map by name (FixedRuleset declares them); elements of any other set are unsupported.
 * The endpoint-ranges shards are interval maps: an element "LO-HI" (or "K") is a start element
 * with the value and an end element at HI+1, keys big-endian (the rule converts numgen's result).
 */
final class ElementCodec {
  private enum Field { ADDRESS, PROTOCOL, PORT, NUMGEN }

  /** The key fields of a container, and its value fields (null: a set; empty: a verdict map). */
  private record Layout(Field[] key, Field[] value) {}

  private static final Field[] VERDICT = {};
  private static final Layout VERDICTS_BY_DESTINATION =
      new Layout(new Field[] {Field.ADDRESS, Field.PROTOCOL, Field.PORT}, VERDICT);
  private static final Layout VERDICTS_BY_NODEPORT = new Layout(new Field[] {Field.PROTOCOL, Field.PORT}, VERDICT);
  private static final Layout HAIRPIN =
      new Layout(new Field[] {Field.ADDRESS, Field.ADDRESS, Field.PROTOCOL, Field.PORT}, null);
  private static final Layout ADDRESSES = new Layout(new Field[] {Field.ADDRESS}, null);
  private static final Layout ENDPOINT_BY_DESTINATION =
      new Layout(new Field[] {Field.ADDRESS, Field.PROTOCOL, Field.PORT}, new Field[] {Field.ADDRESS, Field.PORT});
  private static final Layout ENDPOINT_RANGES =
      new Layout(new Field[] {Field.NUMGEN}, new Field[] {Field.ADDRESS, Field.PORT});

  private final IpFamily family;

  ElementCodec(IpFamily family) {
    this.family = family;
  }

  /** The container whose layout was looked up last, and that layout (a resync asks for it per element). */
  private record Cached(String container, Layout layout) {}

  private Cached last = new Cached("", null);

  private Layout layout(String container) throws Unsupported {
    Cached c = last; // one read: the reading thread decodes keys with this codec too
    if (c.container() != container) { // the elements of one set share its name's instance
      c = new Cached(container, layoutByName(container));
      last = c;
    }
    return c.layout();
  }

  private static Layout layoutByName(String container) throws Unsupported {
    if (interval(container)) {
      return ENDPOINT_RANGES;
    }
    return switch (container) {
      case "hairpin-connections" -> HAIRPIN;
      case "cluster-ips", "nodeport-ips" -> ADDRESSES;
      case "service-ips", "no-endpoint-services", "firewall-ips" -> VERDICTS_BY_DESTINATION;
      case "single-endpoint-services" -> ENDPOINT_BY_DESTINATION;
      case "service-nodeports", "no-endpoint-nodeports", "localhost-nodeport-reject-ports" -> VERDICTS_BY_NODEPORT;
      default -> throw new Unsupported("elements of " + container);
    };
  }

  byte[] key(Element e) throws Unsupported {
    Layout layout = layout(e.container());
    if (layout == ENDPOINT_RANGES) {
      parseRange(e);
      return bigEndian(rangeLow);
    }
    return encode(layout.key(), e.key());
  }

  /** Whether the element's container is an interval map (looked up like its layout, not by its name's prefix). */
  boolean isInterval(Element e) throws Unsupported {
    return layout(e.container()) == ENDPOINT_RANGES;
  }

  /** Whether the container's keys are ranges (each element a start and an end element). */
  private static boolean interval(String container) {
    return container.startsWith("endpoint-ranges-");
  }

  /** The key of the end element of a range: one past its last key. */
  byte[] endKey(Element e) throws Unsupported {
    parseRange(e);
    return bigEndian(rangeHigh + 1);
  }

  /** The first and last key of the range parsed last (no array for them: every endpoint's element has a range). */
  private long rangeLow;
  private long rangeHigh;

  /** Parses the range of an element of an interval map ("LO-HI", or "K") into rangeLow and rangeHigh. */
  private void parseRange(Element e) throws Unsupported {
    if (e.key().size() != 1) {
      throw new Unsupported("element " + e.key());
    }
    String text = e.key().get(0);
    int dash = text.indexOf('-');
    long lo = decimal(text, 0, dash < 0 ? text.length() : dash);
    long hi = dash < 0 ? lo : decimal(text, dash + 1, text.length());
    if (hi < lo) {
      throw new Unsupported("range " + text);
    }
    rangeLow = lo;
    rangeHigh = hi;
  }

  /** A decimal number in text[from, to), 0 to Integer.MAX_VALUE (no substring: every endpoint's element has two). */
  private static long decimal(String text, int from, int to) throws Unsupported {
    if (to - from < 1 || to - from > 10) {
      throw new Unsupported("not a number: " + text);
    }
    long v = 0;
    for (int i = from; i < to; i++) {
      char c = text.charAt(i);
      if (c < '0' || c > '9') {
        throw new Unsupported("not a number: " + text);
      }
      v = v * 10 + (c - '0');
    }
    if (v > Integer.MAX_VALUE) {
      throw new Unsupported("out of range: " + text);
    }
    return v;
  }

  /** The text of a range read back from its start and end keys (big-endian, end one past the last). */
  static String rangeText(byte[] start, byte[] end) {
    long lo = Integer.toUnsignedLong(java.nio.ByteBuffer.wrap(start).getInt());
    long hi = Integer.toUnsignedLong(java.nio.ByteBuffer.wrap(end).getInt()) - 1;
    return lo == hi ? Long.toString(lo) : lo + "-" + hi;
  }

  private static byte[] bigEndian(long value) {
    return new byte[] {(byte) (value >>> 24), (byte) (value >>> 16), (byte) (value >>> 8), (byte) value};
  }

  /** True when the element's container maps to verdicts ("goto x", "drop"). */
  boolean verdictValue(Element e) throws Unsupported {
    Field[] value = layout(e.container()).value();
    if (value == null || e.value() == null) {
      throw new Unsupported("element without the value its map needs: " + e);
    }
    if ((value.length == 0) != (e.value() instanceof Verdict)) {
      throw new Unsupported("element whose value does not fit its map: " + e);
    }
    return value.length == 0;
  }

  /** The data of an endpoint element: address . port, each padded to four bytes. */
  byte[] value(Element e) throws Unsupported {
    Layout layout = layout(e.container());
    boolean endpoints = layout == ENDPOINT_RANGES || layout == ENDPOINT_BY_DESTINATION;
    if (!(e.value() instanceof ElementValue.Target t) || !endpoints) {
      throw new Unsupported("element without an endpoint value: " + e);
    }
    if (t.port() < 0 || t.port() > 65535) {
      throw new Unsupported("out of range: port " + t.port());
    }
    int size = size(Field.ADDRESS);
    byte[] out = new byte[size + 4];
    address(t.address(), out, 0);
    port(t.port(), out, size);
    return out;
  }

  /** A port in network order. */
  private static void port(int port, byte[] out, int at) {
    out[at] = (byte) (port >> 8);
    out[at + 1] = (byte) port;
  }

  /** The address text parsed last, and its bytes: a hairpin element holds its endpoint's twice. */
  private String lastAddress;
  private final byte[] lastAddressBytes = new byte[16];

  private void address(String text, byte[] out, int at) throws Unsupported {
    int size = size(Field.ADDRESS);
    if (text != lastAddress) { // the same instance: the same address
      lastAddress = null; // until parsed: a failed parse leaves the bytes half written
      if (family == IpFamily.IPv6 || !IpAddresses.parseIPv4(text, lastAddressBytes, 0)) {
        System.arraycopy(Values.address(text, family), 0, lastAddressBytes, 0, size); // IPv6, or the error
      }
      lastAddress = text;
    }
    System.arraycopy(lastAddressBytes, 0, out, at, size);
  }

  boolean isMap(Element e) throws Unsupported {
    return layout(e.container()).value() != null;
  }

  /** The key parts of a key read back (to delete an element this agent does not want). */
  List<String> decodeKey(String container, byte[] key) throws Unsupported {
    Field[] fields = layout(container).key();
    List<String> parts = new java.util.ArrayList<>(fields.length);
    int at = 0;
    for (Field f : fields) {
      int size = size(f);
      if (at + size > key.length) {
        throw new Unsupported("key of " + container);
      }
      byte[] v = java.util.Arrays.copyOfRange(key, at, at + size);
      parts.add(switch (f) {
        case ADDRESS -> dev.kubeproxy.net.IpAddresses.format(v);
        case PROTOCOL -> Values.protocolName(v[0] & 0xff);
        case PORT -> Integer.toString((v[0] & 0xff) << 8 | (v[1] & 0xff));
        case NUMGEN -> Integer.toString(java.nio.ByteBuffer.wrap(v).order(java.nio.ByteOrder.nativeOrder()).getInt());
      });
      at += fields.length > 1 ? (size + 3) & ~3 : size;
    }
    return parts;
  }

  /** The fields written in place, each padded to four bytes in a concatenation (one array per key or value). */
  private byte[] encode(Field[] fields, List<String> parts) throws Unsupported {
    if (parts.size() != fields.length) {
      throw new Unsupported("element " + parts);
    }
    boolean concatenation = fields.length > 1;
    int size = 0;
    for (Field f : fields) {
      size += concatenation ? (size(f) + 3) & ~3 : size(f);
    }
    byte[] out = new byte[size];
    int at = 0;
    for (int i = 0; i < fields.length; i++) {
      String part = parts.get(i);
      Field f = fields[i];
      switch (f) {
        case ADDRESS -> address(part, out, at);
        case PROTOCOL -> out[at] = (byte) Values.protocolNumber(part);
        case PORT -> port(Values.number(part, 0, 65535), out, at);
        case NUMGEN -> System.arraycopy(Values.hostInt(Values.number(part, 0, Integer.MAX_VALUE)), 0, out, at, 4);
      }
      at += concatenation ? (size(f) + 3) & ~3 : size(f);
    }
    return out;
  }

  private int size(Field f) {
    return switch (f) {
      case ADDRESS -> family == IpFamily.IPv6 ? 16 : 4;
      case PROTOCOL -> 1;
      case PORT -> 2;
      case NUMGEN -> 4;
    };
  }
}
