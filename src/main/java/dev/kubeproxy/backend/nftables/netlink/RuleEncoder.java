package dev.kubeproxy.backend.nftables.netlink;

import static dev.kubeproxy.backend.nftables.netlink.Expressions.*;

import dev.kubeproxy.net.Cidr;
import dev.kubeproxy.host.netlink.MessageWriter;
import dev.kubeproxy.net.IpFamily;
import dev.kubeproxy.backend.nftables.objects.Match;
import dev.kubeproxy.backend.nftables.objects.Rule;
import dev.kubeproxy.backend.nftables.objects.Statement;
import dev.kubeproxy.backend.nftables.objects.Verdict;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;

/**
 * Writes a typed {@link Rule} as the expressions nft 1.0 generates for the same rule text (checked
 * against "nft --debug=netlink" and, in the kernel tests, by listing tables written both ways).
 * Registers are numbered as the kernel dumps them, so that a rule read back compares equal.
 * Matches and statements that need an anonymous set are {@link Unsupported} here; such rules go
 * through nft.
 */
final class RuleEncoder {
  private static final int IFNAMSIZ = 16;
  private static final int RTN_LOCAL = 2;
  private static final int CT_STATE_NEW = 1 << 3; // NF_CT_STATE_BIT(IP_CT_NEW)
  private static final int IPS_DST_NAT = 1 << 5;
  private static final int NF_NAT_RANGE_PROTO_RANDOM_FULLY = 1 << 4;

  private final IpFamily family;
  private final boolean v6;
  /** The size of an address in 4-byte register units. */
  private final int addressUnits;

  RuleEncoder(IpFamily family) {
    this.family = family;
    this.v6 = family == IpFamily.IPv6;
    this.addressUnits = v6 ? 4 : 1;
  }

  /**
   * An anonymous set or map a rule needs, created in the same batch just before it.
   *
   * @param addresses the interval set's elements (start, end+1 pairs as nft sends them), or null
   * @param chains    the numgen vmap's goto targets, or null
   * @param source    for an address set: matched against the source address
   */
  record Anonymous(int id, List<IntervalElement> addresses, List<String> chains, boolean source) {}

  /** One element of an interval set: a start, or the end (exclusive) of a range. */
  record IntervalElement(byte[] key, boolean end) {}

  /** The expressions of a rule and the anonymous sets they use. */
  record Encoded(List<Consumer<MessageWriter>> expressions, List<Anonymous> anonymous) {}

  private java.util.function.IntSupplier setIds;
  private List<Anonymous> anonymous;

  /** @param setIds hands out the batch's set ids for the anonymous sets the rule needs */
  Encoded encode(Rule rule, java.util.function.IntSupplier setIds) throws Unsupported {
    this.setIds = setIds;
    this.anonymous = new ArrayList<>(0);
    List<Consumer<MessageWriter>> out = new ArrayList<>(8);
    for (Match m : rule.matches()) {
      match(out, m);
    }
    statement(out, rule.statement(), rule.matches());
    return new Encoded(out, anonymous);
  }

  private void match(List<Consumer<MessageWriter>> out, Match m) throws Unsupported {
    if (m instanceof Match.Address a) {
      addressMatch(out, a.field() == Match.Field.SOURCE, a.negated(), a.prefix());
    } else if (m instanceof Match.AddressInSet a) {
      out.add(payload(PAYLOAD_NETWORK, addressOffset(a.field() == Match.Field.SOURCE), addressBytes()));
      out.add(lookupSet(a.set()));
    } else if (m instanceof Match.DestinationPort p) {
      out.add(meta(META_L4PROTO));
      out.add(cmp(CMP_EQ, Values.protocol(p.protocol())));
      out.add(payload(PAYLOAD_TRANSPORT, 2, 2));
      out.add(cmp(CMP_EQ, Values.port(p.port())));
    } else if (m instanceof Match.Protocol p) {
      out.add(meta(META_L4PROTO));
      out.add(cmp(CMP_EQ, Values.protocol(p.protocol())));
    } else if (m instanceof Match.InterfaceName i) {
      out.add(meta(META_IIFNAME));
      out.add(cmp(i.negated() ? CMP_NEQ : CMP_EQ, interfaceName(i.name())));
    } else if (m instanceof Match.LocalAddress l) {
      out.add(fibAddressType(l.field() == Match.Field.SOURCE));
      out.add(cmp(CMP_EQ, Values.hostInt(RTN_LOCAL)));
    } else if (m instanceof Match.NewConnection) {
      bitsSet(out, ct(CT_STATE), CT_STATE_NEW);
    } else if (m instanceof Match.DestinationNatted) {
      bitsSet(out, ct(CT_STATUS), IPS_DST_NAT);
    } else if (m instanceof Match.MarkUnset u) {
      out.add(meta(META_MARK));
      out.add(bitwise(Values.hostInt(Values.mark(u.mark())), new byte[4]));
      out.add(cmp(CMP_EQ, new byte[4]));
    } else if (m instanceof Match.TupleInSet t) {
      int unit = 0;
      out.add(payload(register(unit), PAYLOAD_NETWORK, addressOffset(true), addressBytes()));
      unit += addressUnits;
      out.add(payload(register(unit), PAYLOAD_NETWORK, addressOffset(false), addressBytes()));
      unit += addressUnits;
      out.add(meta(register(unit), META_L4PROTO));
      out.add(payload(register(unit + 1), PAYLOAD_TRANSPORT, 2, 2));
      out.add(lookupSet(t.set()));
    } else if (m instanceof Match.DestinationInSet d) {
      destinationKey(out);
      out.add(lookupSet(d.set()));
    } else if (m instanceof Match.AddressIn a) {
      boolean source = a.field() == Match.Field.SOURCE;
      if (a.prefixes().size() == 1) { // nft writes a one-element set as a plain match
        addressMatch(out, source, a.negated(), a.prefixes().get(0));
        return;
      }
      List<IntervalElement> elements = intervals(a.prefixes());
      int id = setIds.getAsInt();
      anonymous.add(new Anonymous(id, elements, null, source));
      out.add(payload(PAYLOAD_NETWORK, addressOffset(source), addressBytes()));
      out.add(lookupAnonymousSet(id, a.negated()));
    } else {
      throw new Unsupported("match " + m);
    }
  }

  private void statement(List<Consumer<MessageWriter>> out, Statement s, List<Match> matches) throws Unsupported {
    if (s instanceof Verdict v) {
      out.add(verdict(verdictCode(v.kind()), v.chain()));
    } else if (s instanceof Statement.Reject) {
      out.add(reject(v6 ? 4 : 3)); // ICMP(v6) port unreachable
    } else if (s instanceof Statement.CountedReject c) {
      out.add(counterRef(c.counter()));
      out.add(reject(v6 ? 4 : 3));
    } else if (s instanceof Statement.Dnat d) {
      requireProtocol(matches, s);
      out.add(immediate(REG_1, Values.address(d.address(), family)));
      out.add(immediate(REG_2, Values.port(d.port())));
      out.add(dnat(Values.nfproto(family), REG_2, 2)); // NF_NAT_RANGE_PROTO_SPECIFIED, as nft sends it
    } else if (s instanceof Statement.DnatFromMap d) {
      requireProtocol(matches, s);
      out.add(numgenRandom(d.modulus(), d.offset()));
      out.add(hostToNetwork32()); // as nft: the shards are interval maps
      out.add(lookupMap(d.map()));
      out.add(dnat(Values.nfproto(family), register(addressUnits), 0)); // the port follows the address
    } else if (s instanceof Statement.DnatByDestination d) {
      requireProtocol(matches, s);
      destinationKey(out);
      out.add(lookupMap(d.map()));
      out.add(dnat(Values.nfproto(family), register(addressUnits), 0)); // the port follows the address
    } else if (s instanceof Statement.DestinationVmap d) {
      if (d.withAddress()) {
        destinationKey(out);
      } else {
        out.add(meta(register(0), META_L4PROTO));
        out.add(payload(register(1), PAYLOAD_TRANSPORT, 2, 2));
      }
      out.add(lookupVerdictMap(d.map()));
    } else if (s instanceof Statement.SetMark m) {
      int mark = Values.mark(m.mark());
      out.add(meta(META_MARK));
      // or: keep the other bits and set these; xor: keep every bit and toggle these.
      out.add(bitwise(Values.hostInt(m.toggle() ? -1 : ~mark), Values.hostInt(mark)));
      out.add(metaSet(META_MARK));
    } else if (s instanceof Statement.Masquerade) {
      out.add(masquerade(NF_NAT_RANGE_PROTO_RANDOM_FULLY));
    } else if (s instanceof Statement.RememberSource r) {
      out.add(payload(PAYLOAD_NETWORK, addressOffset(true), addressBytes()));
      out.add(dynsetUpdate(r.set()));
    } else if (s instanceof Statement.RandomGoto r) {
      int id = setIds.getAsInt();
      anonymous.add(new Anonymous(id, null, r.targets(), false));
      out.add(numgenRandom(r.targets().size(), 0));
      out.add(lookupAnonymousVerdictMap(id));
    } else {
      throw new Unsupported("statement " + s);
    }
  }

  /** "ip daddr . meta l4proto . th dport" into the registers from 1, as nft loads a concatenation. */
  private void destinationKey(List<Consumer<MessageWriter>> out) {
    out.add(payload(register(0), PAYLOAD_NETWORK, addressOffset(false), addressBytes()));
    out.add(meta(register(addressUnits), META_L4PROTO));
    out.add(payload(register(addressUnits + 1), PAYLOAD_TRANSPORT, 2, 2));
  }

  /**
   * The elements nft sends for a set of prefixes: the ranges merged and sorted, each a start and an
   * end (one past its last address), and an end at address zero when the first range starts later.
   */
  private List<IntervalElement> intervals(List<String> prefixes) throws Unsupported {
    int bytes = addressBytes();
    java.math.BigInteger max = java.math.BigInteger.ONE.shiftLeft(bytes * 8).subtract(java.math.BigInteger.ONE);
    List<java.math.BigInteger[]> ranges = new ArrayList<>();
    for (String p : prefixes) {
      Cidr cidr = Values.prefix(p, family);
      java.math.BigInteger start = new java.math.BigInteger(1, cidr.network());
      java.math.BigInteger size = java.math.BigInteger.ONE.shiftLeft(bytes * 8 - cidr.prefixLength());
      ranges.add(new java.math.BigInteger[] {start, start.add(size).subtract(java.math.BigInteger.ONE)});
    }
    ranges.sort((x, y) -> x[0].compareTo(y[0]));
    List<java.math.BigInteger[]> merged = new ArrayList<>();
    for (java.math.BigInteger[] r : ranges) {
      java.math.BigInteger[] last = merged.isEmpty() ? null : merged.get(merged.size() - 1);
      if (last != null && r[0].compareTo(last[1].add(java.math.BigInteger.ONE)) <= 0) {
        last[1] = last[1].max(r[1]);
      } else {
        merged.add(new java.math.BigInteger[] {r[0], r[1]});
      }
    }
    List<IntervalElement> out = new ArrayList<>();
    if (merged.get(0)[0].signum() != 0) {
      out.add(new IntervalElement(new byte[bytes], true));
    }
    for (java.math.BigInteger[] r : merged) {
      out.add(new IntervalElement(fixed(r[0], bytes), false));
      if (!r[1].equals(max)) {
        out.add(new IntervalElement(fixed(r[1].add(java.math.BigInteger.ONE), bytes), true));
      }
    }
    return out;
  }

  private static byte[] fixed(java.math.BigInteger v, int bytes) {
    byte[] raw = v.toByteArray();
    byte[] out = new byte[bytes];
    int n = Math.min(raw.length, bytes);
    System.arraycopy(raw, raw.length - n, out, bytes - n, n);
    return out;
  }

  /** register 1 = key; (register 1 & bits) != 0. */
  private static void bitsSet(List<Consumer<MessageWriter>> out, Consumer<MessageWriter> load, int bits) {
    out.add(load);
    out.add(bitwise(Values.hostInt(bits), new byte[4]));
    out.add(cmp(CMP_NEQ, new byte[4]));
  }

  static int verdictCode(Verdict.Kind kind) {
    return switch (kind) {
      case JUMP -> VERDICT_JUMP;
      case GOTO -> VERDICT_GOTO;
      case DROP -> VERDICT_DROP;
      case ACCEPT -> VERDICT_ACCEPT;
      case RETURN -> VERDICT_RETURN;
    };
  }

  /** nft needs the protocol for a port mapping. */
  private static void requireProtocol(List<Match> matches, Statement s) throws Unsupported {
    for (Match m : matches) {
      if (m instanceof Match.Protocol || m instanceof Match.DestinationPort) {
        return;
      }
    }
    throw new Unsupported("dnat to a port without a protocol match: " + s);
  }

  private int addressOffset(boolean source) {
    return v6 ? (source ? 8 : 24) : (source ? 12 : 16);
  }

  private int addressBytes() {
    return v6 ? 16 : 4;
  }

  /** nft loads only the prefix's whole bytes, or the whole address masked when the length is not a multiple of 8. */
  private void addressMatch(List<Consumer<MessageWriter>> out, boolean source, boolean negated, String value)
      throws Unsupported {
    Cidr cidr = Values.prefix(value, family);
    int size = cidr.network().length;
    int offset = addressOffset(source);
    int op = negated ? CMP_NEQ : CMP_EQ;
    int length = cidr.prefixLength();
    if (length > 0 && length % 8 == 0) {
      out.add(payload(PAYLOAD_NETWORK, offset, length / 8));
      out.add(cmp(op, Arrays.copyOf(cidr.network(), length / 8)));
    } else {
      out.add(payload(PAYLOAD_NETWORK, offset, size));
      out.add(bitwise(Values.mask(length, size)));
      out.add(cmp(op, cidr.network()));
    }
  }

  /** An interface name as nft compares it: padded to IFNAMSIZ, or just the prefix before a "*". */
  private static byte[] interfaceName(String name) throws Unsupported {
    boolean wildcard = name.endsWith("*");
    String prefix = wildcard ? name.substring(0, name.length() - 1) : name;
    byte[] raw = prefix.getBytes(StandardCharsets.US_ASCII);
    if (raw.length == 0 || raw.length >= IFNAMSIZ || prefix.indexOf('*') >= 0 || prefix.indexOf('\\') >= 0) {
      throw new Unsupported("interface name " + name);
    }
    return wildcard ? raw : Arrays.copyOf(raw, IFNAMSIZ);
  }
}
