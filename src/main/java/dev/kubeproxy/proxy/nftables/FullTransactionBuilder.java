package dev.kubeproxy.proxy.nftables;

import dev.kubeproxy.proxy.Endpoint;
import dev.kubeproxy.proxy.ProxierSettings;
import dev.kubeproxy.proxy.ProxyState;
import dev.kubeproxy.proxy.ServicePort;
import dev.kubeproxy.proxy.ServicePortName;
import dev.kubeproxy.proxy.ServicePortPlan;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Builds the transaction of a full sync: the whole table as the model wants it (the fixed part,
 * then every service port's chains, sets, rules and elements), which a load or a rewrite sends as
 * it is and a reconcile compares with the table read back. A service port whose inputs did not
 * change keeps the objects built before; for a reconcile the element index is kept as well and
 * updated for the changed ports only (a load or a rewrite rebuilds it, in the order the
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

  /**
   * @param kind        LOAD recreates the base chains; RECONCILE keeps the element index
   * @param nodePortIPs the node's addresses NodePorts answer on
   */
  Desired build(ProxyState state, SyncKind kind, List<String> nodePortIPs) {
    applied.nodePortIPs = nodePortIPs;
    FixedRuleset fixed = new FixedRuleset(syntax, settings.masqueradeMark(), state.serviceCIDRs(), nodePortIPs);
    Transaction tx = new Transaction();
    fixed.write(tx, kind == SyncKind.LOAD);
    ElementIndex elements = applied.elements;
    boolean keepIndex = kind == SyncKind.RECONCILE;
    if (!keepIndex) {
      elements.clear();
    }
    Map<ServicePortName, AppliedTable.Port> next = new HashMap<>();
    Set<String> desiredChains = new HashSet<>();
    Set<String> desiredSets = new HashSet<>();
    Set<String> shards = new HashSet<>();
    int rules = 0;
    List<Element> newElements = new ArrayList<>();
    for (ServicePortName spn : AppliedTable.sortedNames(state.services().keySet())) {
      ServicePort svc = state.services().get(spn);
      List<Endpoint> eps = state.endpointsOf(spn);
      AppliedTable.Port prev = applied.ports.get(spn);
      boolean reused = !state.changedServices().contains(spn.service()) && prev != null && prev.sameInputs(svc, eps);
      ServicePortRules r = reused ? prev.rules()
          : ServicePortRules.compute(ServicePortPlan.of(svc, eps, state.nodeLabels()), settings, syntax,
              applied.slots, applied.texts);
      next.put(spn, new AppliedTable.Port(svc, eps, r));
      for (String chain : r.chains().keySet()) {
        Chain c = Chain.regular(chain);
        tx.add(c);
        tx.flush(c);
        desiredChains.add(chain);
      }
      for (NftSet set : r.affinitySets()) {
        tx.add(set);
        desiredSets.add(set.name());
      }
      for (String shard : r.targetMaps()) {
        if (shards.add(shard)) { // declared and emptied before the first rule that picks from it
          NftMap map = EndpointSlots.declaration(shard, syntax);
          tx.add(map);
          tx.flush(map);
        }
      }
      for (List<Rule> chainRules : r.chains().values()) {
        for (Rule rule : chainRules) {
          tx.add(rule);
        }
      }
      if (!keepIndex) {
        newElements.addAll(elements.addFresh(r.elements()));
      } else {
        if (!reused) {
          elements.update(prev == null ? List.of() : prev.rules().elements(), r.elements());
        }
        for (Element e : r.elements()) {
          if (EndpointSlots.isShard(e.container())) {
            newElements.add(e); // not indexed: each key is this port's own
          }
        }
      }
      rules += r.ruleCount();
    }
    if (keepIndex) {
      for (Map.Entry<ServicePortName, AppliedTable.Port> gone : applied.ports.entrySet()) {
        if (!next.containsKey(gone.getKey())) {
          elements.update(gone.getValue().rules().elements(), List.of());
        }
      }
      newElements.addAll(elements.indexed());
    }
    // After every chain exists; grouped per set or map so that nft gets one command per container.
    for (Element e : AppliedTable.groupedByContainer(newElements)) {
      tx.add(e);
    }
    applied.slots.retainOnly(desiredChains);
    applied.declaredShards.clear();
    applied.declaredShards.addAll(shards);
    applied.ports.clear();
    applied.ports.putAll(next);
    applied.fixedRuleCount = fixed.ruleCount();
    applied.serviceRuleCount = rules;
    return new Desired(tx, desiredChains, desiredSets);
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
        legacy = new NftMap(EndpointSlots.PREFIX + proto, legacy.type(), null);
        tx.add(legacy);
        tx.delete(legacy);
      }
    }
  }
}
