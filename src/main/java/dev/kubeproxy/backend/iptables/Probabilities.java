package dev.kubeproxy.backend.iptables;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.List;

/**
 * The --probability values of a service chain's random endpoint choice, 1/k printed like upstream's
 * Go %0.10f (pkg/proxy/iptables/proxier.go computeProbability), kept between syncs: each is made
 * once, not once per rule.
 */
final class Probabilities {
  private final List<String> texts = new ArrayList<>(List.of(""));

  /** 1/k printed like Go's %0.10f (binary value rounded half-even). */
  String of(int k) {
    while (texts.size() <= k) {
      int next = texts.size();
      texts.add(new BigDecimal(1.0 / next).setScale(10, RoundingMode.HALF_EVEN).toPlainString());
    }
    return texts.get(k);
  }
}
