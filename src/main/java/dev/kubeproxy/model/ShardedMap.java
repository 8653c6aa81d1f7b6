package dev.kubeproxy.model;

import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.BitSet;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;

/**
 * A mutable map whose immutable snapshots cost what changed since the previous one, not its size:
 * the entries live in fixed shards by hash, and a snapshot copies only the shards written since the
 * last snapshot and shares the others with it. A sync of one changed Service then does not copy
 * every service port of the cluster. Not thread-safe; its snapshots are, and may be read anywhere.
 */
final class ShardedMap<K, V> {
  private static final int SHARDS = 1024;

  @SuppressWarnings("unchecked")
  private final HashMap<K, V>[] live = new HashMap[SHARDS];
  private final BitSet dirty = new BitSet(SHARDS);
  private int size;
  private Snapshot<K, V> last;

  ShardedMap() {
    @SuppressWarnings("unchecked")
    Map<K, V>[] empty = new Map[SHARDS];
    for (int i = 0; i < SHARDS; i++) {
      live[i] = new HashMap<>();
      empty[i] = Map.of();
    }
    last = new Snapshot<>(empty, 0);
  }

  private static int shard(Object key) {
    int h = key.hashCode();
    return (h ^ (h >>> 16) ^ (h >>> 10)) & (SHARDS - 1);
  }

  V get(Object key) {
    return live[shard(key)].get(key);
  }

  V put(K key, V value) {
    int s = shard(key);
    V before = live[s].put(key, value);
    if (before == null) {
      size++;
    }
    if (before != value) {
      dirty.set(s);
    }
    return before;
  }

  V remove(Object key) {
    int s = shard(key);
    V before = live[s].remove(key);
    if (before != null) {
      size--;
      dirty.set(s);
    }
    return before;
  }

  int size() {
    return size;
  }

  /** An immutable copy of the current entries; the same object while nothing was written since. */
  Map<K, V> snapshot() {
    if (dirty.isEmpty()) {
      return last;
    }
    Map<K, V>[] shards = last.shards.clone();
    for (int s = dirty.nextSetBit(0); s >= 0; s = dirty.nextSetBit(s + 1)) {
      shards[s] = Map.copyOf(live[s]);
    }
    dirty.clear();
    last = new Snapshot<>(shards, size);
    return last;
  }

  /** The frozen shards of one snapshot: a read-only map over them. */
  private static final class Snapshot<K, V> extends AbstractMap<K, V> {
    private final Map<K, V>[] shards;
    private final int size;

    Snapshot(Map<K, V>[] shards, int size) {
      this.shards = shards;
      this.size = size;
    }

    @Override
    public V get(Object key) {
      return key == null ? null : shards[shard(key)].get(key);
    }

    @Override
    public boolean containsKey(Object key) {
      return key != null && shards[shard(key)].containsKey(key);
    }

    @Override
    public int size() {
      return size;
    }

    @Override
    public Set<Entry<K, V>> entrySet() {
      return new AbstractSet<>() {
        @Override
        public int size() {
          return size;
        }

        @Override
        public Iterator<Entry<K, V>> iterator() {
          return new Iterator<>() {
            private int shard = 0;
            private Iterator<Entry<K, V>> current = shards[0].entrySet().iterator();

            @Override
            public boolean hasNext() {
              while (!current.hasNext()) {
                if (++shard >= shards.length) {
                  return false;
                }
                current = shards[shard].entrySet().iterator();
              }
              return true;
            }

            @Override
            public Entry<K, V> next() {
              if (!hasNext()) {
                throw new NoSuchElementException();
              }
              return current.next();
            }
          };
        }
      };
    }
  }
}
