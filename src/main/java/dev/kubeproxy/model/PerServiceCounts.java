package dev.kubeproxy.model;

import java.util.HashMap;
import java.util.Map;

/**
 * A positive number per Service (a health-check node port, a count of ready local endpoints), set
 * one changed Service at a time. {@link #copy} hands out the same immutable map until a value
 * changes, so a reader can tell "unchanged" by identity and a sync of one Service copies nothing.
 */
final class PerServiceCounts {
  private final Map<NamespacedName, Integer> values = new HashMap<>();
  /** The last copy handed out (null: a value changed since). */
  private Map<NamespacedName, Integer> copy;

  /** Sets the Service's value; zero removes it. */
  void set(NamespacedName service, int value) {
    Integer before = value == 0 ? values.remove(service) : values.put(service, value);
    if (before == null ? value != 0 : before != value) {
      copy = null;
    }
  }

  Map<NamespacedName, Integer> copy() {
    if (copy == null) {
      copy = Map.copyOf(values);
    }
    return copy;
  }
}
