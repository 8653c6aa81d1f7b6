package dev.kubeproxy.proxy.nftables;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;

/**
 * Turns a full-sync transaction (the whole desired table) into the smaller transaction that brings
 * the kernel's current table to the same state: missing chains, sets and maps are created,
 * differing elements deleted and added, chains whose rules differ (or that are missing) flushed and
 * rewritten, unexpected sets and maps deleted and unexpected chains flushed (the caller deletes
 * them after the grace period). Everything else is left alone, which is what makes the periodic
 * resync of a large table cheap. Rules and elements compare exactly, in the forms of the
 * {@link TableReader} that read the table (a rule edited in place is found like any other change).
 *
 * <p>It compares while the table is read ({@link TableVisitor}): each rule and each element is
 * checked as it arrives and only the differences are kept, so the table read back is never held
 * whole beside the desired one (at 10,000 Services that pair kept the collector busy for about as
 * long as the comparison itself).
 */
final class TableReconciler implements TableVisitor {
  /** The desired table, read from a full-sync transaction. */
  private static final class Desired {
    final Map<String, Chain> chains = new LinkedHashMap<>();
    final Map<String, List<Rule>> rules = new HashMap<>();
    final Map<String, NftObject> containers = new LinkedHashMap<>();
    /** Each container's elements in the order added (a list, not a map: 220,000 of them at 10,000 Services). */
    final Map<String, List<Element>> elements = new HashMap<>();

    List<Element> elements(String container) {
      return elements.getOrDefault(container, List.of());
    }
  }

  /** A kernel chain's rules so far: how many, and whether each was the desired one at its place. */
  private static final class ChainRules {
    int count;
    boolean same = true;
  }

  /** What a set or map the kernel has needs: the elements to delete and add, or a flush and refill. */
  private record ElementChanges(List<Element> deletions, List<Element> additions, boolean flush, int kernelCount) {}

  /** A desired element and its form. */
  private record Wanted(Element element, String form) {}

  /** The transaction to send and the chains it flushed because nothing wants them any more. */
  record Result(Transaction transaction, List<String> unexpectedChains, int rewrittenChains,
      int elementChanges) {}

  private final Desired want;
  private final TableReader forms;
  private final Map<String, ChainRules> kernelChains = new LinkedHashMap<>();
  private final Set<String> kernelContainers = new LinkedHashSet<>();
  private final Set<String> kernelMaps = new HashSet<>();
  private final Map<String, ElementChanges> elementChanges = new HashMap<>();
  /** The desired elements of the container being read that no kernel element has matched yet, by key form. */
  private LinkedHashMap<String, Wanted> unmatched;
  private List<Supplier<Element>> unwanted;
  private int kernelCount;

  private TableReconciler(Desired want, TableReader forms) {
    this.want = want;
    this.forms = forms;
  }

  /**
   * Reads the kernel's table with reader and compares it with the full transaction.
   *
   * @return the differences; empty when the kernel has no table
   */
  static Optional<Result> reconcile(Transaction full, TableReader reader) throws NftablesException {
    Desired want = read(full);
    return reader.read(() -> new TableReconciler(want, reader)).map(TableReconciler::result);
  }

  @Override
  public void chain(String name) {
    kernelChains.putIfAbsent(name, new ChainRules());
  }

  @Override
  public void rule(String chain, String form) {
    ChainRules seen = kernelChains.computeIfAbsent(chain, k -> new ChainRules());
    List<Rule> desired = want.rules.getOrDefault(chain, List.of());
    int at = seen.count++;
    if (seen.same && (at >= desired.size() || !forms.ruleForm(desired.get(at)).equals(form))) {
      seen.same = false;
    }
  }

  @Override
  public void container(String name, boolean map) {
    kernelContainers.add(name);
    if (map) {
      kernelMaps.add(name);
    }
    NftObject desired = want.containers.get(name);
    if (desired == null || dynamic(desired)) {
      return; // deleted whole, or filled by the rules (affinity sets): its elements are not compared
    }
    List<Element> elements = want.elements(name);
    unmatched = new LinkedHashMap<>(elements.size() * 4 / 3 + 1);
    for (Element d : elements) {
      String key = forms.keyForm(d);
      unmatched.putIfAbsent(key, new Wanted(d, forms.elementForm(d))); // both now: the encoder reuses the key it just encoded
    }
    unwanted = new ArrayList<>();
    kernelCount = 0;
  }

  @Override
  public void element(String key, String form, Supplier<Element> decoder) {
    if (unmatched == null) {
      return;
    }
    kernelCount++;
    Wanted d = unmatched.get(key);
    if (d != null && d.form().equals(form)) {
      unmatched.remove(key);
    } else {
      unwanted.add(decoder); // absent from the model, or another value: deleted (and the desired one added)
    }
  }

  @Override
  public void endContainer(String name) {
    if (unmatched == null) {
      return;
    }
    List<Element> deletions = new ArrayList<>(unwanted.size());
    boolean undecodable = false;
    for (Supplier<Element> u : unwanted) {
      Element gone = u.get();
      undecodable |= gone == null;
      deletions.add(gone);
    }
    // Something this agent cannot name is in it: empty the set or map and fill it again.
    elementChanges.put(name, undecodable
        ? new ElementChanges(List.of(), new ArrayList<>(want.elements(name)), true, kernelCount)
        : new ElementChanges(deletions, unmatched.values().stream().map(Wanted::element).toList(), false, kernelCount));
    unmatched = null;
    unwanted = null;
  }

  /** The transaction: what is missing first, element deletions before the chains they may point at. */
  private Result result() {
    Transaction tx = new Transaction();
    tx.add(new Table("rules for kube-proxy"));
    for (Chain chain : want.chains.values()) {
      if (!kernelChains.containsKey(chain.name())) {
        tx.add(chain);
      }
    }
    for (Map.Entry<String, NftObject> c : want.containers.entrySet()) {
      if (!kernelContainers.contains(c.getKey())) {
        tx.add(c.getValue());
      }
    }
    // Elements first out (they may point at chains flushed below), then the chains, then new elements.
    List<Element> additions = new ArrayList<>();
    int changedElements = 0;
    for (Map.Entry<String, NftObject> c : want.containers.entrySet()) {
      if (dynamic(c.getValue())) {
        continue; // affinity sets: the rules fill them
      }
      ElementChanges changes = elementChanges.get(c.getKey());
      if (changes == null) { // not in the kernel: all of it
        additions.addAll(want.elements(c.getKey()));
        changedElements += want.elements(c.getKey()).size();
        continue;
      }
      if (changes.flush()) {
        tx.flush(c.getValue());
        changedElements += changes.kernelCount();
      }
      changes.deletions().forEach(tx::delete);
      additions.addAll(changes.additions());
      changedElements += changes.deletions().size() + changes.additions().size();
    }
    int rewritten = 0;
    for (Chain chain : want.chains.values()) {
      List<Rule> rules = want.rules.getOrDefault(chain.name(), List.of());
      ChainRules seen = kernelChains.get(chain.name());
      if (seen != null && seen.same && seen.count == rules.size()) {
        continue;
      }
      if (seen != null && seen.count > 0) {
        tx.flush(chain);
      }
      rules.forEach(tx::add);
      rewritten++;
    }
    for (Element e : additions) {
      tx.add(e);
    }
    List<String> unexpected = new ArrayList<>();
    for (Map.Entry<String, ChainRules> c : kernelChains.entrySet()) {
      if (!want.chains.containsKey(c.getKey())) {
        if (c.getValue().count > 0) {
          tx.flush(Chain.regular(c.getKey()));
        }
        unexpected.add(c.getKey());
      }
    }
    for (String name : kernelContainers) {
      if (!want.containers.containsKey(name)) {
        tx.delete(kernelMaps.contains(name) ? new NftMap(name, "", null) : NftSet.of(name, "", null));
      }
    }
    return new Result(tx, unexpected, rewritten, changedElements);
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
            d.elements.computeIfAbsent(e.container(), k -> new ArrayList<>()).add(e); // a repeated key counts once, as in the kernel
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
            List<Element> l = d.elements.get(e.container());
            if (l != null) {
              l.removeIf(x -> x.key().equals(e.key())); // not in a full sync's transaction: no index for it
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
