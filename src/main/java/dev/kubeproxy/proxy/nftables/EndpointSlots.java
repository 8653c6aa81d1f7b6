package dev.kubeproxy.proxy.nftables;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * Places each policy chain's endpoints in its protocol's shared "endpoint-targets-…" map: a chain with N
 * endpoints owns a block of consecutive keys starting at its offset, and its rule picks one with
 * "numgen random mod N offset K". Blocks come in power-of-two sizes so that a chain keeps its block
 * while its endpoint count changes within the size (no rule rewrite for most scaling events).
 */
final class EndpointSlots {
  static final int MIN_BLOCK = 16;

  private record Block(int offset, int size) {}

  private final Map<String, Block> byChain = new HashMap<>();
  private final Map<Integer, Deque<Integer>> freeBySize = new HashMap<>();
  private int next;

  /** The offset of the chain's block, (re)allocated so that it holds n endpoints. */
  int offsetFor(String chain, int n) {
    Block b = byChain.get(chain);
    if (b != null && n <= b.size()) {
      return b.offset();
    }
    if (b != null) {
      release(chain);
    }
    int size = MIN_BLOCK;
    while (size < n) {
      size <<= 1;
    }
    Deque<Integer> free = freeBySize.get(size);
    int offset;
    if (free != null && !free.isEmpty()) {
      offset = free.pop();
    } else {
      offset = next;
      next += size;
    }
    byChain.put(chain, new Block(offset, size));
    return offset;
  }

  /** Gives the chain's block back (its chain is gone or dispatches through endpoint chains). */
  void release(String chain) {
    Block b = byChain.remove(chain);
    if (b != null) {
      freeBySize.computeIfAbsent(b.size(), k -> new ArrayDeque<>()).push(b.offset());
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
