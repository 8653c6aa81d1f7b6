package dev.kubeproxy.backend.conntrack;

import dev.kubeproxy.net.IpAddresses;
import dev.kubeproxy.host.netlink.Attributes;
import dev.kubeproxy.host.netlink.LibC;
import dev.kubeproxy.host.netlink.MessageWriter;
import dev.kubeproxy.host.netlink.NetlinkExchange;
import dev.kubeproxy.host.netlink.NetlinkMessage;
import dev.kubeproxy.host.netlink.NetlinkSocket;
import dev.kubeproxy.net.IpFamily;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The conntrack table over ctnetlink (NETLINK_NETFILTER, subsystem NFNL_SUBSYS_CTNETLINK), as
 * upstream does since 1.32 (pkg/proxy/conntrack/conntrack.go, through vishvananda/netlink): a dump of one family, and
 * deletions by original tuple, zone and id, many per datagram. No conntrack binary.
 * Thread-safe (one exchange at a time).
 */
public final class NetlinkConntrackTable implements ConntrackTable, AutoCloseable {
  private static final int NFNL_SUBSYS_CTNETLINK = 1;
  private static final int IPCTNL_MSG_CT_GET = 1;
  private static final int IPCTNL_MSG_CT_DELETE = 2;
  private static final int CTA_TUPLE_ORIG = 1;
  private static final int CTA_TUPLE_REPLY = 2;
  private static final int CTA_ID = 12;
  private static final int CTA_ZONE = 18;
  private static final int CTA_MAX = 26;
  private static final int CTA_TUPLE_IP = 1;
  private static final int CTA_TUPLE_PROTO = 2;
  private static final int CTA_TUPLE_MAX = 3;
  private static final int CTA_IP_V4_SRC = 1;
  private static final int CTA_IP_V4_DST = 2;
  private static final int CTA_IP_V6_SRC = 3;
  private static final int CTA_IP_V6_DST = 4;
  private static final int CTA_IP_MAX = 4;
  private static final int CTA_PROTO_NUM = 1;
  private static final int CTA_PROTO_SRC_PORT = 2;
  private static final int CTA_PROTO_DST_PORT = 3;
  private static final int CTA_PROTO_MAX = 3;
  private static final int AF_INET = 2;
  private static final int AF_INET6 = 10;
  private static final int ENOENT = 2;
  /** Deletions per datagram: their acknowledgements stay far below the socket's receive buffer. */
  static final int DELETES_PER_DATAGRAM = 128;

  private final NetlinkExchange exchange;

  private NetlinkConntrackTable(NetlinkExchange exchange) {
    this.exchange = exchange;
  }

  /**
   * @param netns a namespace under /var/run/netns (tests), or null for the agent's own
   * @throws IOException no socket (no JNA native library, no permission)
   */
  public static NetlinkConntrackTable open(String netns) throws IOException {
    try {
      return new NetlinkConntrackTable(new NetlinkExchange(
          NetlinkSocket.open(LibC.load(), LibC.NETLINK_NETFILTER, netns)));
    } catch (LinkageError | RuntimeException e) {
      throw new IOException("cannot load libc through JNA: " + e, e);
    }
  }

  @Override
  public synchronized List<ConntrackFlow> list(IpFamily family) throws IOException {
    int seq = exchange.nextSequence();
    MessageWriter w = new MessageWriter();
    w.endMessage(w.beginMessage(NFNL_SUBSYS_CTNETLINK << 8 | IPCTNL_MSG_CT_GET,
        NetlinkExchange.NLM_F_REQUEST | NetlinkExchange.NLM_F_DUMP, seq, af(family), 0));
    List<ConntrackFlow> flows = new ArrayList<>();
    exchange.dump(w.toBytes(), seq, m -> {
      ConntrackFlow flow = parse(exchange.buffer(), m, family);
      if (flow != null) {
        flows.add(flow);
      }
    });
    return flows;
  }

  /** One entry of a dump; null when it is of another family or lacks a tuple. */
  static ConntrackFlow parse(byte[] buffer, NetlinkMessage m, IpFamily family) {
    Attributes ct = Attributes.ofNetfilterMessage(buffer, m, CTA_MAX);
    Attributes orig = ct.nested(CTA_TUPLE_ORIG, CTA_TUPLE_MAX);
    Attributes reply = ct.nested(CTA_TUPLE_REPLY, CTA_TUPLE_MAX);
    Attributes origIp = orig.nested(CTA_TUPLE_IP, CTA_IP_MAX);
    Attributes replyIp = reply.nested(CTA_TUPLE_IP, CTA_IP_MAX);
    int src = family == IpFamily.IPv4 ? CTA_IP_V4_SRC : CTA_IP_V6_SRC;
    int dst = family == IpFamily.IPv4 ? CTA_IP_V4_DST : CTA_IP_V6_DST;
    if (!origIp.has(src) || !origIp.has(dst) || !replyIp.has(src) || !replyIp.has(dst)) {
      return null;
    }
    Attributes origProto = orig.nested(CTA_TUPLE_PROTO, CTA_PROTO_MAX);
    Attributes replyProto = reply.nested(CTA_TUPLE_PROTO, CTA_PROTO_MAX);
    return new ConntrackFlow(origProto.u8(CTA_PROTO_NUM, 0),
        IpAddresses.format(origIp.bytes(src)), origProto.be16(CTA_PROTO_SRC_PORT, 0),
        IpAddresses.format(origIp.bytes(dst)), origProto.be16(CTA_PROTO_DST_PORT, 0),
        IpAddresses.format(replyIp.bytes(src)), replyProto.be16(CTA_PROTO_SRC_PORT, 0),
        IpAddresses.format(replyIp.bytes(dst)), replyProto.be16(CTA_PROTO_DST_PORT, 0),
        ct.be16(CTA_ZONE, 0), ct.be32(CTA_ID, -1));
  }

  @Override
  public synchronized int delete(IpFamily family, List<ConntrackFlow> flows) throws IOException {
    int deleted = 0;
    IOException failure = null;
    for (int from = 0; from < flows.size(); from += DELETES_PER_DATAGRAM) {
      List<ConntrackFlow> chunk = flows.subList(from, Math.min(flows.size(), from + DELETES_PER_DATAGRAM));
      MessageWriter w = new MessageWriter();
      int first = exchange.nextSequence();
      for (int i = 0; i < chunk.size(); i++) {
        writeDelete(w, family, chunk.get(i), i == 0 ? first : exchange.nextSequence());
      }
      int[] errnos = new int[chunk.size()];
      exchange.requests(w.toBytes(), first, chunk.size(), errnos, null);
      for (int i = 0; i < errnos.length; i++) {
        if (errnos[i] == 0) {
          deleted++;
        } else if (errnos[i] != ENOENT && failure == null) {
          // ENOENT: gone already (expired, or replaced by a newer entry with another id)
          failure = new NetlinkExchange.NetlinkError(errnos[i], "deleting conntrack entry " + chunk.get(i) + ": "
              + exchange.errorText(errnos[i]));
        }
      }
    }
    if (failure != null) {
      throw new IOException(failure.getMessage() + " (" + deleted + " entries deleted)", failure);
    }
    return deleted;
  }

  /**
   * A delete by original tuple. The tuple must always be there: a delete without one flushes the
   * whole table.
   */
  private static void writeDelete(MessageWriter w, IpFamily family, ConntrackFlow flow, int seq) {
    int m = w.beginMessage(NFNL_SUBSYS_CTNETLINK << 8 | IPCTNL_MSG_CT_DELETE,
        NetlinkExchange.NLM_F_REQUEST | NetlinkExchange.NLM_F_ACK, seq, af(family), 0);
    int tuple = w.beginNested(CTA_TUPLE_ORIG);
    int ip = w.beginNested(CTA_TUPLE_IP);
    w.bytes(family == IpFamily.IPv4 ? CTA_IP_V4_SRC : CTA_IP_V6_SRC, address(flow.origSrc(), family));
    w.bytes(family == IpFamily.IPv4 ? CTA_IP_V4_DST : CTA_IP_V6_DST, address(flow.origDst(), family));
    w.endNested(ip);
    int proto = w.beginNested(CTA_TUPLE_PROTO);
    w.bytes(CTA_PROTO_NUM, new byte[] {(byte) flow.protocol()});
    w.bytes(CTA_PROTO_SRC_PORT, be16(flow.origSrcPort()));
    w.bytes(CTA_PROTO_DST_PORT, be16(flow.origDstPort()));
    w.endNested(proto);
    w.endNested(tuple);
    if (flow.zone() != 0) {
      w.bytes(CTA_ZONE, be16(flow.zone()));
    }
    if (flow.id() >= 0) {
      w.u32(CTA_ID, (int) flow.id());
    }
    w.endMessage(m);
  }

  private static byte[] address(String ip, IpFamily family) {
    byte[] raw = IpAddresses.parse(ip);
    int length = family == IpFamily.IPv4 ? 4 : 16;
    if (raw == null || raw.length != length) {
      throw new IllegalArgumentException("not an " + family + " address: " + ip);
    }
    return Arrays.copyOf(raw, length);
  }

  private static byte[] be16(int value) {
    return ByteBuffer.allocate(2).putShort((short) value).array();
  }

  private static int af(IpFamily family) {
    return family == IpFamily.IPv4 ? AF_INET : AF_INET6;
  }

  @Override
  public synchronized void close() {
    exchange.close();
  }
}
