package dev.kubeproxy.host.netlink;

import java.io.IOException;

/**
 * Request and answer on one netlink socket: send a message (or several in one datagram), then
 * read datagrams until every request has its acknowledgement or, for a dump, until NLMSG_DONE,
 * handing each data message to a callback. The receive buffer holds the largest datagram the
 * kernel sends to a reader (netlink dumps stay below 32 KiB plus headers).
 * Not thread-safe: one exchange at a time.
 */
public final class NetlinkExchange implements AutoCloseable {
  public static final int NLM_F_REQUEST = 0x1;
  public static final int NLM_F_MULTI = 0x2;
  public static final int NLM_F_ACK = 0x4;
  public static final int NLM_F_DUMP = 0x300;
  public static final int NLM_F_CREATE = 0x400;

  /** Called for each answer that is not an acknowledgement; the message lies in buffer(). */
  @FunctionalInterface
  public interface Handler {
    void accept(NetlinkMessage message) throws IOException;
  }

  /** The kernel answered a request with this errno. */
  public static final class NetlinkError extends IOException {
    private final int errno;

    public NetlinkError(int errno, String text) {
      super(text + " (errno " + errno + ")");
      this.errno = errno;
    }

    public int errno() {
      return errno;
    }
  }

  private final NetlinkSocket socket;
  private final byte[] buffer = new byte[64 * 1024];
  private int nextSequence = (int) (System.nanoTime() & 0x3fffffff);

  public NetlinkExchange(NetlinkSocket socket) {
    this.socket = socket;
  }

  /** A fresh sequence number for the next message. */
  public int nextSequence() {
    return nextSequence++;
  }

  /** The receive buffer the messages handed to a {@link Handler} lie in. */
  public byte[] buffer() {
    return buffer;
  }

  /**
   * Sends one dump request (built with NLM_F_REQUEST | NLM_F_DUMP) and hands every answer message
   * to handler until NLMSG_DONE.
   *
   * @throws NetlinkError the kernel refused the dump (e.g. EINTR when the table changed meanwhile)
   */
  public void dump(byte[] request, int sequence, Handler handler) throws IOException {
    socket.send(request);
    while (true) {
      int length = socket.receive(buffer, true);
      for (NetlinkMessage m : NetlinkMessage.parse(buffer, length)) {
        if (m.sequence() != sequence) {
          continue; // a late answer to an earlier exchange
        }
        if (m.type() == NetlinkMessage.NLMSG_DONE) {
          return;
        }
        if (m.type() == NetlinkMessage.NLMSG_ERROR) {
          if (m.errno() != 0) {
            throw new NetlinkError(m.errno(), socket.errorText(m.errno()));
          }
          continue;
        }
        handler.accept(m);
      }
    }
  }

  /**
   * Sends a datagram of requests, each with NLM_F_ACK and its own sequence number in
   * [firstSequence, firstSequence + count), and waits for every acknowledgement.
   *
   * @param errnos filled with each request's errno (0 = done), indexed from firstSequence
   * @param handler gets data answers (e.g. the object a GET returns); may be null
   */
  public void requests(byte[] datagram, int firstSequence, int count, int[] errnos, Handler handler)
      throws IOException {
    socket.send(datagram);
    int answered = 0;
    while (answered < count) {
      int length = socket.receive(buffer, true);
      for (NetlinkMessage m : NetlinkMessage.parse(buffer, length)) {
        int index = m.sequence() - firstSequence;
        if (index < 0 || index >= count) {
          continue;
        }
        if (m.type() == NetlinkMessage.NLMSG_ERROR) {
          errnos[index] = m.errno();
          answered++;
        } else if (handler != null) {
          handler.accept(m);
        }
      }
    }
  }

  public String errorText(int errno) {
    return socket.errorText(errno);
  }

  @Override
  public void close() {
    socket.close();
  }
}
