package dev.kubeproxy.backend.nftables;

import dev.kubeproxy.backend.nftables.objects.Element;
import dev.kubeproxy.backend.nftables.objects.FormArena;
import dev.kubeproxy.backend.nftables.objects.TableReader;

import java.util.Arrays;
import java.util.BitSet;
import java.util.function.Consumer;

/**
 * One set's or map's desired elements in the reader's forms, found by key form as the kernel's
 * are read. The elements are taken one at a time and only their forms kept, in one
 * {@link FormArena} with an open-addressing table of indexes. One instance serves every set of
 * every resync of a table and keeps its arrays: a large set's elements, forms and entries made
 * afresh would live through the set's read, be promoted, and force full collections.
 */
final class DesiredElements {
  private final FormArena arena = new FormArena();
  /**
   * Element i's key form is arena[bounds[2i], bounds[2i+1]) and its element form
   * arena[bounds[2i+1], bounds[2i+2]), or its key form again when that range is empty (a set's
   * element without a comment).
   */
  private int[] bounds = new int[64];
  private int count;
  /**
   * Open addressing, two ints a slot: a key form's hash and its element's index + 1 (0: an empty
   * slot); at most half full. The hash beside the index tells most candidates apart without
   * touching the arena.
   */
  private int[] slots = new int[0];
  /** 32 minus the number of bits of a slot number (the slot is the top bits of the mixed hash). */
  private int shift;
  /** The ints of the slots in use, less one (the array may be larger, from a bigger set). */
  private int mask;
  /** Elements the kernel holds as desired, and repeated keys (the first of a key counts, as in the kernel). */
  private final BitSet settled = new BitSet();

  /**
   * Takes the desired elements of the next set (those of the one before are forgotten).
   *
   * @param elements hands every desired element to its argument, in order: {@link #missing()}
   *                 names them by that order
   */
  DesiredElements fill(Consumer<Consumer<Element>> elements, TableReader reader) {
    count = 0;
    arena.truncate(0);
    settled.clear();
    elements.accept(e -> {
      if (2 * count + 3 > bounds.length) {
        bounds = Arrays.copyOf(bounds, bounds.length * 2);
      }
      int keyStart = bounds[2 * count];
      reader.keyForm(e, arena);
      int formStart = arena.length();
      reader.elementForm(e, arena); // right after its key: the encoder reuses the key it just encoded
      if (arena.length() - formStart == formStart - keyStart && arena.same(keyStart, formStart, formStart - keyStart)) {
        arena.truncate(formStart); // the form is the key's
      }
      bounds[2 * count + 1] = formStart;
      bounds[2 * count + 2] = arena.length();
      count++;
    });
    int slotCount = Integer.highestOneBit(Math.max(1, count)) << 2;
    if (slots.length < 2 * slotCount) {
      slots = new int[2 * slotCount];
    } else {
      Arrays.fill(slots, 0, 2 * slotCount, 0);
    }
    shift = Integer.numberOfLeadingZeros(slotCount) + 1;
    mask = 2 * slotCount - 1;
    for (int i = 0; i < count; i++) {
      int h = arena.hash(bounds[2 * i], bounds[2 * i + 1]);
      int slot = find(h, null, bounds[2 * i], bounds[2 * i + 1]);
      if (slots[slot + 1] == 0) {
        slots[slot] = h;
        slots[slot + 1] = i + 1;
      } else {
        settled.set(i);
      }
    }
    return this;
  }

  /**
   * Whether the kernel's element whose key form is forms[keyStart, keyEnd) and element form
   * forms[keyEnd, end) is desired with that form; if so it needs nothing and is not among
   * {@link #missing()}.
   */
  boolean holds(char[] forms, int keyStart, int keyEnd, int end) {
    int i = slots[find(FormArena.hash(forms, keyStart, keyEnd), forms, keyStart, keyEnd) + 1] - 1;
    if (i < 0 || settled.get(i)) {
      return false;
    }
    int from = bounds[2 * i + 1];
    int to = bounds[2 * i + 2];
    if (!(from == to ? arena.holds(bounds[2 * i], from, forms, keyEnd, end) : arena.holds(from, to, forms, keyEnd, end))) {
      return false;
    }
    settled.set(i);
    return true;
  }

  /** The desired elements the kernel does not hold as desired: their places in the order given. */
  BitSet missing() {
    BitSet out = new BitSet(count);
    out.set(0, count);
    out.andNot(settled);
    return out;
  }

  /**
   * The slot (its first int) of a key form: the one that holds it, or the empty one where it would
   * go. The key is other[start, end), or arena[start, end) when other is null.
   */
  private int find(int h, char[] other, int start, int end) {
    int slot = (h * 0x9E3779B1 >>> shift) << 1; // Fibonacci hashing: the forms of neighbouring keys spread out
    while (slots[slot + 1] != 0) {
      if (slots[slot] == h) {
        int j = slots[slot + 1] - 1;
        int from = bounds[2 * j];
        int to = bounds[2 * j + 1];
        if (other != null ? arena.holds(from, to, other, start, end) : sameKey(from, to, start, end)) {
          return slot;
        }
      }
      slot = (slot + 2) & mask;
    }
    return slot;
  }

  private boolean sameKey(int from, int to, int start, int end) {
    return to - from == end - start && arena.same(from, start, end - start);
  }
}
