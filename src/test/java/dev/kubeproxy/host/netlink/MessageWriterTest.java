package dev.kubeproxy.host.netlink;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kubeproxy.testutil.tier.Unit;
import java.nio.ByteBuffer;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.nio.ByteOrder;
import org.junit.jupiter.api.Test;

@Unit
class MessageWriterTest {
  /** An attribute as the kernel reads it: length and type in host order, the value, padding to four bytes. */
  private static byte[] attribute(int type, byte... value) {
    ByteBuffer b = ByteBuffer.allocate((4 + value.length + 3) & ~3).order(ByteOrder.nativeOrder());
    b.putShort((short) (4 + value.length)).putShort((short) type).put(value);
    return b.array();
  }

  private static byte[] hostOrder(int value, int bytes) {
    ByteBuffer b = ByteBuffer.allocate(bytes).order(ByteOrder.nativeOrder());
    if (bytes == 2) {
      b.putShort((short) value);
    } else {
      b.putInt(value);
    }
    return b.array();
  }

  @Test
  void integersAreWrittenInTheirByteOrderAndPadded() {
    MessageWriter w = new MessageWriter(8); // small: every attribute makes it grow
    w.u32(1, 0x01020304);
    w.be16(2, 0x0506);
    w.hostU32(3, 0x0708090a);
    w.hostU16(4, 0x0b0c);
    w.bytes(5, new byte[] {1, 2, 3});

    ByteBuffer expected = ByteBuffer.allocate(8 + 8 + 8 + 8 + 8);
    expected.put(attribute(1, (byte) 1, (byte) 2, (byte) 3, (byte) 4));
    expected.put(attribute(2, (byte) 5, (byte) 6));
    expected.put(attribute(3, hostOrder(0x0708090a, 4)));
    expected.put(attribute(4, hostOrder(0x0b0c, 2)));
    expected.put(attribute(5, (byte) 1, (byte) 2, (byte) 3));
    assertArrayEquals(expected.array(), w.toBytes());
  }

  @Test
  void anOffHeapWritersMemoryIsFreedAsItGrowsAndWhenReleased() {
    BufferPoolMXBean direct = ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class).stream()
        .filter(p -> p.getName().equals("direct")).findFirst().orElseThrow();
    long margin = 1 << 20; // other tests' buffers freed or allocated meanwhile
    long before = direct.getMemoryUsed();
    MessageWriter w = MessageWriter.offHeap(4096);
    for (int i = 0; w.written().capacity() < (8 << 20); i++) {
      int m = w.beginMessage(0x0a00, 1, i, 2, 0);
      w.bytes(1, new byte[1000]);
      w.endMessage(m);
    }
    int capacity = w.written().capacity();
    // the buffers it outgrew (half as much again, and more) are gone already
    assertTrue(direct.getMemoryUsed() - before < capacity + margin, "outgrown buffers freed");
    assertEquals(0x0a00, w.written().order(ByteOrder.nativeOrder()).getShort(4), "the first message kept through the growth");
    w.release();
    assertTrue(direct.getMemoryUsed() - before < margin, "released without a collection");
  }
}
