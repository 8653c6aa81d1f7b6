package dev.kubeproxy.e2e;

import dev.kubeproxy.testutil.tier.EndToEnd;
import java.util.List;
import java.util.Set;

/** iptables mode (ip6tables, legacy backend), IPv6-only cluster: the reduced set. */
@EndToEnd
class IptablesLegacyIpv6IT extends ProxyScenarios {
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
    return List.of(Family.V6);
  }

  @Override
  Set<Check> checks() {
    return Check.reduced();
  }
}
