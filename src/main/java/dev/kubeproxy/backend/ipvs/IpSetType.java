package dev.kubeproxy.backend.ipvs;

/** The ipset types ipvs mode uses (pkg/proxy/ipvs/ipset/types.go), with the text ipset knows them by. */
public enum IpSetType {
  HASH_IP("hash:ip"),
  HASH_IP_PORT("hash:ip,port"),
  HASH_IP_PORT_IP("hash:ip,port,ip"),
  HASH_IP_PORT_NET("hash:ip,port,net"),
  BITMAP_PORT("bitmap:port");

  private final String text;

  IpSetType(String text) {
    this.text = text;
  }

  public String text() {
    return text;
  }

  /** upstream acceptIPVSTraffic: how an iptables set match names this type's dimensions. */
  public String destinationMatch() {
    return this == BITMAP_PORT || this == HASH_IP ? "dst" : "dst,dst";
  }
}
