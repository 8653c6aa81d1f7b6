package dev.kubeproxy.backend.nftables;

import dev.kubeproxy.backend.nftables.objects.Chain;
import dev.kubeproxy.backend.nftables.objects.Element;
import dev.kubeproxy.backend.nftables.objects.NftMap;
import dev.kubeproxy.backend.nftables.objects.NftSet;
import dev.kubeproxy.backend.nftables.objects.Nftables;
import dev.kubeproxy.backend.nftables.objects.Rule;
import dev.kubeproxy.backend.nftables.objects.Transaction;

import dev.kubeproxy.model.MapViews;
import dev.kubeproxy.model.Endpoint;
import dev.kubeproxy.model.ProxierSettings;
import dev.kubeproxy.model.ProxyState;
import dev.kubeproxy.model.ServicePort;
import dev.kubeproxy.model.ServicePortName;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

/**
 * Builds the whole table as the model wants it (the fixed part, then every service port's chains,
 * sets, rules and elements): as the transaction a load or a rewrite sends, or as the
 * {@link DesiredTable} a reconcile compares with the table read back. A service port whose inputs
 * did not change keeps the objects built before; for a reconcile the element index is kept as
 * well and updated for the changed ports only (a load or a rewrite rebuilds it, in the order the
 * transaction's text is reproducible in). Brings the {@link AppliedTable} to the new model.
 */
final class FullTransactionBuilder {
  /** The whole desired table, and the names a rewrite needs to find leftovers. */
  record Desired(Transaction transaction, Set<String> chains, Set<String> sets) {}

  private final ProxierSettings settings;
  private final FamilySyntax syntax;
  private final AppliedTable applied;

  FullTransactionBuilder(ProxierSettings settings, FamilySyntax syntax, AppliedTable applied) {
    this.settings = settings;
    this.syntax = syntax;
    this.applied = applied;
  }

  /** What a full build writes of one service port: its rules and the shards it is the first to use. */
  @FunctionalInterface
  private interface PortWriter {
    void write(ServicePortRules rules, List<String> newShards);
  }

  /**
   * The whole table as a transaction, for a load (which recreates the base chains) or a rewrite;
   * the element index is rebuilt, in the order the transaction's text is reproducible in.
   *
   * @param nodePortIPs the node's addresses NodePorts answer on
   */
  Desired build(ProxyState state, SyncKind kind, List<String> nodePortIPs) {
    Transaction tx = new Transaction();
    writeFixed(tx, state, nodePortIPs, kind == SyncKind.LOAD);
    Pieces pieces = new Pieces(tx, Integer.MAX_VALUE, null);
    Set<String> desiredSets = new HashSet<>();
    Set<String> desiredChains = forEachPort(state, false, (r, newShards) -> writePort(pieces, r, newShards, desiredSets));
    return new Desired(pieces.close(), desiredChains, desiredSets);
  }

  /**
   * The whole table of a load into a namespace that has none, handed to {@code send} as it is
   * built, in transactions of about {@code commands} commands: the fixed part first, then the
   * service ports', and last the rules of the base chains, through which alone packets enter the
   * rest of the table. The element index is rebuilt as by {@link #build}.
   *
   * @param nodePortIPs the node's addresses NodePorts answer on
   */
  void buildInPieces(ProxyState state, List<String> nodePortIPs, int commands, Consumer<Transaction> send) {
    Transaction fixed = new Transaction();
    writeFixed(fixed, state, nodePortIPs, true);
    Transaction first = new Transaction();
    Transaction entries = new Transaction();
    for (Transaction.Operation op : fixed.operations()) {
      (FixedRuleset.isBaseChainRule(op) ? entries : first).append(op);
    }
    Pieces pieces = new Pieces(first, commands, send);
    Set<String> affinitySets = new HashSet<>(); // a load has no leftovers to tell apart
    forEachPort(state, false, (r, newShards) -> writePort(pieces, r, newShards, affinitySets));
    send.accept(pieces.close().append(entries));
  }

  /** Writes one service port's chains, affinity sets, first-used shards, rules and elements. */
  private void writePort(Pieces pieces, ServicePortRules r, List<String> newShards, Set<String> desiredSets) {
    Transaction tx = pieces.tx;
    for (String chain : MapViews.keys(r.chains())) {
      Chain c = Chain.regular(chain);
      tx.add(c);
      tx.flush(c);
    }
    for (NftSet set : r.affinitySets()) {
      tx.add(set);
      desiredSets.add(set.name());
    }
    for (String shard : newShards) { // declared and emptied before the first rule that picks from it
      NftMap map = EndpointSlots.declaration(shard, syntax);
      tx.add(map);
      tx.flush(map);
    }
    for (List<Rule> chainRules : MapViews.values(r.chains())) {
      for (Rule rule : chainRules) {
        tx.add(rule);
      }
    }
    pieces.elements.addAll(applied.elements.addFresh(r.elements()));
    pieces.portWritten();
  }

  /**
   * The transaction being written, handed on once it holds about {@link #limit} commands. Each ends
   * with its ports' elements, after every chain they name, grouped per set or map so that nft gets
   * one command per container.
   */
  private static final class Pieces {
    private final int limit;
    private final Consumer<Transaction> send;
    private Transaction tx;
    private List<Element> elements = new ArrayList<>();

    Pieces(Transaction first, int limit, Consumer<Transaction> send) {
      this.tx = first;
      this.limit = limit;
      this.send = send;
    }

    void portWritten() {
      if (tx.size() + elements.size() >= limit) {
        send.accept(close());
        tx = new Transaction();
      }
    }

    Transaction close() {
      for (Element e : AppliedTable.groupedByContainer(elements)) {
        tx.add(e);
      }
      elements = new ArrayList<>();
      return tx;
    }
  }

  /**
   * The whole table as a reconcile compares it with the kernel's; the element index is kept and
   * updated for the changed ports only.
   *
   * @param nodePortIPs the node's addresses NodePorts answer on
   */
  DesiredTable buildForReconcile(ProxyState state, List<String> nodePortIPs) {
    DesiredTable table = new DesiredTable();
    Transaction fixed = new Transaction();
    writeFixed(fixed, state, nodePortIPs, false);
    table.play(fixed);
    forEachPort(state, true, (r, newShards) -> {
      for (Map.Entry<String, List<Rule>> chain : r.chains().entrySet()) {
        table.chain(Chain.regular(chain.getKey()), chain.getValue());
      }
      r.affinitySets().forEach(table::container);
      for (String shard : newShards) {
        table.container(EndpointSlots.declaration(shard, syntax));
      }
      r.blocks().forEach(table::add);
    });
    applied.elements.indexed().forEach(table::add);
    return table;
  }

  /** The fixed part of the table (base chains, shared sets and maps), into tx. */
  private void writeFixed(Transaction tx, ProxyState state, List<String> nodePortIPs, boolean recreateBaseChains) {
    applied.nodePortIPs = nodePortIPs;
    FixedRuleset fixed = new FixedRuleset(syntax, settings, state.serviceCIDRs(), nodePortIPs,
        applied.localhostRejects);
    fixed.write(tx, recreateBaseChains);
    applied.fixedRuleCount = fixed.ruleCount();
  }

  /**
   * Brings every service port's rules to the model (a port whose inputs did not change keeps those
   * built before) and hands them to writer, then the {@link AppliedTable} to the new model.
   *
   * @param keepIndex whether the element index is updated for the changed ports (else it is
   *                  emptied and the writer fills it)
   * @return the names of the service ports' chains
   */
  private Set<String> forEachPort(ProxyState state, boolean keepIndex, PortWriter writer) {
    if (!keepIndex) {
      applied.elements.clear();
    }
    Map<ServicePortName, AppliedTable.Port> next = new HashMap<>();
    Set<String> desiredChains = new HashSet<>();
    Set<String> shards = new HashSet<>();
    int rules = 0;
    for (ServicePortName spn : AppliedTable.sortedNames(state.services().keySet())) {
      ServicePort svc = state.services().get(spn);
      List<Endpoint> eps = state.endpointsOf(spn);
      AppliedTable.Port prev = applied.ports.get(spn);
      boolean reused = !state.changedServices().contains(spn.service()) && prev != null && prev.sameInputs(svc, eps);
      ServicePortRules r = reused ? prev.rules()
          : ServicePortRules.compute(state.plan(svc), settings, syntax, applied.localhostRejects,
              applied.slots, applied.texts);
      next.put(spn, new AppliedTable.Port(svc, eps, r));
      desiredChains.addAll(MapViews.keys(r.chains()));
      if (keepIndex && !reused) {
        applied.elements.update(prev == null ? List.of() : prev.rules().elements(), r.elements());
      }
      List<String> newShards = new ArrayList<>(1);
      for (String shard : r.targetMaps()) {
        if (shards.add(shard)) {
          newShards.add(shard);
        }
      }
      writer.write(r, newShards);
      rules += r.ruleCount();
    }
    if (keepIndex) {
      for (Map.Entry<ServicePortName, AppliedTable.Port> gone : applied.ports.entrySet()) {
        if (!next.containsKey(gone.getKey())) {
          applied.elements.update(gone.getValue().rules().elements(), List.of());
        }
      }
    }
    applied.slots.retainOnly(desiredChains);
    applied.declaredShards.clear();
    applied.declaredShards.addAll(shards);
    applied.replacePorts(next);
    applied.serviceRuleCount = rules;
    return desiredChains;
  }

  /**
   * For a rewrite (the table not read back): empties the service chains nobody uses any more (to
   * be deleted after the grace), deletes unused affinity sets, and at a load the endpoint maps of
   * an earlier version.
   *
   * @param existing what the table holds now (its chains and sets), absent when there is none
   */
  void removeLeftovers(Desired desired, Nftables.TableContents existing, boolean load, StaleChains stale,
      Instant start) {
    Transaction tx = desired.transaction();
    if (!existing.exists()) {
      stale.clear();
    }
    stale.retainOnly(name -> !desired.chains().contains(name) && existing.chains().contains(name));
    for (String chain : existing.chains()) {
      if (chain.indexOf('/') >= 0 && !desired.chains().contains(chain)) {
        tx.flush(Chain.regular(chain));
        stale.mark(chain, start);
      }
    }
    for (String set : existing.sets()) {
      if (set.startsWith("affinity-") && !desired.sets().contains(set)) {
        tx.delete(NftSet.of(set, "", null));
      }
    }
    if (load && existing.exists()) {
      // A table of an earlier version: its one endpoint map per protocol, unreferenced once the
      // chains above are rewritten, goes (added first so that deleting cannot fail).
      for (String proto : List.of("tcp", "udp", "sctp")) {
        NftMap legacy = EndpointSlots.declaration(EndpointSlots.PREFIX + proto + "-legacy", syntax);
        legacy = new NftMap(EndpointSlots.EARLIER_MAPS + proto, legacy.type(), null);
        tx.add(legacy);
        tx.delete(legacy);
      }
      applied.localhostRejects.removeLeftovers(tx);
    }
  }
}
