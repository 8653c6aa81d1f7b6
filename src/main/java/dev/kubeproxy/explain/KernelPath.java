package dev.kubeproxy.explain;

import java.util.List;

/**
 * Where the rules actually programmed send the packet of a {@link PacketPath}, traced through them
 * (the kernel's rules, or in --dry-run the rules last printed), and whether that is what the model says.
 *
 * @param source       where the rules were read
 * @param verdict      DNAT, ACCEPT (not DNATed), DROP or REJECT; null when the rules could not be traced
 * @param targets      every "ip:port" a random choice of the rules can DNAT the packet to
 * @param masqueraded  whether the rules masquerade it
 * @param steps        each chain entered and the rule that matched there ("table/CHAIN: rule")
 * @param disagreement where the model and the rules differ, or null when they agree
 * @param error        why the rules could not be traced, or null
 */
public record KernelPath(String source, String verdict, List<String> targets, boolean masqueraded,
    List<String> steps, String disagreement, String error) {

  public KernelPath {
    targets = List.copyOf(targets);
    steps = List.copyOf(steps);
  }

  static KernelPath unavailable(String source, String error) {
    return new KernelPath(source, null, List.of(), false, List.of(), null, error);
  }
}
