package dev.kubeproxy.proxy.nftables;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class EndpointSlotsTest {
  @Test
  void atMostSixtyFourChainsShareAShard() {
    EndpointSlots slots = new EndpointSlots();
    Map<String, Integer> chainsPerMap = new HashMap<>();
    for (int i = 0; i < 130; i++) {
      chainsPerMap.merge(slots.slotFor("service-" + i, "tcp", 10).map(), 1, Integer::sum);
    }
    assertEquals(Map.of("endpoint-targets-tcp-0", 64, "endpoint-targets-tcp-1", 64, "endpoint-targets-tcp-2", 2),
        chainsPerMap);
    assertEquals("endpoint-targets-udp-0", slots.slotFor("service-u", "udp", 2).map(), "shards are per protocol");
  }

  @Test
  void blocksAreKeptWhileTheyFitAndReusedWhenFreed() {
    EndpointSlots slots = new EndpointSlots();
    EndpointSlots.Slot a = slots.slotFor("a", "tcp", 3);
    assertEquals(new EndpointSlots.Slot("endpoint-targets-tcp-0", 0), a);
    assertEquals(a, slots.slotFor("a", "tcp", 16), "same block while 16 keys hold the endpoints");
    EndpointSlots.Slot b = slots.slotFor("b", "tcp", 2);
    assertEquals(16, b.offset());
    EndpointSlots.Slot grown = slots.slotFor("a", "tcp", 17);
    assertEquals(32, grown.offset(), "a block of 32 after b's");
    assertEquals(0, slots.slotFor("c", "tcp", 5).offset(), "a's first block is reused");
    EndpointSlots.Slot big = slots.slotFor("huge", "tcp", 2000);
    assertEquals(new EndpointSlots.Slot("endpoint-targets-tcp-1", 0), big, "a block over a shard gets its own map");
    assertEquals("endpoint-targets-tcp-0", slots.slotFor("d", "tcp", 4).map(), "small blocks stay in the open shard");
  }
}
