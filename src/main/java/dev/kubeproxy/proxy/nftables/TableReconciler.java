package dev.kubeproxy.proxy.nftables;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Turns a full-sync transaction (the whole desired table) into the smaller transaction that brings
 * the kernel's current table to the same state: missing chains, sets and maps are created,
 * differing elements deleted and added, chains whose rules differ (or that are missing) flushed and
 * rewritten, unexpected sets and maps deleted and unexpected chains flushed (the caller deletes
 * them after the grace period). Everything else is left alone, which is what makes the periodic
 * resync of a large table cheap.
 *
 * <p>Rules: the kernel prints rules in its own form, so a chain's rules are compared by count, and
 * with the kernel form seen at the previous reconcile while the desired rules of the chain have not
 * changed since ({@link #seen}); a chain whose desired rules differ from what the last full sync
 * wrote or checked there is rewritten. A rule edited in place (same count) between a chain being
 * written and the next reconcile is therefore not caught until the chain's rules change. Chains
 * created or changed by partial syncs are rewritten once more at the next reconcile.
 */
final class TableReconciler {
  /**
   * What this process knows of a chain in the kernel: the rules it last wrote or checked there, and
   * the hash of the kernel's form of them (null: written but not read back yet).
   */
  private record Seen(List<Rule> desired, Integer kernelHash) {}

  /** The desired table, read from a full-sync transaction. */
  private static final class Desired {
    final Map<String, Chain> chains = new LinkedHashMap<>();
    final Map<String, List<Rule>> rules = new HashMap<>();
    final Map<String, NftObject> containers = new LinkedHashMap<>();
    final Map<String, LinkedHashMap<String, Element>> elements = new HashMap<>();
  }

  /** The transaction to send and the chains it flushed because nothing wants them any more. */
  record Result(Transaction transaction, List<String> unexpectedChains, int rewrittenChains,
      int elementChanges) {}

  private Map<String, Seen> seen = new HashMap<>();
  /** What {@link #seen} becomes once the transaction being built is applied. */
  private Map<String, Seen> pending;

  void forget() {
    seen.clear();
    pending = null;
  }

  /** A plain full load of this transaction is about to be sent. */
  void loading(Transaction full) {
    Desired want = read(full);
    pending = new HashMap<>();
    want.chains.keySet().forEach(c -> pending.put(c, new Seen(want.rules.getOrDefault(c, List.of()), null)));
  }

  /** The transaction of the last {@link #loading} or {@link #reconcile} is in the kernel now. */
  void applied() {
    if (pending != null) {
      seen = pending;
      pending = null;
    }
  }

  Result reconcile(Transaction full, KernelTable kernel) {
    Desired want = read(full);
    Transaction tx = new Transaction();
    tx.add(new Table("rules for kube-proxy"));
    for (Chain chain : want.chains.values()) {
      if (!kernel.chains().containsKey(chain.name())) {
        tx.add(chain);
      }
    }
    for (Map.Entry<String, NftObject> c : want.containers.entrySet()) {
      if (!kernel.containers().containsKey(c.getKey())) {
        tx.add(c.getValue());
      }
    }
    // Elements first out (they may point at chains flushed below), then the chains, then new elements.
    List<Element> additions = new ArrayList<>();
    int elementChanges = 0;
    for (Map.Entry<String, NftObject> c : want.containers.entrySet()) {
      if (dynamic(c.getValue())) {
        continue; // affinity sets: the rules fill them
      }
      Map<String, Element> desired = want.elements.getOrDefault(c.getKey(), new LinkedHashMap<>());
      Map<String, String> actual = kernel.containers().getOrDefault(c.getKey(), Map.of());
      boolean inMap = c.getValue() instanceof NftMap;
      for (Map.Entry<String, String> e : actual.entrySet()) {
        Element d = desired.get(e.getKey());
        if (d == null || !KernelTable.elementText(d).equals(e.getValue())) {
          tx.delete(new Element(c.getKey(), inMap, List.of(e.getKey().split(" \\. ")), null, null));
          elementChanges++;
        }
      }
      for (Element d : desired.values()) {
        if (!KernelTable.elementText(d).equals(actual.get(d.keyText()))) {
          additions.add(d);
          elementChanges++;
        }
      }
    }
    int rewritten = 0;
    Map<String, Seen> nextSeen = new HashMap<>();
    for (Chain chain : want.chains.values()) {
      List<Rule> rules = want.rules.getOrDefault(chain.name(), List.of());
      List<String> actual = kernel.chains().get(chain.name());
      if (actual != null && !differs(chain.name(), rules, actual)) {
        nextSeen.put(chain.name(), new Seen(rules, actual.hashCode()));
        continue;
      }
      nextSeen.put(chain.name(), new Seen(rules, null));
      if (actual != null) {
        tx.flush(chain);
      }
      rules.forEach(tx::add);
      rewritten++;
    }
    pending = nextSeen;
    for (Element e : additions) {
      tx.add(e);
    }
    List<String> unexpected = new ArrayList<>();
    for (Map.Entry<String, List<String>> c : kernel.chains().entrySet()) {
      if (!want.chains.containsKey(c.getKey())) {
        if (!c.getValue().isEmpty()) {
          tx.flush(Chain.regular(c.getKey()));
        }
        unexpected.add(c.getKey());
      }
    }
    for (String name : kernel.containers().keySet()) {
      if (!want.containers.containsKey(name)) {
        tx.delete(kernel.maps().contains(name) ? new NftMap(name, "", null) : NftSet.of(name, "", null));
      }
    }
    return new Result(tx, unexpected, rewritten, elementChanges);
  }

  private boolean differs(String chain, List<Rule> desired, List<String> actual) {
    if (desired.size() != actual.size()) {
      return true;
    }
    Seen before = seen.get(chain);
    if (before == null) {
      return true; // created by a partial sync since the last full one: write it once more to know it
    }
    if (!before.desired().equals(desired)) {
      return true;
    }
    // First read since it was written: the count matched, so this is the kernel's form of it.
    return before.kernelHash() != null && before.kernelHash() != actual.hashCode();
  }

  private static boolean dynamic(NftObject container) {
    return container instanceof NftSet s && (!s.flags().isEmpty() || s.timeoutSeconds() > 0);
  }

  /** Plays the full transaction onto an empty table, as the kernel would after a fresh load. */
  private static Desired read(Transaction full) {
    Desired d = new Desired();
    for (Transaction.Operation op : full.operations()) {
      NftObject o = op.object();
      switch (op.verb()) {
        case ADD, CREATE -> {
          if (o instanceof Chain c) {
            d.chains.putIfAbsent(c.name(), c);
          } else if (o instanceof Rule r) {
            d.rules.computeIfAbsent(r.chain(), k -> new ArrayList<>()).add(r);
          } else if (o instanceof Element e) {
            d.elements.computeIfAbsent(e.container(), k -> new LinkedHashMap<>()).putIfAbsent(e.keyText(), e);
          } else if (o instanceof NftSet || o instanceof NftMap) {
            d.containers.putIfAbsent(containerName(o), o);
          }
        }
        case FLUSH -> {
          if (o instanceof Chain c) {
            d.rules.remove(c.name());
          } else if (!(o instanceof Table)) {
            d.elements.remove(containerName(o));
          }
        }
        case DELETE -> {
          if (o instanceof Chain c) {
            d.chains.remove(c.name());
            d.rules.remove(c.name());
          } else if (o instanceof Element e) {
            Map<String, Element> m = d.elements.get(e.container());
            if (m != null) {
              m.remove(e.keyText());
            }
          } else if (!(o instanceof Table)) {
            d.containers.remove(containerName(o));
            d.elements.remove(containerName(o));
          }
        }
        default -> throw new IllegalStateException("unexpected verb " + op.verb());
      }
    }
    return d;
  }

  private static String containerName(NftObject o) {
    return Objects.requireNonNull(o instanceof NftSet s ? s.name() : o instanceof NftMap m ? m.name() : null,
        "not a set or map");
  }
}
