package dev.kubeproxy.backend.nftables;

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
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * The whole table as the model wants it, in the shape a reconcile compares with the kernel's:
 * chains with their rules, sets and maps with their elements. The service ports' parts are held by
 * reference (their rule lists, their endpoint blocks), and an endpoint-ranges shard's elements are
 * made from its blocks only when they are asked for, one shard at a time: a transaction of the
 * whole table would hold every operation and element for the length of the resync, long enough to
 * be promoted and collected in full on every resync.
 */
final class DesiredTable {
  private final Map<String, Chain> chains = new LinkedHashMap<>();
  private final Map<String, List<Rule>> rules = new HashMap<>();
  private final Map<String, NftObject> containers = new LinkedHashMap<>();
  /** Each container's elements in the order added (lists, not maps: a large table has very many). */
  private final Map<String, List<Element>> elements = new HashMap<>();
  /** Each endpoint-ranges shard's blocks, in the order added. */
  private final Map<String, List<ServicePortRules.EndpointBlock>> blocks = new HashMap<>();

  /** Plays a transaction (the fixed part of the table) onto this table, as the kernel would. */
  void play(Transaction tx) {
    for (Transaction.Operation op : tx.operations()) {
      NftObject o = op.object();
      if (o instanceof NftCounter) {
        continue; // not read back: a reconcile adds one with the chain whose rule uses it
      }
      switch (op.verb()) {
        case ADD, CREATE -> {
          if (o instanceof Chain c) {
            chains.putIfAbsent(c.name(), c);
          } else if (o instanceof Rule r) {
            rules.computeIfAbsent(r.chain(), k -> new ArrayList<>()).add(r);
          } else if (o instanceof Element e) {
            add(e);
          } else if (o instanceof NftSet || o instanceof NftMap) {
            containers.putIfAbsent(containerName(o), o);
          }
        }
        case FLUSH -> {
          if (o instanceof Chain c) {
            rules.remove(c.name());
          } else if (!(o instanceof Table)) {
            elements.remove(containerName(o));
            blocks.remove(containerName(o));
          }
        }
        case DELETE -> {
          if (o instanceof Chain c) {
            chains.remove(c.name());
            rules.remove(c.name());
          } else if (o instanceof Element e) {
            List<Element> l = elements.get(e.container());
            if (l != null) {
              l.removeIf(x -> x.key().equals(e.key())); // not in a full sync's transaction: no index for it
            }
          } else if (!(o instanceof Table) && !(o instanceof NftCounter)) {
            containers.remove(containerName(o));
            elements.remove(containerName(o));
            blocks.remove(containerName(o));
          }
        }
        default -> throw new IllegalStateException("unexpected verb " + op.verb());
      }
    }
  }

  /** A chain that holds exactly these rules (the list is kept, not copied). */
  void chain(Chain chain, List<Rule> chainRules) {
    chains.putIfAbsent(chain.name(), chain);
    rules.put(chain.name(), chainRules);
  }

  /** A set or map (the first declaration of a name counts). */
  void container(NftObject declaration) {
    containers.putIfAbsent(containerName(declaration), declaration);
  }

  /** An element of a set or map (a repeated key counts once, as in the kernel: the reconcile keeps the first). */
  void add(Element e) {
    elements.computeIfAbsent(e.container(), k -> new ArrayList<>()).add(e);
  }

  /** A policy chain's endpoints, whose elements its shard holds. */
  void add(ServicePortRules.EndpointBlock block) {
    blocks.computeIfAbsent(block.map(), k -> new ArrayList<>()).add(block);
  }

  Map<String, Chain> chains() {
    return Collections.unmodifiableMap(chains);
  }

  List<Rule> rules(String chain) {
    return rules.getOrDefault(chain, List.of());
  }

  Map<String, NftObject> containers() {
    return Collections.unmodifiableMap(containers);
  }

  /** A container's elements: those added, then those of its endpoint blocks (made now). */
  List<Element> elements(String container) {
    List<Element> out = new ArrayList<>();
    forEachElement(container, out::add);
    return out;
  }

  /** A container's elements in the order of {@link #elements}, made one at a time (none held here). */
  void forEachElement(String container, Consumer<Element> to) {
    elements.getOrDefault(container, List.of()).forEach(to);
    for (ServicePortRules.EndpointBlock b : blocks.getOrDefault(container, List.of())) {
      b.forEachElement(to);
    }
  }

  private static String containerName(NftObject o) {
    return Objects.requireNonNull(o instanceof NftSet s ? s.name() : o instanceof NftMap m ? m.name() : null,
        "not a set or map");
  }
}
