package dev.kubeproxy.backend.nftables.netlink;

import dev.kubeproxy.host.netlink.MessageWriter;
import dev.kubeproxy.net.IpFamily;
import dev.kubeproxy.backend.nftables.objects.NftMap;
import dev.kubeproxy.backend.nftables.objects.NftSet;
import dev.kubeproxy.backend.nftables.objects.Transaction;
import java.util.List;

/**
 * The NFT_MSG_NEWSET attributes of the kube-proxy table's sets and maps, as nft 1.0 sends them:
 * key and data types (nft's datatype numbers, concatenations six bits apart), lengths, flags and
 * the user data nft reads back to print the declaration. Known by name and checked against the
 * declared type (FixedRuleset, EndpointSlots and ServicePortRules declare them): a declaration
 * that differs is {@link Unsupported}, and goes through nft.
 */
final class SetDeclarations {
  // nft datatype numbers (src/datatype.h, enum datatypes)
  private static final int TYPE_INTEGER = 4;
  private static final int TYPE_IPADDR = 7;
  private static final int TYPE_IP6ADDR = 8;
  private static final int TYPE_INET_PROTOCOL = 12;
  private static final int TYPE_INET_SERVICE = 13;
  private static final int NFT_DATA_VERDICT = 0xffffff00;
  // nft expression types (enum expr_types) and protocol descriptions (enum proto_desc_id)
  private static final int EXPR_PAYLOAD = 7;
  private static final int EXPR_VERDICT = 1;
  private static final int EXPR_CONCAT = 13;
  private static final int EXPR_NUMGEN = 23;
  private static final int PROTO_DESC_UDP = 6;
  private static final int PROTO_DESC_TCP = 8;
  private static final int PROTO_DESC_SCTP = 10;
  private static final int PROTO_DESC_IP = 12;
  private static final int PROTO_DESC_IP6 = 13;
  // byte orders in user data
  private static final int BYTEORDER_INVALID = 0;
  private static final int BYTEORDER_HOST = 1;
  private static final int BYTEORDER_BIG = 2;
  // NFTNL_UDATA_SET_*
  private static final int UD_KEYBYTEORDER = 0;
  private static final int UD_DATABYTEORDER = 1;
  private static final int UD_MERGE_ELEMENTS = 2;
  private static final int UD_KEY_TYPEOF = 3;
  private static final int UD_DATA_TYPEOF = 4;
  private static final int UD_DATA_INTERVAL = 6;
  private static final int UD_COMMENT = 7;

  static final int NFT_SET_ANONYMOUS = 0x1;
  static final int NFT_SET_CONSTANT = 0x2;
  static final int NFT_SET_INTERVAL = 0x4;
  static final int NFT_SET_MAP = 0x8;
  static final int NFT_SET_TIMEOUT = 0x10;
  static final int NFT_SET_EVAL = 0x20;

  private final IpFamily family;
  private final boolean v6;
  private final int addressType;
  private final String addressName;

  SetDeclarations(IpFamily family) {
    this.family = family;
    this.v6 = family == IpFamily.IPv6;
    this.addressType = v6 ? TYPE_IP6ADDR : TYPE_IPADDR;
    this.addressName = v6 ? "ipv6_addr" : "ipv4_addr";
  }

  /** Writes the attributes of NEWSET for a named set after the table name. */
  void set(MessageWriter w, NftSet s) throws Unsupported {
    boolean affinity = s.name().startsWith("affinity-");
    String expected = switch (s.name()) {
      case "cluster-ips", "nodeport-ips" -> addressName;
      case "hairpin-connections" -> addressName + " . " + addressName + " . inet_proto . inet_service";
      default -> affinity ? addressName : null;
    };
    if (expected == null || !expected.equals(s.type())) {
      throw new Unsupported("set " + s.name() + " of type " + s.type());
    }
    boolean concat = s.name().equals("hairpin-connections");
    w.string(2, s.name()); // NFTA_SET_NAME
    int flags = affinity ? NFT_SET_TIMEOUT | NFT_SET_EVAL : 0;
    if (affinity != (s.flags().equals(List.of("dynamic", "timeout")) && s.timeoutSeconds() > 0)
        || (!affinity && (!s.flags().isEmpty() || s.timeoutSeconds() > 0))) {
      throw new Unsupported("set " + s.name() + " with flags " + s.flags());
    }
    if (flags != 0) {
      w.u32(3, flags); // NFTA_SET_FLAGS
    }
    w.u32(4, concat ? concatType(addressType, addressType, TYPE_INET_PROTOCOL, TYPE_INET_SERVICE) : addressType);
    w.u32(5, concat ? 2 * units(addressBytes()) * 4 + 8 : addressBytes()); // NFTA_SET_KEY_LEN
    if (affinity) {
      w.bytes(11, be64(s.timeoutSeconds() * 1000L)); // NFTA_SET_TIMEOUT, ms
      int desc = w.beginNested(9); // NFTA_SET_DESC
      w.u32(1, 65535); // NFTA_SET_DESC_SIZE: nft's size for dynamic sets
      w.endNested(desc);
    }
    UserData ud = new UserData().u32(UD_KEYBYTEORDER, concat ? BYTEORDER_INVALID : BYTEORDER_BIG);
    if (concat) {
      ud.nested(UD_KEY_TYPEOF, typeof(EXPR_CONCAT, new UserData()));
    }
    if (s.comment() != null) {
      ud.string(UD_COMMENT, s.comment());
    }
    w.bytes(13, ud.toBytes()); // NFTA_SET_USERDATA
  }

  /** Writes the attributes of NEWSET for a named map after the table name. */
  void map(MessageWriter w, NftMap m) throws Unsupported {
    w.string(2, m.name()); // NFTA_SET_NAME
    boolean shard = m.name().startsWith("endpoint-ranges-");
    if (m.interval() != shard || m.flags().size() > (shard ? 1 : 0)) {
      throw new Unsupported("map " + m.name() + " with flags " + m.flags());
    }
    w.u32(3, NFT_SET_MAP | (shard ? NFT_SET_INTERVAL : 0)); // NFTA_SET_FLAGS
    UserData ud = new UserData();
    switch (m.name()) {
      case "service-ips", "no-endpoint-services", "firewall-ips", "service-nodeports", "no-endpoint-nodeports",
          "localhost-nodeport-reject-ports", "single-endpoint-services" -> {
        // keyed by the destination (with or without its address), to a verdict or to an endpoint
        boolean withAddress = !m.name().endsWith("nodeports") && !m.name().startsWith("localhost-");
        boolean toEndpoint = m.name().equals("single-endpoint-services");
        String type = (withAddress ? addressName + " . " : "") + "inet_proto . inet_service : "
            + (toEndpoint ? addressName + " . inet_service" : "verdict");
        if (!m.type().equals(type)) {
          throw new Unsupported("map " + m.name() + " of type " + m.type());
        }
        w.u32(4, withAddress ? concatType(addressType, TYPE_INET_PROTOCOL, TYPE_INET_SERVICE)
            : concatType(TYPE_INET_PROTOCOL, TYPE_INET_SERVICE)); // NFTA_SET_KEY_TYPE
        w.u32(5, (withAddress ? units(addressBytes()) * 4 : 0) + 8); // NFTA_SET_KEY_LEN
        w.u32(6, toEndpoint ? concatType(addressType, TYPE_INET_SERVICE) : NFT_DATA_VERDICT); // NFTA_SET_DATA_TYPE
        w.u32(7, toEndpoint ? units(addressBytes()) * 4 + 4 : 16); // NFTA_SET_DATA_LEN
        ud.u32(UD_KEYBYTEORDER, BYTEORDER_INVALID).u32(UD_DATABYTEORDER, BYTEORDER_INVALID)
            .nested(UD_KEY_TYPEOF, typeof(EXPR_CONCAT, new UserData()));
        if (toEndpoint) {
          ud.nested(UD_DATA_TYPEOF, typeof(EXPR_CONCAT, new UserData()));
        }
        ud.u32(UD_DATA_INTERVAL, 0);
      }
      default -> endpointTargets(w, m, ud);
    }
    if (m.comment() != null) {
      ud.string(UD_COMMENT, m.comment());
    }
    w.bytes(13, ud.toBytes()); // NFTA_SET_USERDATA
  }

  /** An endpoint-ranges shard: "typeof numgen random mod 1 : ip daddr . PROTO dport", flags interval. */
  private void endpointTargets(MessageWriter w, NftMap m, UserData ud) throws Unsupported {
    String prefix = "endpoint-ranges-";
    String proto = m.name().startsWith(prefix) && m.name().lastIndexOf('-') > prefix.length()
        ? m.name().substring(prefix.length(), m.name().lastIndexOf('-')) : "";
    int protoDesc = switch (proto) {
      case "tcp" -> PROTO_DESC_TCP;
      case "udp" -> PROTO_DESC_UDP;
      case "sctp" -> PROTO_DESC_SCTP;
      default -> throw new Unsupported("map " + m.name());
    };
    String ip = Transaction.familyKeyword(family);
    if (!m.type().equals("typeof numgen random mod 1 : " + ip + " daddr . " + proto + " dport")) {
      throw new Unsupported("map " + m.name() + " of type " + m.type());
    }
    w.u32(4, TYPE_INTEGER); // NFTA_SET_KEY_TYPE
    w.u32(5, 4); // NFTA_SET_KEY_LEN
    w.u32(6, concatType(addressType, TYPE_INET_SERVICE)); // NFTA_SET_DATA_TYPE
    w.u32(7, units(addressBytes()) * 4 + 4); // NFTA_SET_DATA_LEN
    // numgen: type random, modulus 1, offset 0; payloads: (description, template) of daddr and dport
    UserData numgen = new UserData().u32(0, 1).u32(1, 1).u32(2, 0);
    UserData daddr = new UserData().u32(0, v6 ? PROTO_DESC_IP6 : PROTO_DESC_IP).u32(1, v6 ? 9 : 12);
    UserData dport = new UserData().u32(0, protoDesc).u32(1, 2);
    UserData concat = new UserData().nested(0, typeof(EXPR_PAYLOAD, daddr)).nested(1, typeof(EXPR_PAYLOAD, dport));
    ud.u32(UD_KEYBYTEORDER, BYTEORDER_HOST).u32(UD_DATABYTEORDER, BYTEORDER_INVALID)
        .nested(UD_KEY_TYPEOF, typeof(EXPR_NUMGEN, numgen)).nested(UD_DATA_TYPEOF, typeof(EXPR_CONCAT, concat))
        .u32(UD_DATA_INTERVAL, 0);
  }

  /**
   * An anonymous interval set of addresses ("{ 10.0.0.0/8 , 192.168.0.1 }") after the table name.
   *
   * @param source whether the rule matches it against the source address (nft records the payload)
   */
  void anonymousAddresses(MessageWriter w, int id, int elements, boolean source) throws Unsupported {
    w.string(2, "__set%d"); // NFTA_SET_NAME: the kernel numbers it
    w.u32(3, NFT_SET_ANONYMOUS | NFT_SET_CONSTANT | NFT_SET_INTERVAL);
    w.u32(4, addressType);
    w.u32(5, addressBytes());
    w.u32(10, id); // NFTA_SET_ID
    int desc = w.beginNested(9);
    w.u32(1, elements); // NFTA_SET_DESC_SIZE
    w.endNested(desc);
    UserData payload = new UserData().u32(0, v6 ? PROTO_DESC_IP6 : PROTO_DESC_IP)
        .u32(1, v6 ? (source ? 8 : 9) : (source ? 11 : 12));
    w.bytes(13, new UserData().u32(UD_KEYBYTEORDER, BYTEORDER_BIG).u32(UD_MERGE_ELEMENTS, 1)
        .nested(UD_KEY_TYPEOF, typeof(EXPR_PAYLOAD, payload)).toBytes());
  }

  /** An anonymous verdict map keyed by numgen ("numgen random mod N vmap { 0 : goto a , … }"). */
  void anonymousNumgenVmap(MessageWriter w, int id, int elements) throws Unsupported {
    w.string(2, "__map%d");
    w.u32(3, NFT_SET_ANONYMOUS | NFT_SET_CONSTANT | NFT_SET_MAP);
    w.u32(4, TYPE_INTEGER);
    w.u32(5, 4);
    w.u32(6, NFT_DATA_VERDICT);
    w.u32(7, 16);
    w.u32(10, id);
    int desc = w.beginNested(9);
    w.u32(1, elements);
    w.endNested(desc);
    w.bytes(13, new UserData().u32(UD_KEYBYTEORDER, BYTEORDER_HOST).u32(UD_DATABYTEORDER, BYTEORDER_INVALID)
        .nested(UD_DATA_TYPEOF, typeof(EXPR_VERDICT, new UserData())).u32(UD_DATA_INTERVAL, 0).toBytes());
  }

  private static UserData typeof(int exprType, UserData data) throws Unsupported {
    return new UserData().u32(0, exprType).nested(1, data);
  }

  private int addressBytes() {
    return v6 ? 16 : 4;
  }

  /** Register units (4 bytes) a field of this many bytes takes in a concatenation. */
  private static int units(int bytes) {
    return (bytes + 3) / 4;
  }

  private static int concatType(int... types) {
    int t = 0;
    for (int type : types) {
      t = t << 6 | type;
    }
    return t;
  }

  private static byte[] be64(long v) {
    return java.nio.ByteBuffer.allocate(8).putLong(v).array();
  }
}
