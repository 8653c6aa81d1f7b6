package dev.kubeproxy.e2e;

import dev.kubeproxy.testutil.tier.EndToEnd;
import java.util.List;
import java.util.Set;

/** nftables mode, IPv4: every check. */
@EndToEnd
class NftablesIpv4IT extends ProxyScenarios {
  @Override
  String mode() {
    return "nftables";
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
