package dev.kubeproxy.backend.nftables;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kubeproxy.testutil.tier.Unit;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

@Unit
class EndpointSlotsTest {
  @Test
  void atMostSixtyFourChainsShareAShard() {
    EndpointSlots slots = new EndpointSlots();
    Map<String, Integer> chainsPerMap = new HashMap<>();
    for (int i = 0; i < 130; i++) {
      chainsPerMap.merge(slots.slotFor("service-" + i, "tcp").map(), 1, Integer::sum);
    }
    assertEquals(Map.of("endpoint-ranges-tcp-0", 64, "endpoint-ranges-tcp-1", 64, "endpoint-ranges-tcp-2", 2),
        chainsPerMap);
    assertEquals("endpoint-ranges-udp-0", slots.slotFor("service-u", "udp").map(), "shards are per protocol");
  }

  @Test
  void regionsAreKeptAndReusedWhenFreed() {
    EndpointSlots slots = new EndpointSlots();
    EndpointSlots.Slot a = slots.slotFor("a", "tcp");
    assertEquals(new EndpointSlots.Slot("endpoint-ranges-tcp-0", 0), a);
    assertEquals(a, slots.slotFor("a", "tcp"), "the same region however many endpoints");
    assertEquals(EndpointSlots.REGION, slots.slotFor("b", "tcp").offset());
    slots.release("a");
    assertEquals(0, slots.slotFor("c", "tcp").offset(), "a's region is reused");
    for (int i = 0; i < 200; i++) {
      EndpointSlots.Slot s = slots.slotFor("s" + i, "tcp");
      assertTrue(s.offset() >= 0 && (long) s.offset() + EndpointSlots.MODULUS <= Integer.MAX_VALUE,
          "every key of a region is a non-negative int");
    }
  }

  @Test
  void aNamedReleaseNamesTheChainOnlyWhenSomeChainHoldsARegion() {
    EndpointSlots slots = new EndpointSlots();
    slots.release(() -> {
      throw new AssertionError("no region anywhere: the name is not needed");
    });
    slots.slotFor("a", "tcp");
    slots.slotFor("b", "tcp");
    slots.release(() -> "a");
    assertEquals(0, slots.slotFor("c", "tcp").offset(), "a's region was given back");
  }

  @Test
  void rangesCoverTheModulusInEqualParts() {
    EndpointSlots.Slot s = new EndpointSlots.Slot("m", 2 * EndpointSlots.REGION);
    assertEquals((2 * EndpointSlots.REGION) + "-" + (2 * EndpointSlots.REGION + EndpointSlots.MODULUS / 2 - 1),
        s.range(0, 2));
    assertEquals((2 * EndpointSlots.REGION + EndpointSlots.MODULUS / 2) + "-"
        + (2 * EndpointSlots.REGION + EndpointSlots.MODULUS - 1), s.range(1, 2));
    assertEquals(19, EndpointSlots.modulus(19), "19 does not divide the modulus: keys of width one");
    assertEquals(Integer.toString(2 * EndpointSlots.REGION + 18), s.range(18, 19));
  }

  /**
   * The kernel maps a random u32 v to floor(v × M / 2^32) (reciprocal_scale); the endpoint whose
   * range holds that key must be the one "numgen random mod N" picks for the same v.
   */
  @Test
  void rangesPickTheEndpointThatModNWouldForEveryDraw() {
    Random random = new Random(7);
    for (int n = 1; n <= 40; n++) {
      int modulus = EndpointSlots.modulus(n);
      long width = modulus / n;
      for (int draw = 0; draw < 20_000; draw++) {
        long v = draw < 4 ? new long[] {0, 0xffffffffL, (1L << 32) / n, (1L << 32) / n - 1}[draw]
            : Integer.toUnsignedLong(random.nextInt());
        long modN = (v * n) >>> 32;
        long key = (v * modulus) >>> 32;
        assertEquals(modN, key / width, "n=" + n + " v=" + v);
      }
    }
  }
}
