package dev.kubeproxy.platform.netlink;

import com.sun.jna.LastErrorException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * A netlink socket to the kernel (NETLINK_NETFILTER for nf_tables, conntrack and nfacct; others by
 * protocol number), optionally in a named network namespace (the tests and the benchmark work in
 * namespaces of their own; the agent uses its own namespace).
 */
public final class NetlinkSocket implements AutoCloseable {
  private static final int RECEIVE_TIMEOUT_SECONDS = 10;

  private final LibC libc;
  private final int fd;

  private NetlinkSocket(LibC libc, int fd) {
    this.libc = libc;
    this.fd = fd;
  }

  /**
   * Opens and binds the socket.
   *
   * @param protocol NETLINK_NETFILTER, NETLINK_GENERIC, NETLINK_ROUTE, …
   * @param netns a namespace under /var/run/netns, or null for the process's own
   */
  public static NetlinkSocket open(LibC libc, int protocol, String netns) throws IOException {
    try {
      int fd = netns == null ? socket(libc, protocol) : socketIn(libc, protocol, netns);
      try {
        byte[] address = new byte[12]; // sockaddr_nl: family, pad, pid 0 (kernel assigns), groups 0
        ByteBuffer.wrap(address).order(ByteOrder.nativeOrder()).putShort((short) LibC.AF_NETLINK);
        libc.bind(fd, address, address.length);
        byte[] timeout = new byte[16]; // struct timeval
        ByteBuffer.wrap(timeout).order(ByteOrder.nativeOrder()).putLong(RECEIVE_TIMEOUT_SECONDS).putLong(0);
        libc.setsockopt(fd, LibC.SOL_SOCKET, LibC.SO_RCVTIMEO, timeout, timeout.length);
      } catch (LastErrorException e) {
        libc.close(fd);
        throw e;
      }
      return new NetlinkSocket(libc, fd);
    } catch (LastErrorException e) {
      throw new IOException("cannot open a netlink socket (protocol " + protocol + "): " + e.getMessage(), e);
    }
  }

  private static int socket(LibC libc, int protocol) {
    return libc.socket(LibC.AF_NETLINK, LibC.SOCK_RAW | LibC.SOCK_CLOEXEC, protocol);
  }

  /** A socket keeps the namespace it was created in: enter it on this thread, create, come back. */
  private static int socketIn(LibC libc, int protocol, String netns) throws IOException {
    int own = libc.open("/proc/thread-self/ns/net", LibC.O_RDONLY | LibC.O_CLOEXEC);
    try {
      int target = libc.open("/var/run/netns/" + netns, LibC.O_RDONLY | LibC.O_CLOEXEC);
      try {
        libc.setns(target, LibC.CLONE_NEWNET);
      } finally {
        libc.close(target);
      }
      try {
        return socket(libc, protocol);
      } finally {
        try {
          libc.setns(own, LibC.CLONE_NEWNET);
        } catch (LastErrorException e) {
          throw new IllegalStateException("cannot return this thread to its network namespace", e);
        }
      }
    } finally {
      libc.close(own);
    }
  }

  public void send(byte[] data) throws IOException {
    try {
      long sent = libc.send(fd, data, data.length, 0);
      if (sent != data.length) {
        throw new IOException("netlink send wrote " + sent + " of " + data.length + " bytes");
      }
    } catch (LastErrorException e) {
      throw new IOException("netlink send: " + e.getMessage(), e);
    }
  }

  /**
   * Receives one datagram into buffer.
   *
   * @param wait block (up to the receive timeout) rather than return at once
   * @return its length, or -1 when nothing is queued (not waiting)
   */
  public int receive(byte[] buffer, boolean wait) throws IOException {
    try {
      return (int) libc.recv(fd, buffer, buffer.length, wait ? 0 : LibC.MSG_DONTWAIT);
    } catch (LastErrorException e) {
      if (e.getErrorCode() == LibC.EAGAIN) {
        if (wait) {
          throw new IOException("no answer from the kernel within " + RECEIVE_TIMEOUT_SECONDS + " s", e);
        }
        return -1;
      }
      throw new IOException("netlink receive: " + e.getMessage(), e);
    }
  }

  public String errorText(int errno) {
    return libc.strerror(errno);
  }

  @Override
  public void close() {
    try {
      libc.close(fd);
    } catch (LastErrorException e) {
      // nothing to do: the descriptor is gone either way
    }
  }
}
