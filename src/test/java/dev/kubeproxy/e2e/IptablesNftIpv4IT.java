package dev.kubeproxy.e2e;

import dev.kubeproxy.testutil.tier.EndToEnd;
import java.util.List;
import java.util.Set;

/** iptables mode on the nft xtables backend (iptables-nft), IPv4: the reduced set (this backend is the slow one). */
@EndToEnd
class IptablesNftIpv4IT extends ProxyScenarios {
  @Override
  String mode() {
    return "iptables";
  }

  @Override
  IptablesVariant iptablesVariant() {
    return IptablesVariant.NFT;
  }

  @Override
  List<Family> families() {
    return List.of(Family.V4);
  }

  @Override
  Set<Check> checks() {
    return Check.reduced();
  }
}
