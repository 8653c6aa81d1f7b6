package dev.kubeproxy.e2e;

import dev.kubeproxy.testutil.tier.EndToEnd;
import java.util.List;
import java.util.Set;

/** iptables mode on the legacy xtables backend, IPv4: every check. */
@EndToEnd
class IptablesLegacyIpv4IT extends ProxyScenarios {
  @Override
  String mode() {
    return "iptables";
  }

  @Override
  IptablesVariant iptablesVariant() {
    return IptablesVariant.LEGACY;
  }

  @Override
  List<Family> families() {
    return List.of(Family.V4);
  }

  @Override
  Set<Check> checks() {
    return Check.all();
  }
}
