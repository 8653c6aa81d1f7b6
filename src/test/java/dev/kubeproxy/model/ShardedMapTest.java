package dev.kubeproxy.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kubeproxy.testutil.tier.Unit;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

@Unit
class ShardedMapTest {
  @Test
  void snapshotsFollowTheMapAndStayAsTaken() {
    ShardedMap<String, Integer> map = new ShardedMap<>();
    Map<String, Integer> expected = new HashMap<>();
    Random random = new Random(7);
    Map<String, Integer> older = map.snapshot();
    Map<String, Integer> olderExpected = Map.of();
    for (int round = 0; round < 50; round++) {
      for (int k = 0; k < 200; k++) {
        String key = "svc-" + random.nextInt(3000);
        if (random.nextInt(4) == 0) {
          assertEquals(expected.remove(key), map.remove(key));
        } else {
          int value = random.nextInt(5);
          assertEquals(expected.put(key, value), map.put(key, value));
        }
      }
      Map<String, Integer> snap = map.snapshot();
      assertEquals(expected, snap);
      assertEquals(snap, expected);
      assertEquals(expected.size(), snap.size());
      assertEquals(expected.size(), map.size());
      assertEquals(expected.hashCode(), snap.hashCode());
      // a snapshot does not see later writes
      assertEquals(olderExpected, older);
      older = snap;
      olderExpected = Map.copyOf(expected);
    }
  }

  @Test
  void anUnchangedMapHandsOutTheSameSnapshot() {
    ShardedMap<String, Integer> map = new ShardedMap<>();
    map.put("a", 1);
    Map<String, Integer> first = map.snapshot();
    assertSame(first, map.snapshot());
    map.remove("missing");
    assertSame(first, map.snapshot());
    map.put("a", 2);
    Map<String, Integer> second = map.snapshot();
    assertEquals(Map.of("a", 2), second);
    assertEquals(Map.of("a", 1), first);
  }

  @Test
  void snapshotsAreReadOnlyAndAnswerNullKeys() {
    ShardedMap<String, Integer> map = new ShardedMap<>();
    map.put("a", 1);
    Map<String, Integer> snap = map.snapshot();
    assertThrows(UnsupportedOperationException.class, () -> snap.put("b", 2));
    assertThrows(UnsupportedOperationException.class, () -> snap.remove("a"));
    assertThrows(UnsupportedOperationException.class, () -> snap.entrySet().iterator().remove());
    assertNull(snap.get(null));
    assertFalse(snap.containsKey(null));
    assertTrue(snap.containsKey("a"));
    assertEquals(0, map.snapshot().getOrDefault("b", 0));
  }
}
