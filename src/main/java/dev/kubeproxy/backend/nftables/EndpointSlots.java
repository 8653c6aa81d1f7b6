package dev.kubeproxy.backend.nftables;

import dev.kubeproxy.backend.nftables.objects.NftMap;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

/**
 * Places each policy chain's endpoints in an "endpoint-ranges-PROTO-S" interval map: a chain owns
 * a region of {@link #REGION} keys starting at its offset, its rule draws
 * "numgen random mod M offset K", and its N endpoints hold N equal ranges of the M keys.
 *
 * <p>Why ranges: the kernel maps a random 32-bit value v to floor(v × M / 2^32), so when N divides
 * M the range [i × M/N, (i + 1) × M/N) holds exactly the v that "numgen random mod N" maps to i:
 * the same endpoint for the same draw, each with probability 1/N. M is {@link #MODULUS} (divisible
 * by every N up to 18 and many more), so the rule does not change when a Service gains or loses an
 * endpoint: only elements change. A rule change would make the kernel revalidate the whole table
 * (nf_tables_validate walks every chain reachable from the base chains through the service-ips
 * map), element changes of a map without verdicts do not.
 * An N that does not divide M gets M = N (keys of width one), and its rule changes with N.
 *
 * <p>Why shards of {@link #REGIONS} regions: adding an element to a map costs the kernel a walk
 * over the rules bound to it (nft_add_set_elem), so one map for all chains made a full load cost
 * elements × chains, most of a large full load. A shard is bound by at most 64 chains, which keeps
 * that walk short, and there are few enough shards that looking them up by name stays cheap.
 */
final class EndpointSlots {
  /** Divisible by 1 to 18, 20, 21, 22, 24, 26, 28, 30, 32, …: 2^5 × 3^2 × 5 × 7 × 11 × 13 × 17. */
  static final int MODULUS = 24_504_480;
  /** Keys per chain: a power of two above MODULUS, so that every key of a shard fits a signed int. */
  static final int REGION = 1 << 25;
  static final int REGIONS = 64;
  static final String PREFIX = "endpoint-ranges-";
  /**
   * The endpoint maps of earlier layouts ("endpoint-targets-tcp", then its shards
   * "endpoint-targets-tcp-0", …: no key ranges). A new name, so that declaring a shard never meets
   * one of them (the kernel refuses to redeclare a map with other flags); nothing refers to them
   * once the chains are rewritten, and a reconciling resync deletes them.
   */
  static final String EARLIER_MAPS = "endpoint-targets-";

  /** Where a chain's endpoints go: the map and the first key of its region. */
  record Slot(String map, int offset) {
    /** The keys of the i-th of n endpoints, as nft writes them ("LO-HI", or "K" for one key). */
    String range(int i, int n) {
      int modulus = modulus(n);
      int width = modulus / n;
      int lo = offset + i * width;
      return width == 1 ? Integer.toString(lo) : lo + "-" + (lo + width - 1);
    }
  }

  /** The modulus of the rule of a chain with n endpoints. */
  static int modulus(int n) {
    return MODULUS % n == 0 ? MODULUS : n;
  }

  private record Region(String proto, int shard, int index) {}

  /** Allocation state of one protocol's shards. */
  private static final class Shards {
    final Deque<Region> free = new ArrayDeque<>();
    int opened; // regions handed out so far (shard = opened / REGIONS)
  }

  private final Map<String, Region> byChain = new HashMap<>();
  private final Map<String, Shards> byProto = new HashMap<>();

  /** The map name of a protocol's shard, e.g. "endpoint-ranges-tcp-0". */
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
        List.of("interval"), "endpoints of up to " + REGIONS + " " + proto + " services, a key range each");
  }

  /** The chain's region (kept while the chain exists, whatever its endpoint count). */
  Slot slotFor(String chain, String proto) {
    Region r = byChain.get(chain);
    if (r != null && r.proto().equals(proto)) {
      return slot(r);
    }
    if (r != null) {
      release(chain);
    }
    Shards s = byProto.computeIfAbsent(proto, k -> new Shards());
    r = s.free.isEmpty() ? new Region(proto, s.opened / REGIONS, s.opened++ % REGIONS) : s.free.pop();
    byChain.put(chain, r);
    return slot(r);
  }

  private static Slot slot(Region r) {
    return new Slot(mapName(r.proto(), r.shard()), r.index() * REGION);
  }

  /**
   * Gives back the region of the chain the supplier names, if any; the name (a hash) is computed
   * only when some chain holds a region, which is never so in a cluster of single-endpoint ports.
   */
  void release(Supplier<String> chain) {
    if (!byChain.isEmpty()) {
      release(chain.get());
    }
  }

  /** Gives the chain's region back (its chain is gone or dispatches without the map). */
  void release(String chain) {
    Region r = byChain.remove(chain);
    if (r != null) {
      byProto.get(r.proto()).free.push(r);
    }
  }

  /** Releases the regions of every chain not in the given set. */
  void retainOnly(Set<String> chains) {
    for (String chain : Set.copyOf(byChain.keySet())) {
      if (!chains.contains(chain)) {
        release(chain);
      }
    }
  }
}
