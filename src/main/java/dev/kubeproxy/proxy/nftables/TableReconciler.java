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
 * resync of a large table cheap. Rules and elements compare exactly, in the forms of the
 * {@link TableReader} that read the table (a rule edited in place is found like any other change).
 */
final class TableReconciler {
  /** The desired table, read from a full-sync transaction. */
  private static final class Desired {
    final Map<String, Chain> chains = new LinkedHashMap<>();
    final Map<String, List<Rule>> rules = new HashMap<>();
    final Map<String, NftObject> containers = new LinkedHashMap<>();
    final Map<String, LinkedHashMap<List<String>, Element>> elements = new HashMap<>();
  }

  /** The transaction to send and the chains it flushed because nothing wants them any more. */
  record Result(Transaction transaction, List<String> unexpectedChains, int rewrittenChains,
      int elementChanges) {}

  private TableReconciler() {}

  static Result reconcile(Transaction full, KernelTable kernel, TableReader forms) {
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
      Map<List<String>, Element> desired = want.elements.getOrDefault(c.getKey(), new LinkedHashMap<>());
      Map<String, KernelTable.Entry> actual = kernel.containers().getOrDefault(c.getKey(), Map.of());
      // One pass over the desired elements (a look-up and a comparison each); the kernel's
      // elements are walked only when some of them matched nothing.
      List<String> matched = new ArrayList<>(desired.size());
      List<Element> missing = new ArrayList<>();
      for (Element d : desired.values()) {
        String key = forms.keyForm(d);
        KernelTable.Entry now = actual.get(key);
        if (now != null && forms.elementForm(d).equals(now.form())) {
          matched.add(key);
        } else {
          missing.add(d);
        }
      }
      List<Element> deletions = new ArrayList<>();
      boolean undecodable = false;
      if (matched.size() != actual.size()) {
        java.util.Set<String> keep = new java.util.HashSet<>(matched);
        for (Map.Entry<String, KernelTable.Entry> e : actual.entrySet()) {
          if (!keep.contains(e.getKey())) {
            Element gone = e.getValue().element();
            undecodable |= gone == null;
            deletions.add(gone);
          }
        }
      }
      if (undecodable) {
        // Something this agent cannot name is in it: empty the set or map and fill it again.
        tx.flush(c.getValue());
        additions.addAll(desired.values());
        elementChanges += actual.size() + desired.size();
        continue;
      }
      deletions.forEach(tx::delete);
      additions.addAll(missing);
      elementChanges += deletions.size() + missing.size();
    }
    int rewritten = 0;
    for (Chain chain : want.chains.values()) {
      List<Rule> rules = want.rules.getOrDefault(chain.name(), List.of());
      List<String> actual = kernel.chains().get(chain.name());
      if (actual != null && sameRules(rules, actual, forms)) {
        continue;
      }
      if (actual != null && !actual.isEmpty()) {
        tx.flush(chain);
      }
      rules.forEach(tx::add);
      rewritten++;
    }
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

  private static boolean sameRules(List<Rule> desired, List<String> actual, TableReader forms) {
    if (desired.size() != actual.size()) {
      return false;
    }
    for (int i = 0; i < desired.size(); i++) {
      if (!forms.ruleForm(desired.get(i)).equals(actual.get(i))) {
        return false;
      }
    }
    return true;
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
            d.elements.computeIfAbsent(e.container(), k -> new LinkedHashMap<>()).putIfAbsent(e.key(), e);
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
            Map<List<String>, Element> m = d.elements.get(e.container());
            if (m != null) {
              m.remove(e.key());
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
