package dev.kubeproxy.backend.nftables;

import java.util.Arrays;

/**
 * The decimal text of ports, one String per number, shared by every element a service port keeps
 * that names it: the hairpin elements alone name the same few target ports once per endpoint.
 * Owned by one proxier (not thread-safe).
 */
final class NumberTexts {
  private static final int LIMIT = 1 << 16;

  private String[] texts = new String[1024];

  /** The text of n, shared for 0 ≤ n < 65536. */
  String of(int n) {
    if (n < 0 || n >= LIMIT) {
      return Integer.toString(n);
    }
    if (n >= texts.length) {
      texts = Arrays.copyOf(texts, Math.min(LIMIT, Integer.highestOneBit(n) << 1));
    }
    String t = texts[n];
    if (t == null) {
      t = Integer.toString(n);
      texts[n] = t;
    }
    return t;
  }
}
