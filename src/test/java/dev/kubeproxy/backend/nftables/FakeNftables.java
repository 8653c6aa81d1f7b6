package dev.kubeproxy.backend.nftables;

import dev.kubeproxy.backend.nftables.objects.Chain;
import dev.kubeproxy.backend.nftables.objects.Element;
import dev.kubeproxy.backend.nftables.objects.FormArena;
import dev.kubeproxy.backend.nftables.objects.NftMap;
import dev.kubeproxy.backend.nftables.objects.Statement;
import dev.kubeproxy.backend.nftables.objects.NftCounter;
import dev.kubeproxy.backend.nftables.objects.NftObject;
import dev.kubeproxy.backend.nftables.objects.NftSet;
import dev.kubeproxy.backend.nftables.objects.Nftables;
import dev.kubeproxy.backend.nftables.objects.NftablesException;
import dev.kubeproxy.backend.nftables.objects.Rule;
import dev.kubeproxy.backend.nftables.objects.Table;
import dev.kubeproxy.backend.nftables.objects.TableReader;
import dev.kubeproxy.backend.nftables.objects.TableVisitor;
import dev.kubeproxy.backend.nftables.objects.Transaction;

import dev.kubeproxy.net.IpFamily;
import dev.kubeproxy.trace.nftables.NftRuleset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Supplier;

/**
 * An in-memory kube-proxy table that applies transactions like the kernel does (atomically, with the
 * kernel's errors for missing or still-referenced objects), for tests. {@link #dump()} prints the
 * resulting state in a stable order so two states can be compared as text.
 */
public final class FakeNftables implements Nftables, TableReader {

  private final IpFamily family;
  private State state = new State();
  private final List<String> applied = new ArrayList<>();
  private String failOnLineContaining;

  public FakeNftables(IpFamily family) {
    this.family = family;
  }

  /** Test hook: the next transactions fail when a line contains this text (null: never). */
  public void failWhenLineContains(String text) {
    this.failOnLineContaining = text;
  }

  /** The rendered text of every transaction applied successfully, oldest first. */
  public List<String> appliedTransactions() {
    return List.copyOf(applied);
  }

  @Override
  public synchronized void run(Transaction tx) throws NftablesException {
    String input = tx.render(family);
    State next = state.copy();
    int lineNo = 0;
    for (List<Transaction.Operation> line : tx.lines()) {
      lineNo++;
      StringBuilder text = new StringBuilder();
      Transaction.renderLine(text, line, family, true);
      try {
        if (failOnLineContaining != null && text.toString().contains(failOnLineContaining)) {
          throw new IllegalStateException("Could not process rule: Operation not supported (injected)");
        }
        for (Transaction.Operation op : line) {
          next.apply(op);
        }
      } catch (IllegalStateException e) {
        String stderr = "/dev/stdin:" + lineNo + ":1-1: Error: " + e.getMessage() + "\n";
        throw NftCommand.failure(stderr, input);
      }
    }
    state = next;
    applied.add(input);
  }

  @Override
  public synchronized TableContents list() {
    if (!state.exists) {
      return TableContents.absent();
    }
    LinkedHashSet<String> sets = new LinkedHashSet<>();
    state.containers.forEach((name, c) -> {
      if (c.definition instanceof NftSet) {
        sets.add(name);
      }
    });
    return new TableContents(true, new LinkedHashSet<>(state.chains.keySet()), sets);
  }

  @Override
  public synchronized <V extends TableVisitor> Optional<V> read(Supplier<V> visitors) {
    if (!state.exists) {
      return Optional.empty();
    }
    V visitor = visitors.get();
    table().replay(visitor);
    return Optional.of(visitor);
  }

  /** The table in the fake's forms (rules and elements as nft text); there must be one. */
  synchronized KernelTable table() {
    Map<String, List<String>> chains = new LinkedHashMap<>();
    state.chains.forEach((name, c) -> {
      List<String> forms = new ArrayList<>();
      c.rules.forEach(r -> forms.add(ruleForm(r)));
      chains.put(name, forms);
    });
    Map<String, Map<String, String>> containers = new LinkedHashMap<>();
    java.util.Set<String> maps = new java.util.HashSet<>();
    state.containers.forEach((name, c) -> {
      Map<String, String> elements = new LinkedHashMap<>();
      c.elements.forEach((key, e) -> elements.put(e.keyText(), elementText(e)));
      containers.put(name, elements);
      if (c.definition instanceof NftMap) {
        maps.add(name);
      }
    });
    return new KernelTable(chains, containers, maps);
  }

  @Override
  public String ruleForm(Rule rule) {
    return rule.text(family) + (rule.comment() == null ? "" : " comment \"" + rule.comment() + "\"");
  }

  @Override
  public void keyForm(Element element, FormArena out) {
    out.append(element.keyText());
  }

  @Override
  public void elementForm(Element element, FormArena out) {
    out.append(elementText(element));
  }

  /** From the key's text alone, like the kernel's reader (no lock: a read may be under way on another thread). */
  @Override
  public Element decode(String container, boolean map, char[] forms, int start, int end) {
    return new Element(container, map, List.of(new String(forms, start, end - start).split(" \\. ")), null, null);
  }

  /** Test hook: changes the table behind the agent's back, like an admin running nft by hand. */
  public synchronized void tamper(Transaction tx) throws NftablesException {
    run(tx);
    applied.remove(applied.size() - 1);
  }

  /** The table in the tracer's typed form (chains, rules, sets, maps and elements as they are now). */
  public synchronized NftRuleset ruleset() {
    NftRuleset.Builder b = new NftRuleset.Builder(family);
    state.chains.values().forEach(c -> b.chain(c.definition));
    state.containers.values().forEach(c -> b.container(c.definition));
    state.chains.values().forEach(c -> c.rules.forEach(b::rule));
    state.containers.values().forEach(c -> c.elements.values().forEach(b::element));
    return b.build();
  }

  public synchronized boolean tableExists() {
    return state.exists;
  }

  /** The rules of a chain as text, or null when the chain does not exist. */
  public synchronized List<String> rules(String chain) {
    FakeChain c = state.chains.get(chain);
    if (c == null) {
      return null;
    }
    List<String> out = new ArrayList<>();
    for (Rule r : c.rules) {
      out.add(r.comment() == null ? r.text(family) : r.text(family) + " comment \"" + r.comment() + "\"");
    }
    return out;
  }

  /** The elements of a set or map in nft's element syntax, or null when it does not exist. */
  public synchronized List<String> elements(String container) {
    FakeContainer c = state.containers.get(container);
    if (c == null) {
      return null;
    }
    List<String> out = new ArrayList<>();
    for (Element e : c.elements.values()) {
      out.add(elementText(e));
    }
    return out;
  }

  @Override
  public synchronized Map<String, Long> counterPackets() {
    return counters();
  }

  /** The named counters and their packet counts. */
  public synchronized Map<String, Long> counters() {
    return new LinkedHashMap<>(state.counters);
  }

  /** Sets a named counter's packet count, as packets through its rule would. */
  public synchronized void count(String counter, long packets) {
    if (state.counters.replace(counter, packets) == null) {
      throw new IllegalArgumentException("no counter " + counter);
    }
  }

  public synchronized int chainCount() {
    return state.chains.size();
  }

  /** The whole table, sorted by name (rules keep their order), as comparable text. */
  public synchronized String dump() {
    if (!state.exists) {
      return "";
    }
    StringBuilder sb = new StringBuilder("table ").append(Transaction.familyKeyword(family))
        .append(" kube-proxy\n");
    for (Map.Entry<String, FakeContainer> e : new TreeMap<>(state.containers).entrySet()) {
      FakeContainer c = e.getValue();
      sb.append(withoutTable(c.definition)).append('\n');
      for (String el : new TreeMap<>(c.elements).keySet()) {
        sb.append("  element ").append(elementText(c.elements.get(el))).append('\n');
      }
    }
    for (Map.Entry<String, FakeChain> e : new TreeMap<>(state.chains).entrySet()) {
      sb.append(withoutTable(e.getValue().definition)).append('\n');
      for (Rule r : e.getValue().rules) {
        sb.append("  rule ").append(r.text(family));
        if (r.comment() != null) {
          sb.append(" comment \"").append(r.comment()).append('"');
        }
        sb.append('\n');
      }
    }
    return sb.toString();
  }

  private static String elementText(Element e) {
    StringBuilder sb = new StringBuilder(e.keyText());
    if (e.comment() != null) {
      sb.append(" comment \"").append(e.comment()).append('"');
    }
    if (e.value() != null) {
      sb.append(" : ").append(e.valueText());
    }
    return sb.toString();
  }

  /** A definition as "chain NAME { … }", without the family and table. */
  private String withoutTable(NftObject definition) {
    return definition.render(Transaction.Verb.ADD, family, true).replaceFirst(" " + NftObject.tableRef(family), "");
  }

  private static final class FakeChain {
    Chain definition;
    final List<Rule> rules = new ArrayList<>();
  }

  private static final class FakeContainer {
    NftObject definition;
    final LinkedHashMap<String, Element> elements = new LinkedHashMap<>();
  }

  private static final class State {
    boolean exists;
    final LinkedHashMap<String, FakeChain> chains = new LinkedHashMap<>();
    final LinkedHashMap<String, FakeContainer> containers = new LinkedHashMap<>();
    /** Named counters: their packet counts (the fake counts nothing itself; tests set them). */
    final LinkedHashMap<String, Long> counters = new LinkedHashMap<>();

    State copy() {
      State s = new State();
      s.exists = exists;
      chains.forEach((name, c) -> {
        FakeChain d = new FakeChain();
        d.definition = c.definition;
        d.rules.addAll(c.rules);
        s.chains.put(name, d);
      });
      containers.forEach((name, c) -> {
        FakeContainer d = new FakeContainer();
        d.definition = c.definition;
        d.elements.putAll(c.elements);
        s.containers.put(name, d);
      });
      s.counters.putAll(counters);
      return s;
    }

    void apply(Transaction.Operation op) {
      NftObject o = op.object();
      if (!(o instanceof Table) && !exists) {
        throw new IllegalStateException("Could not process rule: No such file or directory (no table)");
      }
      switch (op.verb()) {
        case ADD, CREATE -> add(o, op.verb() == Transaction.Verb.CREATE);
        case FLUSH -> flush(o);
        case DELETE -> delete(o);
        default -> throw new IllegalStateException("unsupported verb " + op.verb());
      }
    }

    private void add(NftObject o, boolean create) {
      if (o instanceof Table) {
        if (exists && create) {
          throw new IllegalStateException("Could not process rule: File exists");
        }
        exists = true;
      } else if (o instanceof Chain c) {
        if (chains.containsKey(c.name())) {
          if (create) {
            throw new IllegalStateException("Could not process rule: File exists");
          }
          return;
        }
        FakeChain fc = new FakeChain();
        fc.definition = c;
        chains.put(c.name(), fc);
      } else if (o instanceof NftSet || o instanceof NftMap) {
        String name = o instanceof NftSet s ? s.name() : ((NftMap) o).name();
        if (containers.containsKey(name)) {
          if (create) {
            throw new IllegalStateException("Could not process rule: File exists");
          }
          return;
        }
        FakeContainer fc = new FakeContainer();
        fc.definition = o;
        containers.put(name, fc);
      } else if (o instanceof NftCounter c) {
        if (counters.containsKey(c.name()) && create) {
          throw new IllegalStateException("Could not process rule: File exists");
        }
        counters.putIfAbsent(c.name(), 0L);
      } else if (o instanceof Rule r) {
        FakeChain fc = chains.get(r.chain());
        if (fc == null) {
          throw new IllegalStateException("Could not process rule: No such file or directory (chain "
              + r.chain() + ")");
        }
        checkReferences(r.chainReferences(), r.setReferences());
        if (r.statement() instanceof Statement.CountedReject c && !counters.containsKey(c.counter())) {
          throw new IllegalStateException("Could not process rule: No such file or directory (counter "
              + c.counter() + ")");
        }
        fc.rules.add(r);
      } else if (o instanceof Element e) {
        FakeContainer fc = containers.get(e.container());
        if (fc == null) {
          throw new IllegalStateException("Could not process rule: No such file or directory (set "
              + e.container() + ")");
        }
        if (e.inMap() != (fc.definition instanceof NftMap)) {
          throw new IllegalStateException("Could not process rule: element does not match " + e.container());
        }
        if (e.value() != null) {
          checkReferences(e.value().chains(), java.util.Set.of());
        }
        Element old = fc.elements.get(e.keyText());
        if (old != null) {
          if (create || !java.util.Objects.equals(old.value(), e.value())) {
            throw new IllegalStateException("Could not process rule: File exists (element "
                + e.keyText() + " in " + e.container() + ")");
          }
          return;
        }
        fc.elements.put(e.keyText(), e);
      }
    }

    private void checkReferences(java.util.Collection<String> chainNames, java.util.Collection<String> setNames) {
      for (String chain : chainNames) {
        if (!chains.containsKey(chain)) {
          throw new IllegalStateException("Could not process rule: No such file or directory (chain " + chain + ")");
        }
      }
      for (String set : setNames) {
        if (!containers.containsKey(set)) {
          throw new IllegalStateException("Could not process rule: No such file or directory (set " + set + ")");
        }
      }
    }

    private void flush(NftObject o) {
      if (o instanceof Table) {
        chains.values().forEach(c -> c.rules.clear());
        containers.values().forEach(c -> c.elements.clear());
      } else if (o instanceof Chain c) {
        FakeChain fc = chains.get(c.name());
        if (fc == null) {
          throw new IllegalStateException("Could not process rule: No such file or directory (chain "
              + c.name() + ")");
        }
        fc.rules.clear();
      } else {
        FakeContainer fc = containers.get(containerName(o));
        if (fc == null) {
          throw new IllegalStateException("Could not process rule: No such file or directory (set "
              + containerName(o) + ")");
        }
        fc.elements.clear();
      }
    }

    private void delete(NftObject o) {
      if (o instanceof Table) {
        if (!exists) {
          throw new IllegalStateException("Could not process rule: No such file or directory");
        }
        exists = false;
        chains.clear();
        containers.clear();
        counters.clear();
      } else if (o instanceof NftCounter c) {
        if (!counters.containsKey(c.name())) {
          throw new IllegalStateException("Could not process rule: No such file or directory (counter "
              + c.name() + ")");
        }
        for (FakeChain chain : chains.values()) {
          for (Rule r : chain.rules) {
            if (r.statement() instanceof Statement.CountedReject ref && ref.counter().equals(c.name())) {
              throw new IllegalStateException("Could not process rule: Device or resource busy (counter "
                  + c.name() + " is still referenced)");
            }
          }
        }
        counters.remove(c.name());
      } else if (o instanceof Chain c) {
        if (!chains.containsKey(c.name())) {
          throw new IllegalStateException("Could not process rule: No such file or directory (chain "
              + c.name() + ")");
        }
        if (chainReferenced(c.name())) {
          throw new IllegalStateException("Could not process rule: Device or resource busy (chain "
              + c.name() + " is still referenced)");
        }
        chains.remove(c.name());
      } else if (o instanceof Element e) {
        FakeContainer fc = containers.get(e.container());
        if (fc == null || fc.elements.remove(e.keyText()) == null) {
          throw new IllegalStateException("Could not process rule: No such file or directory (element "
              + e.keyText() + " in " + e.container() + ")");
        }
      } else {
        String name = containerName(o);
        if (!containers.containsKey(name)) {
          throw new IllegalStateException("Could not process rule: No such file or directory (set "
              + name + ")");
        }
        if (setReferenced(name)) {
          throw new IllegalStateException("Could not process rule: Device or resource busy (set "
              + name + " is still referenced)");
        }
        containers.remove(name);
      }
    }

    /** Whether a rule of another chain, or a map element, jumps or goes to the chain. */
    private boolean chainReferenced(String name) {
      for (Map.Entry<String, FakeChain> c : chains.entrySet()) {
        if (c.getKey().equals(name)) {
          continue;
        }
        for (Rule r : c.getValue().rules) {
          if (r.chainReferences().contains(name)) {
            return true;
          }
        }
      }
      for (FakeContainer fc : containers.values()) {
        for (Element e : fc.elements.values()) {
          if (e.value() != null && e.value().chains().contains(name)) {
            return true;
          }
        }
      }
      return false;
    }

    private boolean setReferenced(String name) {
      for (FakeChain c : chains.values()) {
        for (Rule r : c.rules) {
          if (r.setReferences().contains(name)) {
            return true;
          }
        }
      }
      return false;
    }

    private static String containerName(NftObject o) {
      if (o instanceof NftSet s) {
        return s.name();
      }
      if (o instanceof NftMap m) {
        return m.name();
      }
      throw new IllegalStateException("not a set or map: " + o);
    }
  }
}
