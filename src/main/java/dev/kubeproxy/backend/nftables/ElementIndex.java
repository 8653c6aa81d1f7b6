package dev.kubeproxy.backend.nftables;

import dev.kubeproxy.backend.nftables.objects.Element;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The elements of the shared sets and maps as the kernel holds them, counted per contributing
 * service port (several ports of one Service share their cluster IP in "cluster-ips"), so that an
 * incremental sync can write just the element changes. The endpoint-ranges shards are not
 * indexed: each of their keys belongs to one chain's block ({@link EndpointSlots}), so what the
 * changed ports removed is all the kernel holds under those keys (and the index stays small: the
 * shards hold most of the table's elements).
 */
final class ElementIndex {
  private static final class Slot {
    Element element;
    int refs;
  }

  /** What to change in the kernel: delete these elements, then add these. */
  record Delta(List<Element> deletions, List<Element> additions) {}

  /** container name to element key to slot. */
  private final Map<String, Map<List<String>, Slot>> containers = new HashMap<>();

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
      Map<List<String>, Slot> slots = containers.computeIfAbsent(e.container(), k -> new HashMap<>());
      Slot slot = slots.get(e.key());
      if (slot == null) {
        slot = new Slot();
        slot.element = e;
        slots.put(e.key(), slot);
        fresh.add(e);
      }
      slot.refs++;
    }
    return fresh;
  }

  /** Every indexed element once, those of one container adjacent. */
  List<Element> indexed() {
    List<Element> out = new ArrayList<>();
    for (Map<List<String>, Slot> slots : containers.values()) {
      for (Slot slot : slots.values()) {
        out.add(slot.element);
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
      Map<List<String>, Slot> slots = containers.get(e.container());
      Slot slot = slots == null ? null : slots.get(e.key());
      if (slot == null) {
        continue;
      }
      remember(before, slot.element, slot.element);
      if (--slot.refs <= 0) {
        slots.remove(e.key());
      }
    }
    for (Element e : added) {
      if (EndpointSlots.isShard(e.container())) {
        remember(before, e, null);
        shardsNow.put(keyOnly(e), e);
        continue;
      }
      Map<List<String>, Slot> slots = containers.computeIfAbsent(e.container(), k -> new HashMap<>());
      Slot slot = slots.get(e.key());
      if (slot == null) {
        slot = new Slot();
        slots.put(e.key(), slot);
        remember(before, e, null);
      } else {
        remember(before, slot.element, slot.element);
      }
      slot.element = e;
      slot.refs++;
    }
    List<Element> deletions = new ArrayList<>();
    List<Element> additions = new ArrayList<>();
    for (Map.Entry<Element, Element> change : before.entrySet()) {
      Element old = change.getValue();
      Element now;
      if (EndpointSlots.isShard(change.getKey().container())) {
        now = shardsNow.get(change.getKey());
      } else {
        Map<List<String>, Slot> slots = containers.get(change.getKey().container());
        Slot slot = slots == null ? null : slots.get(change.getKey().key());
        now = slot == null ? null : slot.element;
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
