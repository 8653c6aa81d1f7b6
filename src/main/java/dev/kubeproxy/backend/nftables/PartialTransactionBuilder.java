package dev.kubeproxy.backend.nftables;

import dev.kubeproxy.backend.nftables.objects.Chain;
import dev.kubeproxy.backend.nftables.objects.Element;
import dev.kubeproxy.backend.nftables.objects.NftSet;
import dev.kubeproxy.backend.nftables.objects.Rule;
import dev.kubeproxy.backend.nftables.objects.Transaction;

import dev.kubeproxy.model.MapViews;
import dev.kubeproxy.model.Endpoint;
import dev.kubeproxy.model.NamespacedName;
import dev.kubeproxy.model.ProxierSettings;
import dev.kubeproxy.model.ProxyState;
import dev.kubeproxy.model.ServicePort;
import dev.kubeproxy.model.ServicePortName;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Builds the transaction of a partial sync from the model's change set: for the service ports of
 * the changed Services, the element additions and deletions, their new chains and sets, their
 * changed chains flushed and rewritten, and the chains they no longer use flushed (deleted later
 * by {@link StaleChains}). Brings the {@link AppliedTable} to the new model as it goes.
 */
final class PartialTransactionBuilder {
  private final ProxierSettings settings;
  private final FamilySyntax syntax;
  private final AppliedTable applied;
  private final StaleChains stale;

  PartialTransactionBuilder(ProxierSettings settings, FamilySyntax syntax, AppliedTable applied, StaleChains stale) {
    this.settings = settings;
    this.syntax = syntax;
    this.applied = applied;
    this.stale = stale;
  }

  Transaction build(ProxyState state, Instant start) {
    List<String> newChains = new ArrayList<>();
    List<NftSet> newSets = new ArrayList<>();
    Map<String, List<Rule>> rewrites = new LinkedHashMap<>();
    Set<String> rewrittenExisting = new HashSet<>();
    List<String> nowStale = new ArrayList<>();
    List<String> goneSets = new ArrayList<>();
    List<Element> removed = new ArrayList<>();
    List<Element> added = new ArrayList<>();

    for (ServicePortName spn : AppliedTable.sortedNames(state.portsOfChangedServices(applied.ports.keySet()))) {
      ServicePort svc = state.services().get(spn);
      AppliedTable.Port prev = applied.ports.get(spn);
      ServicePortRules before = prev == null ? null : prev.rules();
      ServicePortRules after = null;
      if (svc != null) {
        List<Endpoint> eps = state.endpointsOf(spn);
        after = ServicePortRules.compute(state.plan(svc), settings, syntax, applied.localhostRejects,
            applied.slots, applied.texts);
        applied.putPort(spn, new AppliedTable.Port(svc, eps, after));
      } else {
        applied.removePort(spn);
      }
      if (Objects.equals(before, after)) {
        continue;
      }
      Map<String, List<Rule>> oldChains = before == null ? Map.of() : before.chains();
      Map<String, List<Rule>> newChainMap = after == null ? Map.of() : after.chains();
      for (Map.Entry<String, List<Rule>> c : newChainMap.entrySet()) {
        List<Rule> old = oldChains.get(c.getKey());
        if (old == null) {
          newChains.add(c.getKey());
          stale.revive(c.getKey());
          rewrites.put(c.getKey(), c.getValue());
        } else if (!old.equals(c.getValue())) {
          rewrittenExisting.add(c.getKey());
          rewrites.put(c.getKey(), c.getValue());
        }
      }
      for (String chain : MapViews.keys(oldChains)) {
        if (!newChainMap.containsKey(chain)) {
          nowStale.add(chain);
          applied.slots.release(chain);
        }
      }
      Map<String, NftSet> oldSets = new HashMap<>();
      if (before != null) {
        before.affinitySets().forEach(s -> oldSets.put(s.name(), s));
      }
      if (after != null) {
        for (NftSet s : after.affinitySets()) {
          NftSet old = oldSets.remove(s.name());
          if (!s.equals(old)) {
            newSets.add(s);
          }
        }
      }
      goneSets.addAll(oldSets.keySet());
      if (before != null) {
        removed.addAll(before.elements());
        applied.serviceRuleCount -= before.ruleCount();
      }
      if (after != null) {
        added.addAll(after.elements());
        applied.serviceRuleCount += after.ruleCount();
      }
    }
    ElementIndex.Delta delta = applied.elements.update(removed, added);

    Transaction tx = new Transaction();
    for (String chain : newChains) {
      tx.add(Chain.regular(chain));
    }
    for (NftSet set : newSets) {
      tx.add(set);
    }
    for (Element e : added) {
      if (EndpointSlots.isShard(e.container()) && applied.declaredShards.add(e.container())) {
        tx.add(EndpointSlots.declaration(e.container(), syntax)); // a shard opened since the last full sync
      }
    }
    for (Element e : AppliedTable.groupedByContainer(delta.deletions())) {
      tx.delete(e);
    }
    for (Map.Entry<String, List<Rule>> c : rewrites.entrySet()) {
      if (rewrittenExisting.contains(c.getKey())) {
        tx.flush(Chain.regular(c.getKey()));
      }
      for (Rule rule : c.getValue()) {
        tx.add(rule);
      }
    }
    for (Element e : AppliedTable.groupedByContainer(delta.additions())) {
      tx.add(e);
    }
    for (String chain : nowStale) {
      tx.flush(Chain.regular(chain));
      stale.markNow(chain, start);
    }
    for (String set : goneSets) {
      tx.delete(NftSet.of(set, "", null));
    }
    return tx;
  }
}
