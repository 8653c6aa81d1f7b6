package dev.kubeproxy.backend.ipvs;

import dev.kubeproxy.net.IpAddresses;
import dev.kubeproxy.host.netlink.Attributes;
import dev.kubeproxy.host.netlink.GenericNetlink;
import dev.kubeproxy.host.netlink.LibC;
import dev.kubeproxy.host.netlink.MessageWriter;
import dev.kubeproxy.host.netlink.NetlinkExchange;
import dev.kubeproxy.host.netlink.NetlinkMessage;
import dev.kubeproxy.host.netlink.NetlinkSocket;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The IPVS table over generic netlink (family "IPVS", include/uapi/linux/ip_vs.h), as the moby/ipvs
 * library that upstream's pkg/proxy/ipvs/util/ipvs_linux.go uses talks to it: services identified
 * by address family, protocol, address and port; destinations forwarded by masquerading.
 * Thread-safe: one exchange at a time.
 */
public final class NetlinkIpvs implements Ipvs, AutoCloseable {
  static final String FAMILY = "IPVS";
  static final int VERSION = 1;

  static final int CMD_NEW_SERVICE = 1;
  static final int CMD_SET_SERVICE = 2;
  static final int CMD_DEL_SERVICE = 3;
  static final int CMD_GET_SERVICE = 4;
  static final int CMD_NEW_DEST = 5;
  static final int CMD_SET_DEST = 6;
  static final int CMD_DEL_DEST = 7;
  static final int CMD_GET_DEST = 8;
  static final int CMD_SET_CONFIG = 12;
  static final int CMD_FLUSH = 17;

  static final int CMD_ATTR_SERVICE = 1;
  static final int CMD_ATTR_DEST = 2;
  static final int CMD_ATTR_TIMEOUT_TCP = 4;
  static final int CMD_ATTR_TIMEOUT_TCP_FIN = 5;
  static final int CMD_ATTR_TIMEOUT_UDP = 6;

  static final int SVC_ATTR_AF = 1;
  static final int SVC_ATTR_PROTOCOL = 2;
  static final int SVC_ATTR_ADDR = 3;
  static final int SVC_ATTR_PORT = 4;
  static final int SVC_ATTR_SCHED_NAME = 6;
  static final int SVC_ATTR_FLAGS = 7;
  static final int SVC_ATTR_TIMEOUT = 8;
  static final int SVC_ATTR_NETMASK = 9;
  static final int SVC_ATTR_MAX = 12;

  static final int DEST_ATTR_ADDR = 1;
  static final int DEST_ATTR_PORT = 2;
  static final int DEST_ATTR_FWD_METHOD = 3;
  static final int DEST_ATTR_WEIGHT = 4;
  static final int DEST_ATTR_U_THRESH = 5;
  static final int DEST_ATTR_L_THRESH = 6;
  static final int DEST_ATTR_ACTIVE_CONNS = 7;
  static final int DEST_ATTR_INACT_CONNS = 8;
  static final int DEST_ATTR_ADDR_FAMILY = 11;
  static final int DEST_ATTR_MAX = 15;

  static final int AF_INET = 2;
  static final int AF_INET6 = 10;
  /** IP_VS_CONN_F_MASQ: destinations are reached by DNAT (kube-proxy's only forwarding method). */
  static final int FWD_MASQ = 0;

  private final NetlinkExchange exchange;
  private final int familyId;

  private NetlinkIpvs(NetlinkExchange exchange, int familyId) {
    this.exchange = exchange;
    this.familyId = familyId;
  }

  /**
   * Opens a generic netlink socket (in netns, or the process's own when null) and resolves the IPVS
   * family.
   *
   * @throws IOException when the kernel has no IPVS (module ip_vs not loaded or not built)
   */
  public static NetlinkIpvs open(String netns) throws IOException {
    NetlinkSocket socket = NetlinkSocket.open(LibC.load(), LibC.NETLINK_GENERIC, netns);
    NetlinkExchange exchange = new NetlinkExchange(socket);
    try {
      return new NetlinkIpvs(exchange, GenericNetlink.familyId(exchange, FAMILY));
    } catch (NetlinkExchange.NetlinkError e) {
      exchange.close();
      if (e.errno() == GenericNetlink.ENOENT) {
        throw new IOException("the kernel has no IPVS (generic netlink family \"IPVS\" is missing:"
            + " load the ip_vs module)", e);
      }
      throw e;
    } catch (IOException | RuntimeException e) {
      exchange.close();
      throw e;
    }
  }

  @Override
  public synchronized List<VirtualServer> virtualServers() throws IOException {
    MessageWriter w = new MessageWriter();
    int seq = exchange.nextSequence();
    int m = w.beginGenericMessage(familyId, NetlinkExchange.NLM_F_REQUEST | NetlinkExchange.NLM_F_DUMP, seq,
        CMD_GET_SERVICE, VERSION);
    w.endMessage(m);
    List<VirtualServer> out = new ArrayList<>();
    exchange.dump(w.toBytes(), seq, answer -> {
      Attributes top = Attributes.ofGenericMessage(exchange.buffer(), answer, CMD_ATTR_SERVICE);
      VirtualServer vs = parseService(top.nested(CMD_ATTR_SERVICE, SVC_ATTR_MAX));
      if (vs != null) {
        out.add(vs);
      }
    });
    return out;
  }

  @Override
  public void addVirtualServer(VirtualServer vs) throws IOException {
    serviceRequest(CMD_NEW_SERVICE, vs, null, "add virtual server " + vs);
  }

  @Override
  public void updateVirtualServer(VirtualServer vs) throws IOException {
    serviceRequest(CMD_SET_SERVICE, vs, null, "update virtual server " + vs);
  }

  @Override
  public void deleteVirtualServer(VirtualServer vs) throws IOException {
    serviceRequest(CMD_DEL_SERVICE, vs, null, "delete virtual server " + vs);
  }

  @Override
  public synchronized List<RealServer> realServers(VirtualServer vs) throws IOException {
    MessageWriter w = new MessageWriter();
    int seq = exchange.nextSequence();
    int m = w.beginGenericMessage(familyId, NetlinkExchange.NLM_F_REQUEST | NetlinkExchange.NLM_F_DUMP, seq,
        CMD_GET_DEST, VERSION);
    writeService(w, vs, false);
    w.endMessage(m);
    List<RealServer> out = new ArrayList<>();
    try {
      exchange.dump(w.toBytes(), seq, answer -> {
        Attributes top = Attributes.ofGenericMessage(exchange.buffer(), answer, CMD_ATTR_DEST);
        out.add(parseDest(top.nested(CMD_ATTR_DEST, DEST_ATTR_MAX), vs));
      });
    } catch (NetlinkExchange.NetlinkError e) {
      throw new IOException("list real servers of " + vs + ": " + e.getMessage(), e);
    }
    return out;
  }

  @Override
  public void addRealServer(VirtualServer vs, RealServer rs) throws IOException {
    serviceRequest(CMD_NEW_DEST, vs, rs, "add real server " + rs + " to " + vs);
  }

  @Override
  public void updateRealServer(VirtualServer vs, RealServer rs) throws IOException {
    serviceRequest(CMD_SET_DEST, vs, rs, "update real server " + rs + " of " + vs);
  }

  @Override
  public void deleteRealServer(VirtualServer vs, RealServer rs) throws IOException {
    serviceRequest(CMD_DEL_DEST, vs, rs, "delete real server " + rs + " of " + vs);
  }

  @Override
  public synchronized void flush() throws IOException {
    MessageWriter w = new MessageWriter();
    int seq = exchange.nextSequence();
    int m = w.beginGenericMessage(familyId, NetlinkExchange.NLM_F_REQUEST | NetlinkExchange.NLM_F_ACK, seq,
        CMD_FLUSH, VERSION);
    w.endMessage(m);
    acknowledge(w, seq, "flush the IPVS table");
  }

  @Override
  public synchronized void configureTimeouts(Duration tcp, Duration tcpFin, Duration udp) throws IOException {
    MessageWriter w = new MessageWriter();
    int seq = exchange.nextSequence();
    int m = w.beginGenericMessage(familyId, NetlinkExchange.NLM_F_REQUEST | NetlinkExchange.NLM_F_ACK, seq,
        CMD_SET_CONFIG, VERSION);
    w.hostU32(CMD_ATTR_TIMEOUT_TCP, (int) tcp.toSeconds());
    w.hostU32(CMD_ATTR_TIMEOUT_TCP_FIN, (int) tcpFin.toSeconds());
    w.hostU32(CMD_ATTR_TIMEOUT_UDP, (int) udp.toSeconds());
    w.endMessage(m);
    acknowledge(w, seq, "set the IPVS timeouts");
  }

  private synchronized void serviceRequest(int command, VirtualServer vs, RealServer rs, String what)
      throws IOException {
    MessageWriter w = new MessageWriter();
    int seq = exchange.nextSequence();
    int m = w.beginGenericMessage(familyId, NetlinkExchange.NLM_F_REQUEST | NetlinkExchange.NLM_F_ACK, seq,
        command, VERSION);
    // A new or changed service carries its whole configuration; the others only identify it.
    writeService(w, vs, command == CMD_NEW_SERVICE || command == CMD_SET_SERVICE);
    if (rs != null) {
      writeDest(w, rs, command != CMD_DEL_DEST);
    }
    w.endMessage(m);
    acknowledge(w, seq, what);
  }

  private void acknowledge(MessageWriter w, int seq, String what) throws IOException {
    int[] errnos = new int[1];
    exchange.requests(w.toBytes(), seq, 1, errnos, null);
    if (errnos[0] != 0) {
      throw new NetlinkExchange.NetlinkError(errnos[0], "IPVS: cannot " + what + ": " + exchange.errorText(errnos[0]));
    }
  }

  private static void writeService(MessageWriter w, VirtualServer vs, boolean full) {
    byte[] address = address(vs.address());
    int n = w.beginNested(CMD_ATTR_SERVICE);
    w.hostU16(SVC_ATTR_AF, address.length == 4 ? AF_INET : AF_INET6);
    w.hostU16(SVC_ATTR_PROTOCOL, protocolNumber(vs.protocol()));
    w.bytes(SVC_ATTR_ADDR, address);
    w.be16(SVC_ATTR_PORT, vs.port());
    if (full) {
      w.string(SVC_ATTR_SCHED_NAME, vs.scheduler());
      byte[] flags = new byte[8]; // struct ip_vs_flags { flags; mask }: every flag is set as given
      java.nio.ByteBuffer.wrap(flags).order(java.nio.ByteOrder.nativeOrder()).putInt(vs.flags()).putInt(-1);
      w.bytes(SVC_ATTR_FLAGS, flags);
      w.hostU32(SVC_ATTR_TIMEOUT, vs.timeout());
      w.hostU32(SVC_ATTR_NETMASK, address.length == 4 ? 0xffffffff : 128);
    }
    w.endNested(n);
  }

  private static void writeDest(MessageWriter w, RealServer rs, boolean full) {
    byte[] address = address(rs.address());
    int n = w.beginNested(CMD_ATTR_DEST);
    w.bytes(DEST_ATTR_ADDR, address);
    w.be16(DEST_ATTR_PORT, rs.port());
    w.hostU16(DEST_ATTR_ADDR_FAMILY, address.length == 4 ? AF_INET : AF_INET6);
    if (full) {
      w.hostU32(DEST_ATTR_FWD_METHOD, FWD_MASQ);
      w.hostU32(DEST_ATTR_WEIGHT, rs.weight());
      w.hostU32(DEST_ATTR_U_THRESH, 0);
      w.hostU32(DEST_ATTR_L_THRESH, 0);
    }
    w.endNested(n);
  }

  /** A service of a dump; null for one kube-proxy cannot have made (a firewall-mark service). */
  static VirtualServer parseService(Attributes a) {
    int af = a.hostU16(SVC_ATTR_AF, 0);
    byte[] raw = a.bytes(SVC_ATTR_ADDR);
    String protocol = protocolName(a.hostU16(SVC_ATTR_PROTOCOL, 0));
    if (raw == null || protocol == null || (af != AF_INET && af != AF_INET6)) {
      return null;
    }
    byte[] flags = a.bytes(SVC_ATTR_FLAGS);
    int flagBits = flags == null || flags.length < 4 ? 0
        : java.nio.ByteBuffer.wrap(flags).order(java.nio.ByteOrder.nativeOrder()).getInt();
    return new VirtualServer(addressText(raw, af), protocol, a.be16(SVC_ATTR_PORT, 0),
        a.string(SVC_ATTR_SCHED_NAME), flagBits & ~VirtualServer.FLAG_HASHED, (int) a.hostU32(SVC_ATTR_TIMEOUT, 0));
  }

  static RealServer parseDest(Attributes a, VirtualServer of) {
    int af = a.hostU16(DEST_ATTR_ADDR_FAMILY, of.address().indexOf(':') >= 0 ? AF_INET6 : AF_INET);
    return new RealServer(addressText(a.bytes(DEST_ATTR_ADDR), af), a.be16(DEST_ATTR_PORT, 0),
        (int) a.hostU32(DEST_ATTR_WEIGHT, 0), (int) a.hostU32(DEST_ATTR_ACTIVE_CONNS, 0),
        (int) a.hostU32(DEST_ATTR_INACT_CONNS, 0));
  }

  /** The kernel answers with a 16-byte union nf_inet_addr; an IPv4 address is its first four bytes. */
  private static String addressText(byte[] raw, int af) {
    return IpAddresses.format(af == AF_INET ? Arrays.copyOf(raw, 4) : Arrays.copyOf(raw, 16));
  }

  private static byte[] address(String ip) {
    byte[] b = IpAddresses.parse(ip);
    if (b == null) {
      throw new IllegalArgumentException("not an IP address: \"" + ip + "\"");
    }
    return b;
  }

  static int protocolNumber(String protocol) {
    return switch (protocol) {
      case "TCP" -> 6;
      case "UDP" -> 17;
      case "SCTP" -> 132;
      default -> throw new IllegalArgumentException("IPVS protocol must be TCP, UDP or SCTP, not \"" + protocol + "\"");
    };
  }

  static String protocolName(int number) {
    return switch (number) {
      case 6 -> "TCP";
      case 17 -> "UDP";
      case 132 -> "SCTP";
      default -> null;
    };
  }

  @Override
  public synchronized void close() {
    exchange.close();
  }
}
