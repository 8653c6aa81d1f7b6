package dev.kubeproxy.host.netlink;

import com.sun.jna.LastErrorException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.function.LongSupplier;

/**
 * A netlink socket to the kernel (NETLINK_NETFILTER for nf_tables, conntrack and nfacct; others by
 * protocol number), optionally in a named network namespace (the tests work in
 * namespaces of their own; the agent uses its own namespace).
 */
public final class NetlinkSocket implements AutoCloseable {
  private static final int RECEIVE_TIMEOUT_SECONDS = 10;

  private final LibC libc;
  private final int fd;
  private long receiveTimeoutMillis = RECEIVE_TIMEOUT_SECONDS * 1000L;

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

  /** A socket keeps the namespace it was created in: create it with the thread inside that namespace. */
  private static int socketIn(LibC libc, int protocol, String netns) throws IOException {
    return InNetns.call(netns, () -> socket(libc, protocol));
  }

  /**
   * Sizes the socket's send and receive buffers (root may go above the sysctl maxima, as nft does for
   * its batches; otherwise the kernel caps them there). A datagram larger than the send buffer is
   * refused, and answers beyond the receive buffer are dropped (ENOBUFS).
   */
  public void bufferSizes(int sendBytes, int receiveBytes) {
    setInt(LibC.SO_SNDBUFFORCE, LibC.SO_SNDBUF, sendBytes);
    setInt(LibC.SO_RCVBUFFORCE, LibC.SO_RCVBUF, receiveBytes);
  }

  private void setInt(int forced, int capped, int value) {
    byte[] v = new byte[4];
    ByteBuffer.wrap(v).order(ByteOrder.nativeOrder()).putInt(value);
    try {
      libc.setsockopt(fd, LibC.SOL_SOCKET, forced, v, v.length);
    } catch (LastErrorException e) {
      try {
        libc.setsockopt(fd, LibC.SOL_SOCKET, capped, v, v.length); // without CAP_NET_ADMIN
      } catch (LastErrorException ignored) {
        // the default size stays; a too-large batch then fails to send and is reported there
      }
    }
  }

  /**
   * Joins a multicast group (e.g. NFNLGRP_NFTABLES): the kernel's announcements to it are queued
   * for {@link #receive} from the moment this returns.
   */
  public void joinGroup(int group) throws IOException {
    byte[] v = new byte[4];
    ByteBuffer.wrap(v).order(ByteOrder.nativeOrder()).putInt(group);
    try {
      libc.setsockopt(fd, LibC.SOL_NETLINK, LibC.NETLINK_ADD_MEMBERSHIP, v, v.length);
    } catch (LastErrorException e) {
      throw new IOException("cannot join netlink multicast group " + group + ": " + e.getMessage(), e);
    }
  }

  /** How long a waiting {@link #receive} blocks before it reports that no answer came. */
  public void receiveTimeout(java.time.Duration timeout) throws IOException {
    byte[] value = new byte[16]; // struct timeval
    long micros = timeout.toNanos() / 1000;
    ByteBuffer.wrap(value).order(ByteOrder.nativeOrder()).putLong(micros / 1_000_000).putLong(micros % 1_000_000);
    try {
      libc.setsockopt(fd, LibC.SOL_SOCKET, LibC.SO_RCVTIMEO, value, value.length);
      receiveTimeoutMillis = timeout.toMillis();
    } catch (LastErrorException e) {
      throw new IOException("cannot set the netlink receive timeout: " + e.getMessage(), e);
    }
  }

  /** Sends a direct buffer's bytes from 0 to its limit without copying them. */
  public void send(ByteBuffer data) throws IOException {
    if (!data.isDirect() || data.position() != 0) {
      throw new IllegalArgumentException("only a direct buffer from its start is sent as it is");
    }
    sendAll(() -> libc.send(fd, data, data.limit(), 0), data.limit());
  }

  public void send(byte[] data) throws IOException {
    sendAll(() -> libc.send(fd, data, data.length, 0), data.length);
  }

  /** Runs one send call of length bytes; a short write or an errno is an IOException. */
  private static void sendAll(LongSupplier send, int length) throws IOException {
    try {
      long sent = send.getAsLong();
      if (sent != length) {
        throw new IOException("netlink send wrote " + sent + " of " + length + " bytes");
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
          throw new IOException("no answer from the kernel within " + receiveTimeoutMillis + " ms", e);
        }
        return -1;
      }
      if (e.getErrorCode() == LibC.ENOBUFS) {
        throw new Overrun("netlink receive: answers were dropped (receive buffer full): " + e.getMessage(), e);
      }
      throw new IOException("netlink receive: " + e.getMessage(), e);
    }
  }

  /** The kernel dropped answers because the receive buffer was full (ENOBUFS); the socket stays usable. */
  public static final class Overrun extends IOException {
    Overrun(String message, Throwable cause) {
      super(message, cause);
    }
  }

  /** Discards every queued datagram (after an overrun or a failed exchange), so the next answers are fresh. */
  public void drain(byte[] buffer) {
    while (true) {
      try {
        if (receive(buffer, false) < 0) {
          return;
        }
      } catch (Overrun e) {
        // the overrun flag is cleared by reporting it; keep draining
      } catch (IOException e) {
        return;
      }
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
