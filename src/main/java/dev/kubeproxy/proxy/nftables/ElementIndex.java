package dev.kubeproxy.proxy.nftables;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The elements of the shared sets and maps as the kernel holds them, counted per contributing
 * service port (several ports of one Service share their cluster IP in "cluster-ips"), so that an
 * incremental sync can write just the element changes.
 */
final class ElementIndex {
  private static final class Slot {
    Element element;
    int refs;
  }

  /** What to change in the kernel: delete these elements, then add these. */
  record Delta(List<Element> deletions, List<Element> additions) {}

  private final Map<String, Slot> slots = new HashMap<>();

  void clear() {
    slots.clear();
  }

  int size() {
    return slots.size();
  }

  /** Replaces one set of contributions by another and returns the net kernel change. */
  Delta update(List<Element> removed, List<Element> added) {
    Map<String, Element> before = new LinkedHashMap<>();
    for (Element e : removed) {
      String id = id(e);
      Slot slot = slots.get(id);
      if (slot == null) {
        continue;
      }
      before.putIfAbsent(id, slot.element);
      if (--slot.refs <= 0) {
        slots.remove(id);
      }
    }
    for (Element e : added) {
      String id = id(e);
      Slot slot = slots.get(id);
      if (slot == null) {
        before.putIfAbsent(id, null);
        slot = new Slot();
        slots.put(id, slot);
      } else {
        before.putIfAbsent(id, slot.element);
      }
      slot.element = e;
      slot.refs++;
    }
    List<Element> deletions = new ArrayList<>();
    List<Element> additions = new ArrayList<>();
    for (Map.Entry<String, Element> change : before.entrySet()) {
      Element old = change.getValue();
      Slot slot = slots.get(change.getKey());
      Element now = slot == null ? null : slot.element;
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

  private static String id(Element e) {
    return e.container() + '\u0000' + e.keyText();
  }
}
