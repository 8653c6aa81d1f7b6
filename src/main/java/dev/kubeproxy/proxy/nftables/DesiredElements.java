package dev.kubeproxy.proxy.nftables;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;

/**
 * One set's or map's desired elements in the reader's forms, found by key form as the kernel's
 * are read. Arrays and an open-addressing table of indexes, not a map of entries: at 10,000
 * Services × 10 a map of hairpin-connections' 100,000 elements held 14 MB for the length of that
 * set's read, long enough for the collector to promote it to the old generation.
 */
final class DesiredElements {
  private final List<Element> elements;
  private final String[] keys;
  /** Each element's form (the same string as its key form where the reader gives one for both). */
  private final String[] forms;
  /**
   * Open addressing, two ints a slot: a key form's hash and its element's index + 1 (0: an empty
   * slot); at most half full. The hash beside the index tells most candidates apart without
   * touching their strings, which lie all over the heap.
   */
  private final int[] slots;
  /** 32 minus the number of bits of a slot number (the slot is the top bits of the mixed hash). */
  private final int shift;
  /** Elements the kernel holds as desired, and repeated keys (the first of a key counts, as in the kernel). */
  private final BitSet settled;

  DesiredElements(List<Element> elements, TableReader reader) {
    this.elements = elements;
    int n = elements.size();
    keys = new String[n];
    forms = new String[n];
    int slotCount = Integer.highestOneBit(Math.max(1, n)) << 2;
    slots = new int[2 * slotCount];
    shift = Integer.numberOfLeadingZeros(slotCount) + 1;
    settled = new BitSet(n);
    for (int i = 0; i < n; i++) {
      Element e = elements.get(i);
      keys[i] = reader.keyForm(e);
      forms[i] = reader.elementForm(e); // right after its key: the encoder reuses the key it just encoded
      int slot = find(keys[i]);
      if (slots[slot + 1] == 0) {
        slots[slot] = keys[i].hashCode();
        slots[slot + 1] = i + 1;
      } else {
        settled.set(i);
      }
    }
  }

  /**
   * Whether the kernel's element of this key form is desired with this form; if so it needs
   * nothing and is not among {@link #missing()}.
   */
  boolean holds(String key, String form) {
    int i = slots[find(key) + 1] - 1;
    if (i < 0 || settled.get(i) || !forms[i].equals(form)) {
      return false;
    }
    settled.set(i);
    return true;
  }

  /** The desired elements the kernel does not hold as desired, in their order. */
  List<Element> missing() {
    List<Element> out = new ArrayList<>();
    for (int i = settled.nextClearBit(0); i < elements.size(); i = settled.nextClearBit(i + 1)) {
      out.add(elements.get(i));
    }
    return out;
  }

  /** The slot (its first int) of this key form: the one that holds it, or the empty one where it would go. */
  private int find(String key) {
    int h = key.hashCode();
    int mask = slots.length - 1;
    int slot = (h * 0x9E3779B1 >>> shift) << 1; // Fibonacci hashing: the forms of neighbouring keys spread out
    while (slots[slot + 1] != 0 && !(slots[slot] == h && keys[slots[slot + 1] - 1].equals(key))) {
      slot = (slot + 2) & mask;
    }
    return slot;
  }
}
