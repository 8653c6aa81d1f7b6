package dev.kubeproxy.backend.netfilter;

/** The two iptables implementations a node may use; both ship the same command names with a suffix. */
public enum IptablesBackend {
  LEGACY("legacy"),
  NFT("nft");

  private final String suffix;

  IptablesBackend(String suffix) {
    this.suffix = suffix;
  }

  /** "legacy" or "nft", as in iptables-legacy / iptables-nft. */
  public String suffix() {
    return suffix;
  }
}
