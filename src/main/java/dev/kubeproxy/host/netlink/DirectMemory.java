package dev.kubeproxy.host.netlink;

import java.lang.reflect.Field;
import java.nio.ByteBuffer;

/**
 * Frees a direct buffer's native memory now instead of when the collector finds the buffer
 * unreachable. Left to the collector, every buffer a large load outgrows or sends stays allocated
 * until a collection finds it, and its cleaner may run after the agent has trimmed the C heap, so
 * glibc keeps the pages. Uses {@code sun.misc.Unsafe#invokeCleaner}, the JDK's own way to do this;
 * where it is missing the buffer is left to its cleaner.
 */
final class DirectMemory {
  private static final sun.misc.Unsafe UNSAFE = unsafe();

  private DirectMemory() {}

  /**
   * Frees the buffer's memory; it must not be used afterwards, nor any duplicate of it. Takes
   * the buffer that {@link ByteBuffer#allocateDirect} returned, not a slice or duplicate.
   */
  static void free(ByteBuffer buffer) {
    if (UNSAFE != null && buffer.isDirect()) {
      UNSAFE.invokeCleaner(buffer);
    }
  }

  private static sun.misc.Unsafe unsafe() {
    try {
      Field f = sun.misc.Unsafe.class.getDeclaredField("theUnsafe");
      f.setAccessible(true);
      return (sun.misc.Unsafe) f.get(null);
    } catch (ReflectiveOperationException | RuntimeException e) {
      return null;
    }
  }
}
