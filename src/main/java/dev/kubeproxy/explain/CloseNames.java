package dev.kubeproxy.explain;

import dev.kubeproxy.model.NamespacedName;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;

/** The known Services whose names are closest to one that is not known, for "did you mean". */
final class CloseNames {
  static final int MAX = 5;

  private CloseNames() {}

  static List<String> of(NamespacedName wanted, Collection<NamespacedName> known) {
    record Scored(NamespacedName name, int distance) {}
    List<Scored> scored = new ArrayList<>();
    for (NamespacedName k : known) {
      int d = distance(wanted.toString(), k.toString());
      // The same name in another namespace, or a few edits away, is worth showing.
      if (k.name().equals(wanted.name()) || d <= Math.max(2, wanted.toString().length() / 3)) {
        scored.add(new Scored(k, k.name().equals(wanted.name()) ? 0 : d));
      }
    }
    scored.sort(Comparator.comparingInt(Scored::distance).thenComparing(s -> s.name().toString()));
    return scored.stream().limit(MAX).map(s -> s.name().toString()).toList();
  }

  /** Levenshtein distance. */
  static int distance(String a, String b) {
    int[] prev = new int[b.length() + 1];
    int[] cur = new int[b.length() + 1];
    for (int j = 0; j <= b.length(); j++) {
      prev[j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      cur[0] = i;
      for (int j = 1; j <= b.length(); j++) {
        int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
        cur[j] = Math.min(Math.min(cur[j - 1] + 1, prev[j] + 1), prev[j - 1] + cost);
      }
      int[] t = prev;
      prev = cur;
      cur = t;
    }
    return prev[b.length()];
  }
}
