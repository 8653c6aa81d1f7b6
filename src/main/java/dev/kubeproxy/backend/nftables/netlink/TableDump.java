package dev.kubeproxy.backend.nftables.netlink;

import static dev.kubeproxy.backend.nftables.netlink.NfTablesMessages.GETCHAIN;
import static dev.kubeproxy.backend.nftables.netlink.NfTablesMessages.GETRULE;
import static dev.kubeproxy.backend.nftables.netlink.NfTablesMessages.GETSET;
import static dev.kubeproxy.backend.nftables.netlink.NfTablesMessages.GETSETELEM;
import static dev.kubeproxy.backend.nftables.netlink.NfTablesMessages.NFNL_SUBSYS_NFTABLES;

import dev.kubeproxy.host.netlink.Attributes;
import dev.kubeproxy.host.netlink.MessageWriter;
import dev.kubeproxy.host.netlink.NetlinkExchange;
import dev.kubeproxy.host.netlink.NetlinkMessage;
import dev.kubeproxy.backend.nftables.objects.Element;
import dev.kubeproxy.backend.nftables.objects.Nftables;
import dev.kubeproxy.backend.nftables.objects.TableVisitor;
import dev.kubeproxy.backend.nftables.objects.Transaction;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Reads the kube-proxy table of one family with nf_tables dumps (NFT_MSG_GETCHAIN, GETSET, GETRULE,
 * then GETSETELEM per set): chains with their rules in the forms of {@link ExpressionForms}, sets
 * and maps with their elements (by key form, from which {@link #decode} names one to delete it).
 * Anonymous sets are not containers of their own: their elements are part of the form of the
 * rule that looks them up.
 */
final class TableDump {
  private static final int NLM_F_REQUEST = 0x1;
  private static final int NLM_F_DUMP = 0x300;
  private static final int ENOENT = 2;
  private static final int NFT_SET_ANONYMOUS = 0x1;
  private static final int NFT_SET_INTERVAL = 0x4;
  private static final int NFT_SET_MAP = 0x8;
  private static final int NFT_SET_TIMEOUT = 0x10;
  private static final int NFT_SET_EVAL = 0x20;
  /** Ends the key form of a range's start element dumped without its end (no key form ends so). */
  private static final char UNENDED = '?';

  private final NetlinkExchange exchange;
  private final int nfproto;
  private final ElementCodec elements;
  /** Where this dump's element and rule forms are written (it runs on the reading thread). */
  private final FormChars chars = new FormChars();
  private final RuleForm ruleForms = new RuleForm();

  TableDump(NetlinkExchange exchange, int nfproto, ElementCodec elements) {
    this.exchange = exchange;
    this.nfproto = nfproto;
    this.elements = elements;
  }

  /**
   * Which chains and sets (maps and anonymous sets not included) exist: two dumps of names, no
   * rules or elements (what a full rewrite needs to remove an earlier table's leftovers).
   */
  Nftables.TableContents contents() throws IOException {
    Set<String> chains = new LinkedHashSet<>();
    Set<String> sets = new LinkedHashSet<>();
    try {
      dump(GETCHAIN, (buf, m) -> chains.add(Attributes.ofNetfilterMessage(buf, m, 12).string(3)));
      dump(GETSET, (buf, m) -> {
        Attributes a = Attributes.ofNetfilterMessage(buf, m, 13);
        if ((a.be32(3, 0) & (NFT_SET_ANONYMOUS | NFT_SET_MAP)) == 0) {
          sets.add(a.string(2));
        }
      });
    } catch (NetlinkExchange.NetlinkError e) {
      if (e.errno() == ENOENT) {
        return Nftables.TableContents.absent(); // no such table (the set dump says so)
      }
      throw e;
    }
    // A table of ours always holds base chains, so chains and sets tell whether it exists.
    return new Nftables.TableContents(!chains.isEmpty() || !sets.isEmpty(), chains, sets);
  }

  /**
   * Reads the table into visitor: chain names, then each set and map with its elements, then the
   * rules, each as it arrives (anonymous sets are held, as parts of the rules' forms).
   *
   * @return false when there is no table (nothing was visited then)
   */
  boolean read(TableVisitor visitor) throws IOException {
    List<String> chains = new ArrayList<>();
    dump(GETCHAIN, (buf, m) -> chains.add(Attributes.ofNetfilterMessage(buf, m, 12).string(3))); // NFTA_CHAIN_NAME
    if (chains.isEmpty()) {
      return false; // a table of ours always has its base chains
    }
    chains.forEach(visitor::chain);
    Map<String, Integer> setFlags = new LinkedHashMap<>();
    dump(GETSET, (buf, m) -> {
      Attributes a = Attributes.ofNetfilterMessage(buf, m, 13);
      setFlags.put(a.string(2), (int) a.be32(3, 0)); // NFTA_SET_NAME, NFTA_SET_FLAGS
    });
    Map<String, String> anonymous = new HashMap<>();
    for (Map.Entry<String, Integer> s : setFlags.entrySet()) {
      String name = s.getKey();
      int flags = s.getValue();
      boolean isMap = (flags & NFT_SET_MAP) != 0;
      if ((flags & NFT_SET_ANONYMOUS) != 0) {
        TreeSet<String> forms = new TreeSet<>();
        dumpElements(name, (buf, from, to) -> forms.add(ExpressionForms.read(buf, from, to).form(chars)));
        anonymous.put(name, forms.toString());
        continue;
      }
      visitor.container(name, isMap);
      if ((flags & (NFT_SET_EVAL | NFT_SET_TIMEOUT)) != 0) {
        visitor.endContainer(name); // affinity sets: filled by the packet path, not compared
        continue;
      }
      if ((flags & NFT_SET_INTERVAL) != 0) {
        List<ExpressionForms.Read> bounds = new ArrayList<>();
        dumpElements(name, (buf, from, to) -> bounds.add(ExpressionForms.read(buf, from, to)));
        ranges(bounds, visitor);
      } else {
        dumpElements(name, (buf, from, to) -> element(visitor, ExpressionForms.read(buf, from, to), null, false));
      }
      visitor.endContainer(name);
    }
    dump(GETRULE, (buf, m) -> {
      Attributes a = Attributes.ofNetfilterMessage(buf, m, 7);
      int[] expressions = range(buf, m, 4); // NFTA_RULE_EXPRESSIONS
      visitor.rule(a.string(2), ruleForms.of(buf, expressions[0], expressions[1], a.bytes(7), // NFTA_RULE_CHAIN
          set -> anonymous.getOrDefault(set, "?" + set)));
    });
    return true;
  }

  /**
   * Pairs the start and end elements of an interval map (the kernel dumps them separately, in no
   * useful order) into one element per range, in the forms the encoder gives; an end without a
   * start (nft's "nothing below the first range" marker) is no element, a start without an end is
   * one that cannot be decoded (the map is then refilled).
   */
  private void ranges(List<ExpressionForms.Read> bounds, TableVisitor visitor) {
    byte[] none = new byte[0];
    bounds.sort((a, b) -> {
      int c = java.util.Arrays.compareUnsigned(a.key() == null ? none : a.key(), b.key() == null ? none : b.key());
      return c != 0 ? c : Boolean.compare(!a.end(), !b.end()); // an end before a start at the same key
    });
    ExpressionForms.Read open = null; // a start element (an end counts by its key alone)
    for (ExpressionForms.Read b : bounds) {
      if (!b.end()) {
        if (open != null) {
          element(visitor, open, null, true);
        }
        open = b;
      } else if (open != null && open.key() != null && b.key() != null) {
        element(visitor, open, b.key(), false);
        open = null;
      }
    }
    if (open != null) {
      element(visitor, open, null, true);
    }
  }

  /**
   * Hands an element to visitor: its key form and its form written one after the other.
   *
   * @param rangeEnd the end key of the range a start element opens, or null
   * @param unended  a range's start without its end: its key form gets {@link #UNENDED}, so that it
   *                 names no element
   */
  private void element(TableVisitor visitor, ExpressionForms.Read r, byte[] rangeEnd, boolean unended) {
    ExpressionForms.appendKey(chars.clear(), r.key(), rangeEnd);
    if (unended) {
      chars.append(UNENDED);
    }
    int keyEnd = chars.length();
    r.appendTo(chars, rangeEnd);
    visitor.element(chars.chars(), 0, keyEnd, chars.length());
  }

  /**
   * The element whose key form, as visited, is forms[start, end) (one key, or a range's start and
   * end); null when it is not one this agent writes. Any thread: it uses nothing of the read.
   */
  Element decode(String set, boolean isMap, char[] forms, int start, int end) {
    byte[] key = FormChars.rawAt(forms, start, end);
    if (key == null || key.length == 0) {
      return null;
    }
    int at = start + 1 + key.length;
    if (at == end) {
      try {
        return new Element(set, isMap, elements.decodeKey(set, key), null, null);
      } catch (Unsupported e) {
        return null;
      }
    }
    byte[] rangeEnd = forms[at] == '-' ? FormChars.rawAt(forms, at + 1, end) : null; // else UNENDED
    if (rangeEnd == null || at + 2 + rangeEnd.length != end) {
      return null;
    }
    return new Element(set, isMap, List.of(ElementCodec.rangeText(key, rangeEnd)), null, null);
  }

  @FunctionalInterface
  private interface MessageHandler {
    void accept(byte[] buf, NetlinkMessage m) throws IOException;
  }

  @FunctionalInterface
  private interface ElementHandler {
    void accept(byte[] buf, int from, int to);
  }

  private void dump(int type, MessageHandler handler) throws IOException {
    MessageWriter w = new MessageWriter();
    int seq = exchange.nextSequence();
    int m = w.beginMessage(NFNL_SUBSYS_NFTABLES << 8 | type, NLM_F_REQUEST | NLM_F_DUMP, seq, nfproto, 0);
    w.string(1, Transaction.TABLE); // NFTA_*_TABLE: only this table
    w.endMessage(m);
    exchange.dump(w.toBytes(), seq, msg -> handler.accept(exchange.buffer(), msg));
  }

  private void dumpElements(String set, ElementHandler handler) throws IOException {
    MessageWriter w = new MessageWriter();
    int seq = exchange.nextSequence();
    int m = w.beginMessage(NFNL_SUBSYS_NFTABLES << 8 | GETSETELEM, NLM_F_REQUEST | NLM_F_DUMP, seq, nfproto, 0);
    w.string(1, Transaction.TABLE); // NFTA_SET_ELEM_LIST_TABLE
    w.string(2, set); // NFTA_SET_ELEM_LIST_SET
    w.endMessage(m);
    exchange.dump(w.toBytes(), seq, msg -> {
      byte[] buf = exchange.buffer();
      int[] list = range(buf, msg, 3); // NFTA_SET_ELEM_LIST_ELEMENTS
      java.nio.ByteBuffer in = java.nio.ByteBuffer.wrap(buf).order(java.nio.ByteOrder.nativeOrder());
      for (int at = list[0]; at + 4 <= list[1]; ) { // each NFTA_LIST_ELEM
        int len = in.getShort(at) & 0xffff;
        if (len < 4 || at + len > list[1]) {
          break;
        }
        handler.accept(buf, at + 4, at + len);
        at += (len + 3) & ~3;
      }
    });
  }

  /** Where the value of a top-level attribute of a netfilter message lies ({0, 0} when absent). */
  private static int[] range(byte[] buf, NetlinkMessage m, int type) {
    for (int[] a : children(buf, m.start() + 20, m.start() + m.length(), type)) {
      return a;
    }
    return new int[] {0, 0};
  }

  /** The values of the attributes in buf[from, to) (of one type, or all when type is -1). */
  private static List<int[]> children(byte[] buf, int from, int to, int type) {
    java.nio.ByteBuffer in = java.nio.ByteBuffer.wrap(buf).order(java.nio.ByteOrder.nativeOrder());
    List<int[]> out = new ArrayList<>();
    int at = from;
    while (at + 4 <= to) {
      int len = in.getShort(at) & 0xffff;
      int t = in.getShort(at + 2) & 0x3fff;
      if (len < 4 || at + len > to) {
        break;
      }
      if (type < 0 || t == type) {
        out.add(new int[] {at + 4, at + len});
      }
      at += (len + 3) & ~3;
    }
    return out;
  }
}
