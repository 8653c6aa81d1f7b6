package dev.kubeproxy.packaging;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The memory limit a cluster of a given size needs: a base, a share per 10,000 Services and a share
 * per 100,000 endpoints, never below the DaemonSet's default. The scale benchmark runs each shape
 * under the limit this rule gives, and {@code docker/kube-proxy.yaml} states the same rule beside
 * its limit (SizingRuleTest holds the two together).
 */
public record SizingRule(int baseMiB, int perTenThousandServicesMiB, int perHundredThousandEndpointsMiB,
    int floorMiB) {
  /** The rule in force: see docs/PERFORMANCE.md for the measurements behind it. */
  public static final SizingRule CURRENT = new SizingRule(50, 85, 95, 512);

  private static final Pattern STATED = Pattern.compile(
      "(\\d+)Mi \\+ (\\d+)Mi per 10,000 Services \\+ (\\d+)Mi per 100,000 endpoints, and never below (\\d+)Mi");

  /** The limit in MiB for services Services with endpointsPerService endpoints each. */
  public long limitMiB(long services, long endpointsPerService) {
    double mib = baseMiB + perTenThousandServicesMiB * services / 10_000.0
        + perHundredThousandEndpointsMiB * services * endpointsPerService / 100_000.0;
    return Math.max(floorMiB, (long) Math.ceil(mib));
  }

  /** The rule as a manifest comment states it ("50Mi + 85Mi per 10,000 Services + …"), or null. */
  public static SizingRule statedIn(String text) {
    Matcher m = STATED.matcher(text.replaceAll("\\s*\\n\\s*#?\\s*", " "));
    if (!m.find()) {
      return null;
    }
    return new SizingRule(Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2)), Integer.parseInt(m.group(3)),
        Integer.parseInt(m.group(4)));
  }
}
