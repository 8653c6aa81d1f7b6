package dev.kubeproxy.trace.nftables;

import dev.kubeproxy.backend.nftables.objects.Chain;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The table's base chains per netfilter hook, in the order netfilter runs them: by priority, the
 * lowest first (dstnat is -100, filter 0, srcnat 100).
 */
final class BaseChains {

  /** The hooks of the ip and ip6 families. */
  enum Hook { PREROUTING, INPUT, FORWARD, OUTPUT, POSTROUTING }

  private final Map<Hook, List<Chain>> byHook = new EnumMap<>(Hook.class);

  BaseChains(NftRuleset table) {
    for (Hook h : Hook.values()) {
      byHook.put(h, new ArrayList<>());
    }
    for (Chain c : table.chains().values()) {
      if (!c.isBase()) {
        continue;
      }
      Hook hook;
      try {
        hook = Hook.valueOf(c.hook().toUpperCase(Locale.ROOT));
      } catch (IllegalArgumentException e) {
        throw new IllegalStateException("base chain " + c.name() + " has hook " + c.hook()
            + ", which the ip and ip6 families do not have", e);
      }
      if (c.priority() == null) {
        throw new IllegalStateException("base chain " + c.name() + " has no priority");
      }
      byHook.get(hook).add(c);
    }
    // A stable sort: chains of equal priority keep the table's order.
    byHook.values().forEach(l -> l.sort(Comparator.comparingInt(Chain::priority)));
  }

  List<Chain> of(Hook hook) {
    return byHook.get(hook);
  }

  /** Whether a chain is of type nat, which netfilter runs only for a connection's first packet. */
  static boolean isNat(Chain chain) {
    return "nat".equals(chain.type());
  }
}
