package dev.kubeproxy.backend.iptables;

import dev.kubeproxy.net.IpFamily;
import dev.kubeproxy.model.LocalTrafficDetector;
import dev.kubeproxy.model.ProxierSettings;
import java.io.PrintStream;
import java.time.Duration;
import java.util.List;

/** The iptables tests' settings and ruleset options (the model's records: testutil.ModelFixtures). */
final class Fixtures {
  private Fixtures() {}

  static ProxierSettings settings(IpFamily family, List<String> nodePortAddresses, LocalTrafficDetector detector,
      boolean masqueradeAll, boolean localhostNodePorts, PrintStream dryRun) {
    List<String> nodeIPs = family == IpFamily.IPv4 ? List.of("192.168.200.10") : List.of("fd00:192:168::10");
    return new ProxierSettings(family, "node-a", nodeIPs, nodePortAddresses, masqueradeAll, 14,
        localhostNodePorts, detector, Duration.ofHours(1), Duration.ofSeconds(1), dryRun);
  }

  static RulesetOptions options(IpFamily family, LocalTrafficDetector detector) {
    return new RulesetOptions(family, "0x00004000", false, family == IpFamily.IPv4, detector, true, false, true,
        List.of(), family == IpFamily.IPv4 ? List.of("192.168.200.10") : List.of("fd00:192:168::10"));
  }

  static LocalTrafficDetector clusterCidr(String cidr) {
    return new LocalTrafficDetector("ClusterCIDR", cidr);
  }
}
