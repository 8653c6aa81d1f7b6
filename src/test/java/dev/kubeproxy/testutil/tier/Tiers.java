package dev.kubeproxy.testutil.tier;

import java.util.List;

/**
 * The test tiers, one JUnit tag each. Surefire runs the in-process tiers (unit, kernel) in
 * {@code mvn test}; Failsafe runs the tiers that need the packaged jar (e2e, guest, image) in
 * {@code mvn verify}; {@code -Dgroups=TAG} narrows either to one tier.
 */
public final class Tiers {
  private Tiers() {}

  /** Pure Java, also verticles on loopback ports: no root, no kernel rules. */
  public static final String UNIT = "unit";
  /** Root and the netfilter tools, rules written only into a scratch network namespace. */
  public static final String KERNEL = "kernel";
  /** The packaged agent run as a process (in network namespaces when it writes rules). */
  public static final String E2E = "e2e";
  /** Commands run as root in a QEMU guest booted with a kernel that has IPVS. */
  public static final String GUEST = "guest";
  /** The container image, built and run. */
  public static final String IMAGE = "image";

  /** Every tier, in the order the summary lists them. */
  public static final List<String> ALL = List.of(UNIT, KERNEL, E2E, GUEST, IMAGE);

  /** Tiers Surefire runs (classes named *Test); the others run under Failsafe (classes named *IT). */
  public static final List<String> IN_PROCESS = List.of(UNIT, KERNEL);
}
