package dev.kubeproxy.host;

import com.sun.jna.Library;
import com.sun.jna.Native;
import dev.kubeproxy.logging.Log;

/**
 * Hands the C heap's free pages back to the kernel (glibc {@code malloc_trim}). Native memory
 * freed after the initial load otherwise stays resident: once a large block has been freed, glibc
 * raises its mmap threshold, so later large blocks come from its arenas and are not unmapped when
 * freed. The JVM's own periodic trim ({@code -XX:TrimNativeHeapInterval}) is missing from older
 * 17 updates, which the launcher still runs on. Elsewhere than glibc this does nothing.
 */
public final class NativeHeapTrim {
  /** The one glibc function this needs. */
  private interface Malloc extends Library {
    int malloc_trim(long pad);
  }

  private NativeHeapTrim() {}

  /** Trims every arena; blocking for as long as glibc walks them (a worker, never an event loop). */
  public static void trim() {
    try {
      Native.load("c", Malloc.class).malloc_trim(0);
    } catch (UnsatisfiedLinkError | RuntimeException e) {
      Log.v(4).info("The C library has no malloc_trim; native free memory stays with the process", "err", e.toString());
    }
  }
}
