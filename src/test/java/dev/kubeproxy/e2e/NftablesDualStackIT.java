package dev.kubeproxy.e2e;

import dev.kubeproxy.testutil.tier.EndToEnd;
import java.util.List;
import java.util.Set;

/** nftables mode, dual-stack Services: every check, for both families. */
@EndToEnd
class NftablesDualStackIT extends ProxyScenarios {
  @Override
  String mode() {
    return "nftables";
  }

  @Override
  List<Family> families() {
    return List.of(Family.V4, Family.V6);
  }

  @Override
  Set<Check> checks() {
    return Check.all();
  }
}
