package dev.kubeproxy.host.netlink;

import com.sun.jna.LastErrorException;
import com.sun.jna.Library;
import com.sun.jna.Native;
import java.nio.Buffer;

/** The few libc calls a netlink socket needs (Java's own sockets have no AF_NETLINK). */
public interface LibC extends Library {
  int AF_NETLINK = 16;
  int SOCK_RAW = 3;
  int SOCK_CLOEXEC = 0x80000;
  int NETLINK_ROUTE = 0;
  int NETLINK_NETFILTER = 12;
  int NETLINK_GENERIC = 16;
  int SOL_SOCKET = 1;
  int SOL_NETLINK = 270;
  int NETLINK_ADD_MEMBERSHIP = 1;
  int SO_RCVTIMEO = 20;
  int SO_SNDBUF = 7;
  int SO_RCVBUF = 8;
  int SO_SNDBUFFORCE = 32;
  int SO_RCVBUFFORCE = 33;
  int MSG_DONTWAIT = 0x40;
  int O_RDONLY = 0;
  int O_CLOEXEC = 0x80000;
  int CLONE_NEWNET = 0x40000000;
  int EAGAIN = 11;
  int ENOBUFS = 105;

  /** Loads libc; throws (UnsatisfiedLinkError, …) where JNA's native part cannot be loaded. */
  static LibC load() {
    return Native.load("c", LibC.class);
  }

  int socket(int domain, int type, int protocol) throws LastErrorException;

  int bind(int fd, byte[] address, int length) throws LastErrorException;

  long send(int fd, byte[] buffer, long length, int flags) throws LastErrorException;

  /** A direct buffer is passed as its address: sent from where it is, from its start. */
  long send(int fd, Buffer buffer, long length, int flags) throws LastErrorException;

  long recv(int fd, byte[] buffer, long length, int flags) throws LastErrorException;

  int setsockopt(int fd, int level, int name, byte[] value, int length) throws LastErrorException;

  int close(int fd) throws LastErrorException;

  int open(String path, int flags) throws LastErrorException;

  int setns(int fd, int nstype) throws LastErrorException;

  String strerror(int errnum);
}
