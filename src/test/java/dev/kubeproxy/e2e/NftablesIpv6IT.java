package dev.kubeproxy.e2e;

import dev.kubeproxy.testutil.tier.EndToEnd;
import java.util.List;
import java.util.Set;

/** nftables mode, IPv6-only cluster: the reduced set. */
@EndToEnd
class NftablesIpv6IT extends ProxyScenarios {
  @Override
  String mode() {
    return "nftables";
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
