package dev.kubeproxy.backend.iptables;

import dev.kubeproxy.logging.Log;
import dev.kubeproxy.host.netlink.Attributes;
import dev.kubeproxy.host.netlink.LibC;
import dev.kubeproxy.host.netlink.MessageWriter;
import dev.kubeproxy.host.netlink.NetlinkExchange;
import dev.kubeproxy.host.netlink.NetlinkSocket;
import java.io.IOException;
import java.util.OptionalDouble;
import java.util.OptionalLong;

/**
 * The kernel's extended accounting objects (nfacct) over netlink, subsystem NFNL_SUBSYS_ACCT:
 * what upstream's pkg/proxy/util/nfacct does (Ensure, Get) without the nfacct binary. The
 * counters are per network namespace, shared by both IP families. Thread-safe (one socket, one
 * request at a time): the sync ensures counters while /metrics reads them.
 */
public final class NfacctCounters implements AutoCloseable {
  /** Upstream metrics.IPTablesCTStateInvalidDroppedNFAcctCounter. */
  public static final String CT_STATE_INVALID_DROPPED = "ct_state_invalid_dropped_pkts";
  /** Upstream metrics.LocalhostNodePortAcceptedNFAcctCounter. */
  public static final String LOCALHOST_NODEPORT_ACCEPTED = "localhost_nps_accepted_pkts";
  /** Every counter the ruleset's rules count into. */
  public static final java.util.Set<String> ALL = java.util.Set.of(CT_STATE_INVALID_DROPPED, LOCALHOST_NODEPORT_ACCEPTED);

  private static final int NFNL_SUBSYS_ACCT = 7;
  private static final int NFNL_MSG_ACCT_NEW = 0;
  private static final int NFNL_MSG_ACCT_GET = 1;
  private static final int NFACCT_NAME = 1;
  private static final int NFACCT_PKTS = 2;
  private static final int NFACCT_MAX = 8;
  /** NFACCT_NAME_MAX, the terminating NUL included. */
  private static final int NAME_MAX = 32;
  private static final int ENOENT = 2;

  private final NetlinkExchange exchange;

  private NfacctCounters(NetlinkExchange exchange) {
    this.exchange = exchange;
  }

  /**
   * Opens a netlink socket for nfacct.
   *
   * @param netns a namespace under /var/run/netns (tests), or null for the agent's own
   * @throws IOException no socket (no JNA native library, no permission)
   */
  public static NfacctCounters open(String netns) throws IOException {
    try {
      return new NfacctCounters(new NetlinkExchange(NetlinkSocket.open(LibC.load(), LibC.NETLINK_NETFILTER, netns)));
    } catch (LinkageError | RuntimeException e) {
      throw new IOException("cannot load libc through JNA: " + e, e);
    }
  }

  /**
   * Creates the counter unless it exists (upstream nfacct Ensure).
   *
   * @throws IOException the kernel refused (e.g. no nfnetlink_acct, EPERM)
   */
  public synchronized void ensure(String name) throws IOException {
    if (packets(name).isPresent()) {
      return;
    }
    int[] errno = new int[1];
    int seq = exchange.nextSequence();
    exchange.requests(message(NFNL_MSG_ACCT_NEW, NetlinkExchange.NLM_F_CREATE, seq, name), seq, 1, errno, null);
    if (errno[0] != 0) {
      throw new NetlinkExchange.NetlinkError(errno[0], "creating nfacct counter " + name + ": "
          + exchange.errorText(errno[0]));
    }
  }

  /**
   * The counter's packet count (upstream nfacct Get); empty when no such counter exists.
   *
   * @throws IOException any other refusal or a socket failure
   */
  public synchronized OptionalLong packets(String name) throws IOException {
    long[] found = {-1};
    int[] errno = new int[1];
    int seq = exchange.nextSequence();
    exchange.requests(message(NFNL_MSG_ACCT_GET, 0, seq, name), seq, 1, errno, m -> {
      Attributes a = Attributes.ofNetfilterMessage(exchange.buffer(), m, NFACCT_MAX);
      if (name.equals(a.string(NFACCT_NAME))) {
        found[0] = a.be64(NFACCT_PKTS, 0);
      }
    });
    if (errno[0] == ENOENT) {
      return OptionalLong.empty();
    }
    if (errno[0] != 0) {
      throw new NetlinkExchange.NetlinkError(errno[0], "reading nfacct counter " + name + ": "
          + exchange.errorText(errno[0]));
    }
    return found[0] < 0 ? OptionalLong.empty() : OptionalLong.of(found[0]);
  }

  /**
   * The counter's packets for /metrics (upstream's collector): empty, after logging why, when it
   * cannot be read or does not exist (yet), so that the metric is left out of this scrape.
   */
  public OptionalDouble metricValue(String name) {
    try {
      OptionalLong packets = packets(name);
      if (packets.isEmpty()) {
        Log.v(4).info("nfacct counter does not exist (yet); metric left out", "counter", name);
        return OptionalDouble.empty();
      }
      return OptionalDouble.of(packets.getAsLong());
    } catch (IOException | RuntimeException e) {
      Log.error("failed to collect nfacct counter", "counter", name, "err", e.getMessage());
      return OptionalDouble.empty();
    }
  }

  private static byte[] message(int command, int flags, int seq, String name) {
    if (name.length() >= NAME_MAX) {
      throw new IllegalArgumentException("nfacct counter name longer than " + (NAME_MAX - 1) + ": " + name);
    }
    MessageWriter w = new MessageWriter();
    int m = w.beginMessage(NFNL_SUBSYS_ACCT << 8 | command,
        NetlinkExchange.NLM_F_REQUEST | NetlinkExchange.NLM_F_ACK | flags, seq, 0, 0);
    w.string(NFACCT_NAME, name);
    w.endMessage(m);
    return w.toBytes();
  }

  @Override
  public synchronized void close() {
    exchange.close();
  }
}
