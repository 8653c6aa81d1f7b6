package dev.kubeproxy.backend.nftables.netlink;

import dev.kubeproxy.host.netlink.MessageWriter;
import java.util.function.Consumer;

/**
 * nf_tables expressions as netlink attributes (linux/netfilter/nf_tables.h), each written as one
 * NFTA_LIST_ELEM of a rule's NFTA_RULE_EXPRESSIONS. Registers are numbered as the kernel does:
 * 0 the verdict register, 1–4 the 16-byte registers, 8–23 the 4-byte ones (9 = bytes 4–7 of 1).
 */
final class Expressions {
  private Expressions() {}

  static final int REG_VERDICT = 0;
  static final int REG_1 = 1;
  static final int REG_2 = 2;
  static final int REG32_00 = 8;
  static final int REG32_01 = 9;

  static final int PAYLOAD_NETWORK = 1;
  static final int PAYLOAD_TRANSPORT = 2;
  static final int CMP_EQ = 0;
  static final int CMP_NEQ = 1;
  static final int META_IIFNAME = 6;
  static final int META_L4PROTO = 16;
  static final int META_MARK = 3;
  static final int CT_STATE = 0;
  static final int CT_STATUS = 2;

  static final int VERDICT_DROP = 0;
  static final int VERDICT_ACCEPT = 1;
  static final int VERDICT_JUMP = -3;
  static final int VERDICT_GOTO = -4;
  static final int VERDICT_RETURN = -5;

  private static final int LIST_ELEM = 1;
  private static final int EXPR_NAME = 1;
  private static final int EXPR_DATA = 2;
  private static final int DATA_VALUE = 1;
  private static final int DATA_VERDICT = 2;
  private static final int VERDICT_CODE = 1;
  private static final int VERDICT_CHAIN = 2;

  /** One expression: its name and the attributes inside its NFTA_EXPR_DATA. */
  private static Consumer<MessageWriter> expr(String name, Consumer<MessageWriter> data) {
    return w -> {
      int elem = w.beginNested(LIST_ELEM);
      w.string(EXPR_NAME, name);
      int d = w.beginNested(EXPR_DATA);
      data.accept(w);
      w.endNested(d);
      w.endNested(elem);
    };
  }

  /**
   * The register number for the 4-byte unit {@code unit} from the start of register 1, as the
   * kernel dumps it: a 16-byte register where it starts one, else a 4-byte register.
   */
  static int register(int unit) {
    return unit % 4 == 0 ? REG_1 + unit / 4 : REG32_00 + unit;
  }

  static Consumer<MessageWriter> payload(int base, int offset, int length) {
    return payload(REG_1, base, offset, length);
  }

  static Consumer<MessageWriter> payload(int register, int base, int offset, int length) {
    return expr("payload", w -> {
      w.u32(1, register); // NFTA_PAYLOAD_DREG
      w.u32(2, base); // NFTA_PAYLOAD_BASE
      w.u32(3, offset); // NFTA_PAYLOAD_OFFSET
      w.u32(4, length); // NFTA_PAYLOAD_LEN
    });
  }

  static Consumer<MessageWriter> meta(int key) {
    return meta(REG_1, key);
  }

  static Consumer<MessageWriter> meta(int register, int key) {
    return expr("meta", w -> {
      w.u32(1, register); // NFTA_META_DREG
      w.u32(2, key); // NFTA_META_KEY
    });
  }

  /** Writes register 1 into the packet's meta key (e.g. the mark). */
  static Consumer<MessageWriter> metaSet(int key) {
    return expr("meta", w -> {
      w.u32(2, key); // NFTA_META_KEY
      w.u32(3, REG_1); // NFTA_META_SREG
    });
  }

  /** Loads a conntrack key into register 1. */
  static Consumer<MessageWriter> ct(int key) {
    return expr("ct", w -> {
      w.u32(1, REG_1); // NFTA_CT_DREG
      w.u32(2, key); // NFTA_CT_KEY
    });
  }

  /** "masquerade" with NF_NAT_RANGE_* flags. */
  static Consumer<MessageWriter> masquerade(int flags) {
    return expr("masq", w -> w.u32(1, flags)); // NFTA_MASQ_FLAGS
  }

  /** "counter name \"C\"": adds to a named counter object (NFT_OBJECT_COUNTER). */
  static Consumer<MessageWriter> counterRef(String counter) {
    return expr("objref", w -> {
      w.u32(1, 1); // NFTA_OBJREF_IMM_TYPE: NFT_OBJECT_COUNTER
      w.string(2, counter); // NFTA_OBJREF_IMM_NAME
    });
  }

  /** "reject": ICMP (type 0, NFT_REJECT_ICMP_UNREACH) with the given code. */
  static Consumer<MessageWriter> reject(int code) {
    return expr("reject", w -> {
      w.u32(1, 0); // NFTA_REJECT_TYPE
      w.bytes(2, new byte[] {(byte) code}); // NFTA_REJECT_ICMP_CODE (u8)
    });
  }

  /** "update @set { key }" with the key in register 1 (NFT_DYNSET_OP_UPDATE). */
  static Consumer<MessageWriter> dynsetUpdate(String set) {
    return expr("dynset", w -> {
      w.string(1, set); // NFTA_DYNSET_SET_NAME
      w.u32(3, 1); // NFTA_DYNSET_OP: NFT_DYNSET_OP_UPDATE
      w.u32(4, REG_1); // NFTA_DYNSET_SREG_KEY
    });
  }

  /** A set lookup keyed by register 1 (a match: no value loaded). */
  static Consumer<MessageWriter> lookupSet(String set) {
    return expr("lookup", w -> {
      w.string(1, set); // NFTA_LOOKUP_SET
      w.u32(2, REG_1); // NFTA_LOOKUP_SREG
    });
  }

  /** A lookup in an anonymous set of this batch; inverted: the key must not be in it. */
  static Consumer<MessageWriter> lookupAnonymousSet(int id, boolean inverted) {
    return expr("lookup", w -> {
      w.string(1, "__set%d"); // NFTA_LOOKUP_SET
      w.u32(4, id); // NFTA_LOOKUP_SET_ID
      w.u32(2, REG_1); // NFTA_LOOKUP_SREG
      if (inverted) {
        w.u32(5, 1); // NFTA_LOOKUP_FLAGS: NFT_LOOKUP_F_INV
      }
    });
  }

  /** A verdict lookup in an anonymous map of this batch. */
  static Consumer<MessageWriter> lookupAnonymousVerdictMap(int id) {
    return expr("lookup", w -> {
      w.string(1, "__map%d"); // NFTA_LOOKUP_SET
      w.u32(4, id); // NFTA_LOOKUP_SET_ID
      w.u32(2, REG_1); // NFTA_LOOKUP_SREG
      w.u32(3, REG_VERDICT); // NFTA_LOOKUP_DREG
    });
  }

  /** A verdict-map lookup keyed by register 1 ("vmap"). */
  static Consumer<MessageWriter> lookupVerdictMap(String set) {
    return expr("lookup", w -> {
      w.string(1, set); // NFTA_LOOKUP_SET
      w.u32(2, REG_1); // NFTA_LOOKUP_SREG
      w.u32(3, REG_VERDICT); // NFTA_LOOKUP_DREG
    });
  }

  static Consumer<MessageWriter> cmp(int op, byte[] value) {
    return expr("cmp", w -> {
      w.u32(1, REG_1); // NFTA_CMP_SREG
      w.u32(2, op); // NFTA_CMP_OP
      value(w, 3, value); // NFTA_CMP_DATA
    });
  }

  static Consumer<MessageWriter> bitwise(byte[] mask) {
    return bitwise(mask, new byte[mask.length]);
  }

  /** register 1 = (register 1 & mask) ^ xor. */
  static Consumer<MessageWriter> bitwise(byte[] mask, byte[] xor) {
    return expr("bitwise", w -> {
      w.u32(1, REG_1); // NFTA_BITWISE_SREG
      w.u32(2, REG_1); // NFTA_BITWISE_DREG
      w.u32(3, mask.length); // NFTA_BITWISE_LEN
      value(w, 4, mask); // NFTA_BITWISE_MASK
      value(w, 5, xor); // NFTA_BITWISE_XOR
    });
  }

  /** "fib saddr type" (source) or "fib daddr type" into register 1 (NFT_FIB_RESULT_ADDRTYPE). */
  static Consumer<MessageWriter> fibAddressType(boolean source) {
    return expr("fib", w -> {
      w.u32(1, REG_1); // NFTA_FIB_DREG
      w.u32(2, 3); // NFTA_FIB_RESULT: NFT_FIB_RESULT_ADDRTYPE
      w.u32(3, source ? 1 : 2); // NFTA_FIB_FLAGS: NFTA_FIB_F_SADDR or NFTA_FIB_F_DADDR
    });
  }

  static Consumer<MessageWriter> immediate(int register, byte[] value) {
    return expr("immediate", w -> {
      w.u32(1, register); // NFTA_IMMEDIATE_DREG
      value(w, 2, value); // NFTA_IMMEDIATE_DATA
    });
  }

  /** A verdict; chain is null for drop and accept. */
  static Consumer<MessageWriter> verdict(int code, String chain) {
    return expr("immediate", w -> {
      w.u32(1, REG_VERDICT);
      verdictData(w, 2, code, chain);
    });
  }

  static Consumer<MessageWriter> numgenRandom(int modulus, int offset) {
    return expr("numgen", w -> {
      w.u32(1, REG_1); // NFTA_NG_DREG
      w.u32(2, modulus); // NFTA_NG_MODULUS
      w.u32(3, 1); // NFTA_NG_TYPE: NFT_NG_RANDOM
      w.u32(4, offset); // NFTA_NG_OFFSET
    });
  }

  /** Register 1's 32-bit host-order value in network order (an interval map compares keys bytewise). */
  static Consumer<MessageWriter> hostToNetwork32() {
    return expr("byteorder", w -> {
      w.u32(1, REG_1); // NFTA_BYTEORDER_SREG
      w.u32(2, REG_1); // NFTA_BYTEORDER_DREG
      w.u32(3, 1); // NFTA_BYTEORDER_OP: NFT_BYTEORDER_HTON
      w.u32(4, 4); // NFTA_BYTEORDER_LEN
      w.u32(5, 4); // NFTA_BYTEORDER_SIZE
    });
  }

  /** A map lookup keyed by register 1 that loads the value into register 1. */
  static Consumer<MessageWriter> lookupMap(String set) {
    return expr("lookup", w -> {
      w.string(1, set); // NFTA_LOOKUP_SET
      w.u32(2, REG_1); // NFTA_LOOKUP_SREG
      w.u32(3, REG_1); // NFTA_LOOKUP_DREG
    });
  }

  /**
   * dnat to the address in register 1 and the port in protoRegister.
   *
   * @param flags NF_NAT_RANGE_* flags as nft sends them (2 = proto specified, for a fixed target)
   */
  static Consumer<MessageWriter> dnat(int nfproto, int protoRegister, int flags) {
    return expr("nat", w -> {
      w.u32(1, 1); // NFTA_NAT_TYPE: NFT_NAT_DNAT
      w.u32(2, nfproto); // NFTA_NAT_FAMILY
      w.u32(3, REG_1); // NFTA_NAT_REG_ADDR_MIN
      w.u32(5, protoRegister); // NFTA_NAT_REG_PROTO_MIN
      if (flags != 0) {
        w.u32(7, flags); // NFTA_NAT_FLAGS
      }
    });
  }

  /** An nft_data attribute holding a value. */
  static void value(MessageWriter w, int type, byte[] value) {
    int data = w.beginNested(type);
    w.bytes(DATA_VALUE, value);
    w.endNested(data);
  }

  /** An nft_data attribute holding a verdict. */
  static void verdictData(MessageWriter w, int type, int code, String chain) {
    int data = w.beginNested(type);
    int verdict = w.beginNested(DATA_VERDICT);
    w.u32(VERDICT_CODE, code);
    if (chain != null) {
      w.string(VERDICT_CHAIN, chain);
    }
    w.endNested(verdict);
    w.endNested(data);
  }
}
