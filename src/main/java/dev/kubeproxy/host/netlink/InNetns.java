package dev.kubeproxy.host.netlink;

import com.sun.jna.LastErrorException;
import java.io.IOException;

/**
 * Runs a block with the calling thread inside a named network namespace (/var/run/netns/NAME) and
 * brings the thread back afterwards. A socket keeps the namespace it was created in, so creating
 * one inside the block is enough for all its later use from any thread.
 */
public final class InNetns {
  private InNetns() {}

  /** A block that may fail with an IOException. */
  @FunctionalInterface
  public interface IoBlock<T> {
    T run() throws IOException;
  }

  /** Runs block in netns (null: in the thread's own namespace, without switching). */
  public static <T> T call(String netns, IoBlock<T> block) throws IOException {
    if (netns == null) {
      return block.run();
    }
    LibC libc;
    try {
      libc = LibC.load();
    } catch (RuntimeException | LinkageError e) {
      throw new IOException("cannot enter network namespace " + netns + ": libc not loadable: " + e.getMessage(), e);
    }
    int own;
    try {
      own = libc.open("/proc/thread-self/ns/net", LibC.O_RDONLY | LibC.O_CLOEXEC);
    } catch (LastErrorException e) {
      throw new IOException("cannot open this thread's network namespace: " + e.getMessage(), e);
    }
    try {
      try {
        int target = libc.open("/var/run/netns/" + netns, LibC.O_RDONLY | LibC.O_CLOEXEC);
        try {
          libc.setns(target, LibC.CLONE_NEWNET);
        } finally {
          libc.close(target);
        }
      } catch (LastErrorException e) {
        throw new IOException("cannot enter network namespace " + netns + ": " + e.getMessage(), e);
      }
      try {
        return block.run();
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
}
