package dev.kubeproxy.proxy.nftables.netlink;

import dev.kubeproxy.platform.netlink.MessageWriter;
import dev.kubeproxy.proxy.IpFamily;
import dev.kubeproxy.proxy.nftables.Chain;
import dev.kubeproxy.proxy.nftables.Element;
import dev.kubeproxy.proxy.nftables.NftMap;
import dev.kubeproxy.proxy.nftables.NftSet;
import dev.kubeproxy.proxy.nftables.Rule;
import dev.kubeproxy.proxy.nftables.Transaction;
import dev.kubeproxy.proxy.nftables.Verdict;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.function.Consumer;

/**
 * Turns a transaction into one nfnetlink batch (atomic, as "nft -f" is): one message per
 * command; errors are always answered, and only the last command asks for an acknowledgement. Writes what partial syncs send: regular chains
 * added, flushed and deleted, rules appended, elements of the shared sets and maps added and
 * deleted, sets deleted. Anything else (tables, base chains, set declarations, other rule shapes)
 * is {@link Unsupported}.
 */
final class BatchEncoder {
  /** The encoded batch, and the commands in the order of their sequence numbers. */
  record Batch(byte[] bytes, int firstSequence, List<Transaction.Operation> commands) {}

  private static final int NFNL_SUBSYS_NFTABLES = 10;
  private static final int BATCH_BEGIN = 0x10;
  private static final int BATCH_END = 0x11;
  private static final int NEWCHAIN = 3;
  private static final int DELCHAIN = 5;
  private static final int NEWRULE = 6;
  private static final int DELRULE = 8;
  private static final int DELSET = 11;
  private static final int NEWSETELEM = 12;
  private static final int DELSETELEM = 14;

  private static final int NLM_F_REQUEST = 0x1;
  private static final int NLM_F_ACK = 0x4;
  private static final int NLM_F_EXCL = 0x200;
  private static final int NLM_F_CREATE = 0x400;
  private static final int NLM_F_APPEND = 0x800;

  private final int nfproto;
  private final RuleEncoder rules;
  private final ElementCodec elements;
  /** Whether the message being written asks for an acknowledgement (the batch's last command). */
  private boolean ack;

  BatchEncoder(IpFamily family) {
    this.nfproto = Values.nfproto(family);
    this.rules = new RuleEncoder(family);
    this.elements = new ElementCodec(family);
  }

  Batch encode(Transaction tx, int firstSequence) throws Unsupported {
    MessageWriter w = new MessageWriter();
    int seq = firstSequence - 1;
    w.endMessage(w.beginMessage(BATCH_BEGIN, NLM_F_REQUEST, seq++, 0, NFNL_SUBSYS_NFTABLES));
    List<Transaction.Operation> ops = tx.operations();
    for (int i = 0; i < ops.size(); i++) {
      ack = i == ops.size() - 1;
      command(w, ops.get(i), seq++);
    }
    w.endMessage(w.beginMessage(BATCH_END, NLM_F_REQUEST, seq, 0, NFNL_SUBSYS_NFTABLES));
    return new Batch(w.toBytes(), firstSequence, tx.operations());
  }

  private void command(MessageWriter w, Transaction.Operation op, int seq) throws Unsupported {
    boolean adds = op.verb().createsObject();
    int create = NLM_F_CREATE | (op.verb() == Transaction.Verb.CREATE ? NLM_F_EXCL : 0);
    Transaction.Verb verb = op.verb();
    if (op.object() instanceof Chain c && !c.isBase() && c.comment() == null) {
      int type = switch (verb) {
        case ADD, CREATE -> NEWCHAIN;
        case FLUSH -> DELRULE;
        case DELETE -> DELCHAIN;
      };
      int m = message(w, type, adds ? create : 0, seq);
      w.string(1, Transaction.TABLE); // NFTA_CHAIN_TABLE, NFTA_RULE_TABLE
      w.string(type == DELRULE ? 2 : 3, c.name()); // NFTA_RULE_CHAIN, NFTA_CHAIN_NAME
      w.endMessage(m);
    } else if (op.object() instanceof Rule r) {
      List<Consumer<MessageWriter>> expressions = rules.encode(r);
      int m = message(w, NEWRULE, NLM_F_CREATE | NLM_F_APPEND, seq);
      w.string(1, Transaction.TABLE); // NFTA_RULE_TABLE
      w.string(2, r.chain()); // NFTA_RULE_CHAIN
      int list = w.beginNested(4); // NFTA_RULE_EXPRESSIONS
      expressions.forEach(e -> e.accept(w));
      w.endNested(list);
      if (r.comment() != null) {
        w.bytes(7, comment(r.comment())); // NFTA_RULE_USERDATA
      }
      w.endMessage(m);
    } else if (op.object() instanceof Element e && verb != Transaction.Verb.FLUSH) {
      element(w, e, adds, create, seq);
    } else if (op.object() instanceof NftSet s && verb == Transaction.Verb.DELETE) {
      deleteSet(w, s.name(), seq);
    } else if (op.object() instanceof NftMap m && verb == Transaction.Verb.DELETE) {
      deleteSet(w, m.name(), seq);
    } else {
      throw new Unsupported(verb + " " + op.object());
    }
  }

  private void element(MessageWriter w, Element e, boolean adds, int create, int seq) throws Unsupported {
    byte[] key = elements.key(e);
    int m = message(w, adds ? NEWSETELEM : DELSETELEM, adds ? create : 0, seq);
    w.string(1, Transaction.TABLE); // NFTA_SET_ELEM_LIST_TABLE
    w.string(2, e.container()); // NFTA_SET_ELEM_LIST_SET
    int list = w.beginNested(3); // NFTA_SET_ELEM_LIST_ELEMENTS
    int elem = w.beginNested(1); // NFTA_LIST_ELEM
    Expressions.value(w, 1, key); // NFTA_SET_ELEM_KEY
    if (adds && elements.isMap(e)) {
      if (elements.verdictValue(e)) {
        Verdict v = (Verdict) e.value();
        Expressions.verdictData(w, 2, RuleEncoder.verdictCode(v.kind()), v.chain()); // NFTA_SET_ELEM_DATA
      } else {
        Expressions.value(w, 2, elements.value(e)); // NFTA_SET_ELEM_DATA
      }
    }
    if (adds && e.comment() != null) {
      w.bytes(6, comment(e.comment())); // NFTA_SET_ELEM_USERDATA
    }
    w.endNested(elem);
    w.endNested(list);
    w.endMessage(m);
  }

  private void deleteSet(MessageWriter w, String name, int seq) {
    int m = message(w, DELSET, 0, seq);
    w.string(1, Transaction.TABLE); // NFTA_SET_TABLE
    w.string(2, name); // NFTA_SET_NAME
    w.endMessage(m);
  }

  private int message(MessageWriter w, int type, int flags, int seq) {
    return w.beginMessage(NFNL_SUBSYS_NFTABLES << 8 | type, NLM_F_REQUEST | (ack ? NLM_F_ACK : 0) | flags, seq,
        nfproto, 0);
  }

  /** A comment as nft stores it in user data: type 0 (comment), length, the text with its NUL. */
  private static byte[] comment(String text) throws Unsupported {
    byte[] raw = text.getBytes(StandardCharsets.UTF_8);
    if (raw.length + 1 > 255) {
      throw new Unsupported("comment longer than 254 bytes");
    }
    byte[] tlv = new byte[raw.length + 3];
    tlv[1] = (byte) (raw.length + 1);
    System.arraycopy(raw, 0, tlv, 2, raw.length);
    return tlv;
  }
}
