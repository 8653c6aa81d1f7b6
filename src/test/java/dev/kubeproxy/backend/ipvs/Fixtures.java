package dev.kubeproxy.backend.ipvs;

import dev.kubeproxy.net.IpFamily;
import dev.kubeproxy.model.LocalTrafficDetector;
import java.util.List;
import java.util.Set;

/** The ipvs tests' ruleset options (the model's records: testutil.ModelFixtures). */
final class Fixtures {
  private Fixtures() {}

  /** IPv4, rr, no local detection, node 192.168.0.2 (also the only NodePort address). */
  static IpvsRulesetOptions options() {
    return new IpvsRulesetOptions(IpFamily.IPv4, "rr", false, "0x00004000", LocalTrafficDetector.noop(), true,
        "192.168.0.2", List.of("192.168.0.2"), Set.of("192.168.0.2"));
  }

  static IpvsRulesetOptions ipv6Options() {
    return new IpvsRulesetOptions(IpFamily.IPv6, "rr", false, "0x00004000", LocalTrafficDetector.noop(), true,
        "fd00::2", List.of("fd00::2"), Set.of("fd00::2"));
  }

  static IpvsRulesetOptions withScheduler(IpvsRulesetOptions o, String scheduler) {
    return new IpvsRulesetOptions(o.family(), scheduler, o.masqueradeAll(), o.masqueradeMark(), o.localDetector(),
        o.randomFully(), o.nodeIP(), o.nodePortIPs(), o.nodeAddresses());
  }

  static IpvsRulesetOptions withDetector(IpvsRulesetOptions o, LocalTrafficDetector detector) {
    return new IpvsRulesetOptions(o.family(), o.scheduler(), o.masqueradeAll(), o.masqueradeMark(), detector,
        o.randomFully(), o.nodeIP(), o.nodePortIPs(), o.nodeAddresses());
  }
}
