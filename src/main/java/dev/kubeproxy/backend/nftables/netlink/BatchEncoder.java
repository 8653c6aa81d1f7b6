package dev.kubeproxy.backend.nftables.netlink;

import static dev.kubeproxy.backend.nftables.netlink.NfTablesMessages.DELCHAIN;
import static dev.kubeproxy.backend.nftables.netlink.NfTablesMessages.DELRULE;
import static dev.kubeproxy.backend.nftables.netlink.NfTablesMessages.DELSET;
import static dev.kubeproxy.backend.nftables.netlink.NfTablesMessages.DELSETELEM;
import static dev.kubeproxy.backend.nftables.netlink.NfTablesMessages.DELTABLE;
import static dev.kubeproxy.backend.nftables.netlink.NfTablesMessages.NEWCHAIN;
import static dev.kubeproxy.backend.nftables.netlink.NfTablesMessages.NEWRULE;
import static dev.kubeproxy.backend.nftables.netlink.NfTablesMessages.NEWSET;
import static dev.kubeproxy.backend.nftables.netlink.NfTablesMessages.NEWSETELEM;
import static dev.kubeproxy.backend.nftables.netlink.NfTablesMessages.NEWTABLE;
import static dev.kubeproxy.backend.nftables.netlink.NfTablesMessages.NFNL_SUBSYS_NFTABLES;

import dev.kubeproxy.host.netlink.MessageWriter;
import dev.kubeproxy.net.IpFamily;
import dev.kubeproxy.backend.nftables.objects.Chain;
import dev.kubeproxy.backend.nftables.objects.Element;
import dev.kubeproxy.backend.nftables.objects.NftCounter;
import dev.kubeproxy.backend.nftables.objects.NftMap;
import dev.kubeproxy.backend.nftables.objects.NftObject;
import dev.kubeproxy.backend.nftables.objects.NftSet;
import dev.kubeproxy.backend.nftables.objects.Table;
import dev.kubeproxy.backend.nftables.objects.Rule;
import dev.kubeproxy.backend.nftables.objects.Transaction;
import dev.kubeproxy.backend.nftables.objects.Verdict;
import java.util.ArrayList;
import java.util.List;

/**
 * Turns a transaction into one nfnetlink batch (atomic, as "nft -f" is): one message per command,
 * plus the anonymous sets a rule needs just before it; errors are always answered, and only the
 * last message asks for an acknowledgement. Writes every command of full and partial syncs: the
 * table, base and regular chains, the declarations of the table's sets and maps, rules, elements,
 * flushes and deletions. What it does not know is {@link Unsupported} (the transaction then goes
 * through nft).
 */
final class BatchEncoder {
  /** A partial sync's batch fits; a full load's grows from it. */
  private static final int INITIAL_BATCH_BYTES = 64 << 10;

  private static final int BATCH_BEGIN = 0x10;
  private static final int BATCH_END = 0x11;

  private static final int NLM_F_REQUEST = 0x1;
  private static final int NLM_F_ACK = 0x4;
  private static final int NLM_F_EXCL = 0x200;
  private static final int NLM_F_CREATE = 0x400;
  private static final int NLM_F_APPEND = 0x800;

  private static final java.util.Map<String, Integer> HOOKS = java.util.Map.of(
      "prerouting", 0, "input", 1, "forward", 2, "output", 3, "postrouting", 4);

  private final int nfproto;
  private final RuleEncoder rules;
  private final ElementCodec elements;
  private final SetDeclarations sets;
  private final boolean v6;
  /** Where element and rule forms are written (this encoder's thread's: the reading thread has its own). */
  private final FormChars chars = new FormChars();
  private final RuleForm ruleForms = new RuleForm();
  /** Where a rule is written to compute its form. */
  private final MessageWriter ruleWriter = new MessageWriter(FORM_BUFFER);
  /**
   * The element whose key {@link #keyForm} encoded last, and that key: a resync asks for an
   * element's key form and then for its whole form.
   */
  private Element lastKeyed;
  private byte[] lastKey;
  /** Its range's end key (null: not in an interval map). */
  private byte[] lastEnd;
  /** The command of each message written so far (by sequence number - firstSequence). */
  private List<Transaction.Operation> commands;
  private int nextSetId;
  /** Whether the command being written is the batch's last: its own message asks for an acknowledgement. */
  private boolean lastCommand;

  BatchEncoder(IpFamily family) {
    this.nfproto = Values.nfproto(family);
    this.rules = new RuleEncoder(family);
    this.elements = new ElementCodec(family);
    this.sets = new SetDeclarations(family);
    this.v6 = family == IpFamily.IPv6;
  }

  Batch encode(Transaction tx, int firstSequence) throws Unsupported {
    MessageWriter w = MessageWriter.offHeap(INITIAL_BATCH_BYTES);
    try {
      return encodeAll(w, tx, firstSequence);
    } catch (Unsupported | RuntimeException e) {
      w.release();
      throw e;
    } finally {
      commands = null; // nothing of a batch stays once it is built (a full load's holds the whole table)
    }
  }

  private Batch encodeAll(MessageWriter w, Transaction tx, int firstSequence) throws Unsupported {
    commands = new ArrayList<>(tx.size());
    nextSetId = 1;
    w.endMessage(w.beginMessage(BATCH_BEGIN, NLM_F_REQUEST, firstSequence - 1, 0, NFNL_SUBSYS_NFTABLES));
    List<Transaction.Operation> ops = tx.operations();
    int i = 0;
    while (i < ops.size()) {
      Transaction.Operation op = ops.get(i);
      int end = i + 1;
      if (op.object() instanceof Element) {
        // Elements of one set in a row share messages (as nft sends them), each within netlink's
        // 64 KiB attribute limit.
        while (end < ops.size() && sameElementBatch(op, ops.get(end))) {
          end++;
        }
        lastCommand = end == ops.size();
        elements(w, ops.subList(i, end), firstSequence);
      } else {
        lastCommand = end == ops.size();
        command(w, op, firstSequence);
      }
      i = end;
    }
    w.endMessage(w.beginMessage(BATCH_END, NLM_F_REQUEST, firstSequence + commands.size(), 0, NFNL_SUBSYS_NFTABLES));
    return new Batch(w, firstSequence, List.copyOf(commands));
  }

  private void command(MessageWriter w, Transaction.Operation op, int firstSequence) throws Unsupported {
    Transaction.Verb verb = op.verb();
    boolean adds = verb.createsObject();
    int create = NLM_F_CREATE | (verb == Transaction.Verb.CREATE ? NLM_F_EXCL : 0);
    NftObject o = op.object();
    if (o instanceof Table t) {
      if (verb == Transaction.Verb.FLUSH) {
        throw new Unsupported("flush table");
      }
      int m = message(w, adds ? NEWTABLE : DELTABLE, adds ? create : 0, op, firstSequence);
      w.string(1, Transaction.TABLE); // NFTA_TABLE_NAME
      if (adds && t.comment() != null) {
        w.bytes(6, UserData.comment(t.comment())); // NFTA_TABLE_USERDATA
      }
      w.endMessage(m);
    } else if (o instanceof Chain c) {
      int type = switch (verb) {
        case ADD, CREATE -> NEWCHAIN;
        case FLUSH -> DELRULE;
        case DELETE -> DELCHAIN;
      };
      int m = message(w, type, adds ? create : 0, op, firstSequence);
      w.string(1, Transaction.TABLE); // NFTA_CHAIN_TABLE, NFTA_RULE_TABLE
      w.string(type == DELRULE ? 2 : 3, c.name()); // NFTA_RULE_CHAIN, NFTA_CHAIN_NAME
      if (adds && c.isBase()) {
        Integer hook = HOOKS.get(c.hook());
        if (hook == null || !(c.type().equals("nat") || c.type().equals("filter"))) {
          throw new Unsupported("chain " + c);
        }
        int h = w.beginNested(4); // NFTA_CHAIN_HOOK
        w.u32(1, hook); // NFTA_HOOK_HOOKNUM
        w.u32(2, c.priority()); // NFTA_HOOK_PRIORITY
        w.endNested(h);
        w.string(7, c.type()); // NFTA_CHAIN_TYPE
      }
      if (adds && c.comment() != null) {
        w.bytes(12, UserData.comment(c.comment())); // NFTA_CHAIN_USERDATA
      }
      w.endMessage(m);
    } else if (o instanceof Rule r) {
      RuleEncoder.Encoded encoded = rules.encode(r, () -> nextSetId++);
      for (RuleEncoder.Anonymous a : encoded.anonymous()) {
        anonymousSet(w, a, op, firstSequence);
      }
      int m = message(w, NEWRULE, NLM_F_CREATE | NLM_F_APPEND, op, firstSequence);
      w.string(1, Transaction.TABLE); // NFTA_RULE_TABLE
      w.string(2, r.chain()); // NFTA_RULE_CHAIN
      int list = w.beginNested(4); // NFTA_RULE_EXPRESSIONS
      encoded.expressions().forEach(e -> e.accept(w));
      w.endNested(list);
      if (r.comment() != null) {
        w.bytes(7, UserData.comment(r.comment())); // NFTA_RULE_USERDATA
      }
      w.endMessage(m);
    } else if (o instanceof NftSet || o instanceof NftMap) {
      String name = o instanceof NftSet s ? s.name() : ((NftMap) o).name();
      int type = switch (verb) {
        case ADD, CREATE -> NEWSET;
        case FLUSH -> DELSETELEM; // without elements: every element
        case DELETE -> DELSET;
      };
      int m = message(w, type, adds ? create : 0, op, firstSequence);
      w.string(1, Transaction.TABLE); // NFTA_SET_TABLE, NFTA_SET_ELEM_LIST_TABLE
      if (adds && o instanceof NftSet s) {
        sets.set(w, s);
        w.u32(10, nextSetId++); // NFTA_SET_ID, which the kernel requires
      } else if (adds) {
        sets.map(w, (NftMap) o);
        w.u32(10, nextSetId++);
      } else {
        w.string(2, name); // NFTA_SET_NAME, NFTA_SET_ELEM_LIST_SET
      }
      w.endMessage(m);
    } else if (o instanceof NftCounter c && verb != Transaction.Verb.FLUSH) {
      int m = message(w, adds ? CounterObjects.NEWOBJ : CounterObjects.DELOBJ, adds ? create : 0, op, firstSequence);
      CounterObjects.attributes(w, c, adds);
      w.endMessage(m);
    } else {
      throw new Unsupported(verb + " " + o);
    }
  }

  /** NEWSET and NEWSETELEM of an anonymous set, before the rule that looks it up. */
  private void anonymousSet(MessageWriter w, RuleEncoder.Anonymous a, Transaction.Operation op, int firstSequence)
      throws Unsupported {
    boolean addresses = a.addresses() != null;
    int count = addresses ? a.addresses().size() : a.chains().size();
    int m = anonymousMessage(w, NEWSET, op, firstSequence);
    w.string(1, Transaction.TABLE);
    if (addresses) {
      sets.anonymousAddresses(w, a.id(), count, a.source());
    } else {
      sets.anonymousNumgenVmap(w, a.id(), count);
    }
    w.endMessage(m);
    m = anonymousMessage(w, NEWSETELEM, op, firstSequence);
    w.string(1, Transaction.TABLE); // NFTA_SET_ELEM_LIST_TABLE
    w.string(2, addresses ? "__set%d" : "__map%d"); // NFTA_SET_ELEM_LIST_SET
    w.u32(4, a.id()); // NFTA_SET_ELEM_LIST_SET_ID
    int list = w.beginNested(3); // NFTA_SET_ELEM_LIST_ELEMENTS
    for (int i = 0; i < count; i++) {
      anonymousElement(w, a, i);
    }
    w.endNested(list);
    w.endMessage(m);
  }

  private static void anonymousElement(MessageWriter w, RuleEncoder.Anonymous a, int i) {
    int elem = w.beginNested(1); // NFTA_LIST_ELEM
    if (a.addresses() != null) {
      RuleEncoder.IntervalElement e = a.addresses().get(i);
      Expressions.value(w, 1, e.key()); // NFTA_SET_ELEM_KEY
      if (e.end()) {
        w.u32(3, 1); // NFTA_SET_ELEM_FLAGS: NFT_SET_ELEM_INTERVAL_END
      }
    } else {
      Expressions.value(w, 1, Values.hostInt(i));
      Expressions.verdictData(w, 2, Expressions.VERDICT_GOTO, a.chains().get(i)); // NFTA_SET_ELEM_DATA
    }
    w.endNested(elem);
  }

  /** The starting buffer size for writing one rule or element to compute its form. */
  private static final int FORM_BUFFER = 256;

  /** A rule in the form {@link TableDump} reads it back in ({@link RuleForm}). */
  String ruleForm(Rule r) throws Unsupported {
    int[] ids = {1};
    RuleEncoder.Encoded encoded = rules.encode(r, () -> ids[0]++);
    java.util.Map<String, String> anonymous = new java.util.HashMap<>();
    for (RuleEncoder.Anonymous a : encoded.anonymous()) {
      java.util.TreeSet<String> forms = new java.util.TreeSet<>();
      int count = a.addresses() != null ? a.addresses().size() : a.chains().size();
      for (int i = 0; i < count; i++) {
        MessageWriter w = ruleWriter.reset();
        anonymousElement(w, a, i);
        forms.add(ExpressionForms.read(w.buffer(), 4, w.size()).form(chars));
      }
      anonymous.put("#" + a.id(), forms.toString());
    }
    MessageWriter w = ruleWriter.reset();
    encoded.expressions().forEach(e -> e.accept(w));
    return ruleForms.of(w.buffer(), 0, w.size(), r.comment() == null ? null : UserData.comment(r.comment()),
        anonymous::get);
  }

  /**
   * An element (key, value, comment) in the form {@link TableDump} reads it back in, built from
   * its parts (no message written and parsed: a resync computes it for every element); valid
   * until the next form.
   */
  FormChars elementForm(Element e) throws Unsupported {
    boolean keyed = e == lastKeyed;
    if (keyed && !elements.isMap(e) && e.comment() == null && lastEnd == null) {
      return ExpressionForms.key(chars, lastKey, null); // a set's element without a comment is its key
    }
    byte[] key = keyed ? lastKey : elements.key(e);
    byte[] end = keyed ? lastEnd : elements.isInterval(e) ? elements.endKey(e) : null;
    byte[] value = null;
    boolean verdict = false;
    int code = 0;
    String chain = null;
    if (elements.isMap(e)) {
      if (elements.verdictValue(e)) {
        Verdict v = (Verdict) e.value();
        verdict = true;
        code = RuleEncoder.verdictCode(v.kind());
        chain = v.chain();
      } else {
        value = elements.value(e);
      }
    }
    return ExpressionForms.element(chars, key, value, verdict, code, chain, 0,
        e.comment() == null ? null : UserData.comment(e.comment()), end);
  }

  /** An element's key in the form {@link TableDump} reads it back in; valid until the next form. */
  FormChars keyForm(Element e) throws Unsupported {
    byte[] key = elements.key(e);
    byte[] end = elements.isInterval(e) ? elements.endKey(e) : null;
    lastKeyed = e;
    lastKey = key;
    lastEnd = end;
    return ExpressionForms.key(chars, key, end);
  }

  private static boolean sameElementBatch(Transaction.Operation first, Transaction.Operation op) {
    return first.object() instanceof Element a && op.object() instanceof Element b
        && first.verb() == op.verb() && a.container().equals(b.container());
  }

  /** Adds or deletes elements of one set or map: one message per ELEMENTS_PER_MESSAGE_BYTES. */
  private void elements(MessageWriter w, List<Transaction.Operation> ops, int firstSequence) throws Unsupported {
    Transaction.Verb verb = ops.get(0).verb();
    boolean adds = verb.createsObject();
    int flags = adds ? NLM_F_CREATE | (verb == Transaction.Verb.CREATE ? NLM_F_EXCL : 0) : 0;
    String container = ((Element) ops.get(0).object()).container();
    int i = 0;
    while (i < ops.size()) {
      boolean lastBatch = lastCommand;
      lastCommand = false; // decided below once the message's last element is known
      int start = w.size();
      int m = begin(w, adds ? NEWSETELEM : DELSETELEM, flags, ops.get(i), firstSequence);
      w.string(1, Transaction.TABLE); // NFTA_SET_ELEM_LIST_TABLE
      w.string(2, container); // NFTA_SET_ELEM_LIST_SET
      int list = w.beginNested(3); // NFTA_SET_ELEM_LIST_ELEMENTS
      while (i < ops.size() && w.size() - start < ELEMENTS_PER_MESSAGE_BYTES) {
        element(w, (Element) ops.get(i).object(), adds);
        i++;
      }
      w.endNested(list);
      w.endMessage(m);
      lastCommand = lastBatch;
      if (i == ops.size() && lastCommand) {
        ackLast(w, m);
      }
    }
  }

  /** Upper bound on the elements' bytes in one message (nested attributes hold at most 64 KiB). */
  private static final int ELEMENTS_PER_MESSAGE_BYTES = 48 << 10;

  /** An element; in an interval map its start element (with the value) and its end element. */
  private void element(MessageWriter w, Element e, boolean adds) throws Unsupported {
    start(w, e, adds);
    if (elements.isInterval(e)) {
      int elem = w.beginNested(1); // NFTA_LIST_ELEM
      Expressions.value(w, 1, elements.endKey(e)); // NFTA_SET_ELEM_KEY
      w.u32(3, 1); // NFTA_SET_ELEM_FLAGS: NFT_SET_ELEM_INTERVAL_END
      w.endNested(elem);
    }
  }

  private void start(MessageWriter w, Element e, boolean adds) throws Unsupported {
    byte[] key = elements.key(e);
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
      w.bytes(6, UserData.comment(e.comment())); // NFTA_SET_ELEM_USERDATA
    }
    w.endNested(elem);
  }

  /** Sets NLM_F_ACK on the message started at start (the batch's last). */
  private static void ackLast(MessageWriter w, int start) {
    w.orFlags(start, NLM_F_ACK);
  }

  /**
   * Starts the message of the command op (the last one written for it: only that of the batch's
   * last command asks for an acknowledgement); its sequence number maps back to op.
   */
  private int message(MessageWriter w, int type, int flags, Transaction.Operation op, int firstSequence) {
    return begin(w, type, flags | (lastCommand ? NLM_F_ACK : 0), op, firstSequence);
  }

  /** Starts a message that creates an anonymous set for the rule op, written before the rule's. */
  private int anonymousMessage(MessageWriter w, int type, Transaction.Operation op, int firstSequence) {
    return begin(w, type, NLM_F_CREATE, op, firstSequence);
  }

  private int begin(MessageWriter w, int type, int flags, Transaction.Operation op, int firstSequence) {
    int seq = firstSequence + commands.size();
    commands.add(op);
    return w.beginMessage(NFNL_SUBSYS_NFTABLES << 8 | type, NLM_F_REQUEST | flags, seq, nfproto, 0);
  }
}
