package dev.kubeproxy.proxy.nftables;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * Places each policy chain's endpoints in an "endpoint-targets-PROTO-S" map: a chain with N
 * endpoints owns a block of consecutive keys starting at its offset in one map, and its rule picks
 * one with "numgen random mod N offset K". Blocks come in power-of-two sizes so that a chain keeps
 * its block while its endpoint count changes within the size (no rule rewrite for most scaling
 * events).
 *
 * <p>Why shards of {@link #SHARD_KEYS} keys: adding an element to a map costs the kernel a walk
 * over the rules bound to it (nft_add_set_elem), so one map for all chains made a full load cost
 * elements × chains (13 s of 14 s at 10,000 Services × 10). A shard is bound by at most
 * SHARD_KEYS / MIN_BLOCK = 64 chains, which keeps that walk short, and there are few enough shards
 * (157 at 10,000 Services) that looking them up by name stays cheap as well.
 */
final class EndpointSlots {
  static final int MIN_BLOCK = 16;
  static final int SHARD_KEYS = 1024;
  static final String PREFIX = "endpoint-targets-";

  /** Where a chain's endpoints go: the map and the first key of its block. */
  record Slot(String map, int offset) {}

  private record Block(String proto, int shard, int offset, int size) {}

  /** Allocation state of one protocol's shards. */
  private static final class Shards {
    final Map<Integer, Deque<int[]>> freeBySize = new HashMap<>(); // {shard, offset}
    int shards; // shards opened so far
    int current = -1; // the shard new blocks are cut from
    int next = SHARD_KEYS; // next free key of the current shard (full: open another)
  }

  private final Map<String, Block> byChain = new HashMap<>();
  private final Map<String, Shards> byProto = new HashMap<>();

  /** The map name of a protocol's shard, e.g. "endpoint-targets-tcp-0". */
  static String mapName(String proto, int shard) {
    return PREFIX + proto + "-" + shard;
  }

  /** Whether a set or map name is one of the shards. */
  static boolean isShard(String name) {
    return name.startsWith(PREFIX);
  }

  /** The declaration of a shard (its type names the protocol: nft ties "typeof … dport" to it). */
  static NftMap declaration(String map, FamilySyntax syntax) {
    String proto = map.substring(PREFIX.length(), map.lastIndexOf('-'));
    return new NftMap(map, "typeof numgen random mod 1 : " + syntax.ip() + " daddr . " + proto + " dport",
        "endpoints of up to " + SHARD_KEYS / MIN_BLOCK + " " + proto + " services, picked by numgen at each offset");
  }

  /** The chain's block, (re)allocated so that it holds n endpoints. */
  Slot slotFor(String chain, String proto, int n) {
    Block b = byChain.get(chain);
    if (b != null && n <= b.size() && b.proto().equals(proto)) {
      return new Slot(mapName(proto, b.shard()), b.offset());
    }
    if (b != null) {
      release(chain);
    }
    int size = MIN_BLOCK;
    while (size < n) {
      size <<= 1;
    }
    Shards s = byProto.computeIfAbsent(proto, k -> new Shards());
    Deque<int[]> free = s.freeBySize.get(size);
    int shard;
    int offset;
    if (free != null && !free.isEmpty()) {
      int[] f = free.pop();
      shard = f[0];
      offset = f[1];
    } else if (size > SHARD_KEYS) {
      shard = s.shards++; // a block larger than a shard gets a map of its own
      offset = 0;
    } else {
      if (s.next + size > SHARD_KEYS) {
        s.current = s.shards++;
        s.next = 0;
      }
      shard = s.current;
      offset = s.next;
      s.next += size;
    }
    byChain.put(chain, new Block(proto, shard, offset, size));
    return new Slot(mapName(proto, shard), offset);
  }

  /** Gives the chain's block back (its chain is gone or dispatches through endpoint chains). */
  void release(String chain) {
    Block b = byChain.remove(chain);
    if (b != null) {
      byProto.get(b.proto()).freeBySize.computeIfAbsent(b.size(), k -> new ArrayDeque<>())
          .push(new int[] {b.shard(), b.offset()});
    }
  }

  /** Releases the blocks of every chain not in the given set. */
  void retainOnly(Set<String> chains) {
    for (String chain : Set.copyOf(byChain.keySet())) {
      if (!chains.contains(chain)) {
        release(chain);
      }
    }
  }
}
