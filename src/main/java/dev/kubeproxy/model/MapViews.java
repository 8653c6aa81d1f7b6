package dev.kubeproxy.model;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The keys or values of a map as a list of their own, for the small maps kept per Service and per
 * service port: {@code keySet()} and {@code values()} of such a map create a view object that the
 * map then keeps for good, one more object per Service at no use.
 */
public final class MapViews {
  private MapViews() {}

  public static <K> List<K> keys(Map<K, ?> map) {
    List<K> keys = new ArrayList<>(map.size());
    for (Map.Entry<K, ?> e : map.entrySet()) {
      keys.add(e.getKey());
    }
    return keys;
  }

  public static <V> List<V> values(Map<?, V> map) {
    List<V> values = new ArrayList<>(map.size());
    for (Map.Entry<?, V> e : map.entrySet()) {
      values.add(e.getValue());
    }
    return values;
  }
}
