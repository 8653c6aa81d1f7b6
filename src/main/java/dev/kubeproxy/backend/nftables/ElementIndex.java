package dev.kubeproxy.backend.nftables;

import dev.kubeproxy.backend.nftables.objects.Element;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.commons.collections4.map.HashedMap;

/**
 * The elements of the shared sets and maps as the kernel holds them, counted per contributing
 * service port (several ports of one Service share their cluster IP in "cluster-ips"), so that an
 * incremental sync can write just the element changes. The endpoint-ranges shards are not
 * indexed: each of their keys belongs to one chain's block ({@link EndpointSlots}), so what the
 * changed ports removed is all the kernel holds under those keys (and the index stays small: the
 * shards hold most of the table's elements).
 */
final class ElementIndex {
  /** An element contributed by more than one service port; one contributed once is held as itself. */
  private static final class Slot {
    Element element;
    int refs;
  }

  /** What to change in the kernel: delete these elements, then add these. */
  record Delta(List<Element> deletions, List<Element> additions) {}

  /**
   * container name to element key to the element (one contribution) or its {@link Slot} (more):
   * most elements have one, and a slot for each would be an object per endpoint. The keys' maps
   * are {@link HashedMap}s: a hairpin key repeats its address ([ip, ip, proto, port]), so its list
   * hash is a multiple of 32 plus a constant, and java.util.HashMap, which indexes by the low bits,
   * crowds such keys into a few of its buckets; HashedMap spreads every bit first.
   */
  private final Map<String, Map<List<String>, Object>> containers = new HashMap<>();

  private static Element element(Object held) {
    return held instanceof Slot slot ? slot.element : (Element) held;
  }

  /** The keys' map of a container, made on first use. */
  private Map<List<String>, Object> slotsOf(String container) {
    return containers.computeIfAbsent(container, k -> new HashedMap<>());
  }

  /** One more contribution of the key; {@code e} becomes the element held. */
  private static void addRef(Map<List<String>, Object> slots, Element e) {
    Object held = slots.get(e.key());
    if (held == null) {
      slots.put(e.key(), e);
    } else if (held instanceof Slot slot) {
      slot.element = e;
      slot.refs++;
    } else {
      Slot slot = new Slot();
      slot.element = e;
      slot.refs = 2;
      slots.put(e.key(), slot);
    }
  }

  /** One contribution of the key less; the key goes when none is left. */
  private static void removeRef(Map<List<String>, Object> slots, List<String> key, Object held) {
    if (held instanceof Slot slot && --slot.refs > 1) {
      return;
    }
    if (held instanceof Slot slot && slot.refs == 1) {
      slots.put(key, slot.element);
    } else {
      slots.remove(key);
    }
  }

  void clear() {
    containers.clear();
  }

  /** Adds contributions to a freshly cleared index (full sync); returns the elements new to it. */
  List<Element> addFresh(List<Element> added) {
    List<Element> fresh = new ArrayList<>(added.size());
    for (Element e : added) {
      if (EndpointSlots.isShard(e.container())) {
        fresh.add(e);
        continue;
      }
      Map<List<String>, Object> slots = slotsOf(e.container());
      Object held = slots.get(e.key());
      if (held == null) {
        slots.put(e.key(), e);
        fresh.add(e);
      } else {
        // a later contribution of the same key leaves the first one's element in place
        Element first = element(held);
        addRef(slots, first);
      }
    }
    return fresh;
  }

  /** Every indexed element once, those of one container adjacent. */
  List<Element> indexed() {
    List<Element> out = new ArrayList<>();
    for (Map<List<String>, Object> slots : containers.values()) {
      for (Object held : slots.values()) {
        out.add(element(held));
      }
    }
    return out;
  }

  /** Replaces one set of contributions by another and returns the net kernel change. */
  Delta update(List<Element> removed, List<Element> added) {
    // Touched slots with the element each held before this update (null: none).
    Map<Element, Element> before = new LinkedHashMap<>();
    // Shard keys touched, with the element each holds after this update (null: none).
    Map<Element, Element> shardsNow = new HashMap<>();
    for (Element e : removed) {
      if (EndpointSlots.isShard(e.container())) {
        remember(before, e, e);
        shardsNow.put(keyOnly(e), null);
        continue;
      }
      Map<List<String>, Object> slots = containers.get(e.container());
      Object held = slots == null ? null : slots.get(e.key());
      if (held == null) {
        continue;
      }
      remember(before, element(held), element(held));
      removeRef(slots, e.key(), held);
    }
    for (Element e : added) {
      if (EndpointSlots.isShard(e.container())) {
        remember(before, e, null);
        shardsNow.put(keyOnly(e), e);
        continue;
      }
      Map<List<String>, Object> slots = slotsOf(e.container());
      Object held = slots.get(e.key());
      if (held == null) {
        remember(before, e, null);
      } else {
        remember(before, element(held), element(held));
      }
      addRef(slots, e);
    }
    List<Element> deletions = new ArrayList<>();
    List<Element> additions = new ArrayList<>();
    for (Map.Entry<Element, Element> change : before.entrySet()) {
      Element old = change.getValue();
      Element now;
      if (EndpointSlots.isShard(change.getKey().container())) {
        now = shardsNow.get(change.getKey());
      } else {
        Map<List<String>, Object> slots = containers.get(change.getKey().container());
        Object held = slots == null ? null : slots.get(change.getKey().key());
        now = held == null ? null : element(held);
      }
      if (Objects.equals(old, now)) {
        continue;
      }
      if (old != null) {
        deletions.add(old);
      }
      if (now != null) {
        additions.add(now);
      }
    }
    return new Delta(deletions, additions);
  }

  /** Records what a slot held before its first change in this update (a null value counts). */
  private static void remember(Map<Element, Element> before, Element slotElement, Element held) {
    Element id = keyOnly(slotElement);
    if (!before.containsKey(id)) {
      before.put(id, held);
    }
  }

  /** The identity of a slot: container and key, without value and comment. */
  private static Element keyOnly(Element e) {
    return new Element(e.container(), false, e.key(), null, null);
  }
}
