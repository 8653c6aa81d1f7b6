package dev.kubeproxy.trace.nftables;

import dev.kubeproxy.net.IpFamily;
import dev.kubeproxy.backend.nftables.objects.Chain;
import dev.kubeproxy.backend.nftables.objects.Element;
import dev.kubeproxy.backend.nftables.objects.NftCounter;
import dev.kubeproxy.backend.nftables.objects.NftMap;
import dev.kubeproxy.backend.nftables.objects.NftObject;
import dev.kubeproxy.backend.nftables.objects.NftSet;
import dev.kubeproxy.backend.nftables.objects.Rule;
import dev.kubeproxy.backend.nftables.objects.Table;
import dev.kubeproxy.backend.nftables.objects.Transaction;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One family's kube-proxy table as the tracer reads it: chains with their rules in order, sets and
 * maps with their elements, all in the agent's typed form. Built object by object ({@link Builder})
 * or by replaying the transactions that were applied, as the kernel applies them ({@link #replay}).
 */
public final class NftRuleset {
  private final IpFamily family;
  private final Map<String, Chain> chains;
  private final Map<String, List<Rule>> rules;
  private final Map<String, NftObject> containers;
  private final Map<String, List<Element>> elements;

  private NftRuleset(Builder b) {
    this.family = b.family;
    this.chains = Collections.unmodifiableMap(new LinkedHashMap<>(b.chains));
    Map<String, List<Rule>> r = new LinkedHashMap<>();
    b.rules.forEach((k, v) -> r.put(k, List.copyOf(v)));
    this.rules = Collections.unmodifiableMap(r);
    this.containers = Collections.unmodifiableMap(new LinkedHashMap<>(b.containers));
    Map<String, List<Element>> e = new LinkedHashMap<>();
    b.elements.forEach((k, v) -> e.put(k, List.copyOf(v.values())));
    this.elements = Collections.unmodifiableMap(e);
  }

  /** The table after the transactions, applied in order to an empty table (missing objects are errors, as in the kernel). */
  public static NftRuleset replay(IpFamily family, Iterable<Transaction> transactions) {
    Builder b = new Builder(family);
    for (Transaction tx : transactions) {
      for (Transaction.Operation op : tx.operations()) {
        b.apply(op);
      }
    }
    return b.build();
  }

  public IpFamily family() {
    return family;
  }

  /** Every chain by name, in the order created. */
  public Map<String, Chain> chains() {
    return chains;
  }

  /** The chain's rules in order. */
  public List<Rule> rules(String chain) {
    if (!chains.containsKey(chain)) {
      throw new IllegalStateException("the table has no chain " + chain);
    }
    return rules.getOrDefault(chain, List.of());
  }

  /** A set's or map's declaration ({@link NftSet} or {@link NftMap}). */
  public NftObject container(String name) {
    NftObject c = containers.get(name);
    if (c == null) {
      throw new IllegalStateException("the table has no set or map " + name);
    }
    return c;
  }

  /** A set's or map's elements in the order added. */
  public List<Element> elements(String container) {
    container(container);
    return elements.getOrDefault(container, List.of());
  }

  /** Collects the objects of a table; later additions of an existing chain, set or element keep the first. */
  public static final class Builder {
    private final IpFamily family;
    private final Map<String, Chain> chains = new LinkedHashMap<>();
    private final Map<String, List<Rule>> rules = new LinkedHashMap<>();
    private final Map<String, NftObject> containers = new LinkedHashMap<>();
    private final Map<String, LinkedHashMap<String, Element>> elements = new LinkedHashMap<>();

    public Builder(IpFamily family) {
      this.family = Objects.requireNonNull(family, "family");
    }

    public Builder chain(Chain chain) {
      chains.putIfAbsent(chain.name(), chain);
      return this;
    }

    /** Appends a rule to its chain, which must exist. */
    public Builder rule(Rule rule) {
      existingChain(rule.chain());
      rules.computeIfAbsent(rule.chain(), k -> new ArrayList<>()).add(rule);
      return this;
    }

    /** A set or map declaration. */
    public Builder container(NftObject declaration) {
      containers.putIfAbsent(containerName(declaration), declaration);
      return this;
    }

    /** Adds an element to its set or map, which must exist. */
    public Builder element(Element element) {
      existingContainer(element.container());
      elements.computeIfAbsent(element.container(), k -> new LinkedHashMap<>()).putIfAbsent(element.keyText(), element);
      return this;
    }

    /** One command of a transaction, as the kernel applies it. */
    public Builder apply(Transaction.Operation op) {
      NftObject o = op.object();
      if (o instanceof NftCounter) {
        return this; // a named counter counts and changes no packet's path
      }
      switch (op.verb()) {
        case ADD, CREATE -> add(o);
        case FLUSH -> flush(o);
        case DELETE -> delete(o);
        default -> throw new IllegalStateException("unknown verb " + op.verb());
      }
      return this;
    }

    private void add(NftObject o) {
      if (o instanceof Chain c) {
        chain(c);
      } else if (o instanceof Rule r) {
        rule(r);
      } else if (o instanceof Element e) {
        element(e);
      } else if (o instanceof NftSet || o instanceof NftMap) {
        container(o);
      }
    }

    private void flush(NftObject o) {
      if (o instanceof Table) {
        rules.clear();
        elements.clear();
      } else if (o instanceof Chain c) {
        existingChain(c.name());
        rules.remove(c.name());
      } else {
        existingContainer(containerName(o));
        elements.remove(containerName(o));
      }
    }

    private void delete(NftObject o) {
      if (o instanceof Table) {
        chains.clear();
        rules.clear();
        containers.clear();
        elements.clear();
      } else if (o instanceof Chain c) {
        existingChain(c.name());
        chains.remove(c.name());
        rules.remove(c.name());
      } else if (o instanceof Element e) {
        existingContainer(e.container());
        Map<String, Element> in = elements.get(e.container());
        if (in == null || in.remove(e.keyText()) == null) {
          throw new IllegalStateException("no element " + e.keyText() + " in " + e.container() + " to delete");
        }
      } else {
        existingContainer(containerName(o));
        containers.remove(containerName(o));
        elements.remove(containerName(o));
      }
    }

    private void existingChain(String name) {
      if (!chains.containsKey(name)) {
        throw new IllegalStateException("no chain " + name + " (a rule or command names it before it is added)");
      }
    }

    private void existingContainer(String name) {
      if (!containers.containsKey(name)) {
        throw new IllegalStateException("no set or map " + name + " (an element or command names it before it is added)");
      }
    }

    public NftRuleset build() {
      return new NftRuleset(this);
    }
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
