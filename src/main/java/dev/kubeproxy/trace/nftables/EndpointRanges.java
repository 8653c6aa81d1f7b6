package dev.kubeproxy.trace.nftables;

import dev.kubeproxy.backend.nftables.objects.Element;
import dev.kubeproxy.backend.nftables.objects.ElementValue;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * What "dnat ... to numgen random mod M offset K map @S" can pick: the draw is a key from K to
 * K+M-1, and the interval map S gives the endpoint of the range holding it. Every endpoint whose
 * range meets those keys can be picked; a key no range holds makes the lookup miss (the rule then
 * does not match).
 */
final class EndpointRanges {
  private EndpointRanges() {}

  /** The endpoints in the map's order, then null when some key of the draw is in no range. */
  static List<ElementValue.Target> reachable(NftRuleset table, String map, int offset, int modulus) {
    long low = offset;
    long high = (long) offset + modulus - 1;
    List<ElementValue.Target> targets = new ArrayList<>();
    List<long[]> covered = new ArrayList<>();
    for (Element e : table.elements(map)) {
      if (e.key().size() != 1 || !(e.value() instanceof ElementValue.Target t)) {
        throw new IllegalStateException("map " + map + " holds " + e.keyText() + " : " + e.valueText()
            + ", not a key range and an endpoint");
      }
      long[] r = KeyParts.range(e.key().get(0));
      long from = Math.max(r[0], low);
      long to = Math.min(r[1], high);
      if (from > to) {
        continue;
      }
      covered.add(new long[] {from, to});
      if (!targets.contains(t)) {
        targets.add(t);
      }
    }
    if (!coversAll(covered, low, high)) {
      targets.add(null);
    }
    return targets;
  }

  private static boolean coversAll(List<long[]> ranges, long low, long high) {
    ranges.sort(Comparator.comparingLong(r -> r[0]));
    long next = low;
    for (long[] r : ranges) {
      if (r[0] > next) {
        return false;
      }
      next = Math.max(next, r[1] + 1);
    }
    return next > high;
  }
}
