package dev.kubeproxy.config;

import java.util.Optional;

/**
 * The proxy modes of upstream v1.31 on Linux, as {@code mode} / {@code --proxy-mode} spells them.
 * An empty mode reads as {@link #IPTABLES}, upstream's platform default (pkg/proxy/apis/config/v1alpha1
 * defaults.go, SetDefaults_KubeProxyConfiguration leaves it empty; cmd/kube-proxy/app/server_linux.go
 * platformApplyDefaults sets iptables).
 */
public enum ProxyMode {
  IPTABLES("iptables"),
  IPVS("ipvs"),
  NFTABLES("nftables");

  private final String text;

  ProxyMode(String text) {
    this.text = text;
  }

  /** The configuration spelling ("iptables", "ipvs", "nftables"). */
  public String text() {
    return text;
  }

  /** The mode a configured value names; "" (unset) is iptables; an unknown spelling is empty. */
  public static Optional<ProxyMode> parse(String value) {
    if (value == null || value.isEmpty()) {
      return Optional.of(IPTABLES);
    }
    for (ProxyMode mode : values()) {
      if (mode.text.equals(value)) {
        return Optional.of(mode);
      }
    }
    return Optional.empty();
  }

  @Override
  public String toString() {
    return text;
  }
}
