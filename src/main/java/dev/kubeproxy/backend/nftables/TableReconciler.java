package dev.kubeproxy.backend.nftables;

import dev.kubeproxy.backend.nftables.objects.Chain;
import dev.kubeproxy.backend.nftables.objects.Element;
import dev.kubeproxy.backend.nftables.objects.NftCounter;
import dev.kubeproxy.backend.nftables.objects.NftMap;
import dev.kubeproxy.backend.nftables.objects.NftObject;
import dev.kubeproxy.backend.nftables.objects.NftSet;
import dev.kubeproxy.backend.nftables.objects.NftablesException;
import dev.kubeproxy.backend.nftables.objects.Rule;
import dev.kubeproxy.backend.nftables.objects.Statement;
import dev.kubeproxy.backend.nftables.objects.Table;
import dev.kubeproxy.backend.nftables.objects.TableReader;
import dev.kubeproxy.backend.nftables.objects.TableVisitor;
import dev.kubeproxy.backend.nftables.objects.Transaction;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Turns the whole desired table ({@link DesiredTable}) into the transaction that brings
 * the kernel's current table to the same state: missing chains, sets and maps are created,
 * differing elements deleted and added, chains whose rules differ (or that are missing) flushed and
 * rewritten, unexpected sets and maps deleted and unexpected chains flushed (the caller deletes
 * them after the grace period). Everything else is left alone, which is what makes the periodic
 * resync of a large table cheap. Rules and elements compare exactly, in the forms of the
 * {@link TableReader} that read the table (a rule edited in place is found like any other change).
 *
 * <p>It compares while the table is read ({@link TableVisitor}): each rule and each element is
 * checked as it arrives and only the differences are kept, so the table read back is never held
 * whole beside the desired one (a pair the collector would have to work through at every resync).
 */
final class TableReconciler implements TableVisitor {
  /** A kernel chain's rules so far: how many, and whether each was the desired one at its place. */
  private static final class ChainRules {
    int count;
    boolean same = true;
  }

  /** What a set or map the kernel has needs: the elements to delete and add, or a flush and refill. */
  private record ElementChanges(List<Element> deletions, List<Element> additions, boolean flush, int kernelCount) {}

  /** The transaction to send and the chains it flushed because nothing wants them any more. */
  record Result(Transaction transaction, List<String> unexpectedChains, int rewrittenChains,
      int elementChanges) {}

  private final DesiredTable want;
  private final TableReader forms;
  private final Map<String, ChainRules> kernelChains = new LinkedHashMap<>();
  private final Set<String> kernelContainers = new LinkedHashSet<>();
  private final Set<String> kernelMaps = new HashSet<>();
  private final Map<String, ElementChanges> elementChanges = new HashMap<>();
  /** Where each container's desired elements are kept while it is read (one for every resync of the table). */
  private final DesiredElements desiredElements;
  /** The desired elements of the container being read (null: its elements are not compared). */
  private DesiredElements desired;
  /** The kernel's elements of that container that are not desired as they are, decoded (null: one could not be). */
  private List<Element> unwanted;
  private String container;
  private boolean map;
  private int kernelCount;

  private TableReconciler(DesiredTable want, TableReader forms, DesiredElements desiredElements) {
    this.want = want;
    this.forms = forms;
    this.desiredElements = desiredElements;
  }

  /**
   * Reads the kernel's table with reader and compares it with the desired one.
   *
   * @param desiredElements where the desired elements of each set are kept while it is compared
   * @return the differences; empty when the kernel has no table
   */
  static Optional<Result> reconcile(DesiredTable want, TableReader reader, DesiredElements desiredElements)
      throws NftablesException {
    return reader.read(() -> new TableReconciler(want, reader, desiredElements)).map(TableReconciler::result);
  }

  @Override
  public void chain(String name) {
    kernelChains.putIfAbsent(name, new ChainRules());
  }

  @Override
  public void rule(String chain, String form) {
    ChainRules seen = kernelChains.computeIfAbsent(chain, k -> new ChainRules());
    List<Rule> desired = want.rules(chain);
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
    NftObject declared = want.containers().get(name);
    if (declared == null || dynamic(declared)) {
      return; // deleted whole, or filled by the rules (affinity sets): its elements are not compared
    }
    desired = desiredElements.fill(elements -> want.forEachElement(name, elements), forms);
    unwanted = new ArrayList<>();
    container = name;
    this.map = map;
    kernelCount = 0;
  }

  @Override
  public void element(char[] chars, int keyStart, int keyEnd, int end) {
    if (desired == null) {
      return;
    }
    kernelCount++;
    if (!desired.holds(chars, keyStart, keyEnd, end)) { // absent from the model, or another value: deleted (and the desired one added)
      unwanted.add(forms.decode(container, map, chars, keyStart, keyEnd));
    }
  }

  @Override
  public void endContainer(String name) {
    if (desired == null) {
      return;
    }
    // Something this agent cannot name is in it: empty the set or map and fill it again.
    elementChanges.put(name, unwanted.contains(null)
        ? new ElementChanges(List.of(), want.elements(name), true, kernelCount)
        : new ElementChanges(unwanted, missing(name, desired.missing()), false, kernelCount));
    desired = null;
    unwanted = null;
  }

  /** The desired elements of a container at these places of its order (made again only when some are missing). */
  private List<Element> missing(String container, BitSet places) {
    if (places.isEmpty()) {
      return List.of();
    }
    List<Element> all = want.elements(container);
    List<Element> out = new ArrayList<>(places.cardinality());
    places.stream().forEach(i -> out.add(all.get(i)));
    return out;
  }

  /** The transaction: what is missing first, element deletions before the chains they may point at. */
  private Result result() {
    Transaction tx = new Transaction();
    tx.add(new Table("rules for kube-proxy"));
    for (Chain chain : want.chains().values()) {
      if (!kernelChains.containsKey(chain.name())) {
        tx.add(chain);
      }
    }
    for (Map.Entry<String, NftObject> c : want.containers().entrySet()) {
      if (!kernelContainers.contains(c.getKey())) {
        tx.add(c.getValue());
      }
    }
    // Elements first out (they may point at chains flushed below), then the chains, then new elements.
    List<Element> additions = new ArrayList<>();
    int changedElements = 0;
    for (Map.Entry<String, NftObject> c : want.containers().entrySet()) {
      if (dynamic(c.getValue())) {
        continue; // affinity sets: the rules fill them
      }
      ElementChanges changes = elementChanges.get(c.getKey());
      if (changes == null) { // not in the kernel: all of it
        List<Element> all = want.elements(c.getKey());
        additions.addAll(all);
        changedElements += all.size();
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
    for (Chain chain : want.chains().values()) {
      List<Rule> rules = want.rules(chain.name());
      ChainRules seen = kernelChains.get(chain.name());
      if (seen != null && seen.same && seen.count == rules.size()) {
        continue;
      }
      if (seen != null && seen.count > 0) {
        tx.flush(chain);
      }
      for (Rule rule : rules) {
        if (rule.statement() instanceof Statement.CountedReject c) {
          tx.add(new NftCounter(c.counter())); // counters are not read back; adding one keeps its counts
        }
      }
      rules.forEach(tx::add);
      rewritten++;
    }
    for (Element e : additions) {
      tx.add(e);
    }
    List<String> unexpected = new ArrayList<>();
    for (Map.Entry<String, ChainRules> c : kernelChains.entrySet()) {
      if (!want.chains().containsKey(c.getKey())) {
        if (c.getValue().count > 0) {
          tx.flush(Chain.regular(c.getKey()));
        }
        unexpected.add(c.getKey());
      }
    }
    for (String name : kernelContainers) {
      if (!want.containers().containsKey(name)) {
        tx.delete(kernelMaps.contains(name) ? new NftMap(name, "", null) : NftSet.of(name, "", null));
      }
    }
    return new Result(tx, unexpected, rewritten, changedElements);
  }

  private static boolean dynamic(NftObject container) {
    return container instanceof NftSet s && (!s.flags().isEmpty() || s.timeoutSeconds() > 0);
  }
}
