package dev.kubeproxy.backend.ipvs;

import dev.kubeproxy.net.IpFamily;
import java.util.ArrayList;
import java.util.List;

/** The ipsets of ipvs mode (pkg/proxy/ipvs/proxier.go ipsetInfo, names and comments of ipset.go). */
public final class IpSets {
  public static final String LOOP_BACK = "KUBE-LOOP-BACK";
  public static final String CLUSTER_IP = "KUBE-CLUSTER-IP";
  public static final String EXTERNAL_IP = "KUBE-EXTERNAL-IP";
  public static final String EXTERNAL_IP_LOCAL = "KUBE-EXTERNAL-IP-LOCAL";
  public static final String LOAD_BALANCER = "KUBE-LOAD-BALANCER";
  public static final String LOAD_BALANCER_FW = "KUBE-LOAD-BALANCER-FW";
  public static final String LOAD_BALANCER_LOCAL = "KUBE-LOAD-BALANCER-LOCAL";
  public static final String LOAD_BALANCER_SOURCE_IP = "KUBE-LOAD-BALANCER-SOURCE-IP";
  public static final String LOAD_BALANCER_SOURCE_CIDR = "KUBE-LOAD-BALANCER-SOURCE-CIDR";
  public static final String NODE_PORT_TCP = "KUBE-NODE-PORT-TCP";
  public static final String NODE_PORT_LOCAL_TCP = "KUBE-NODE-PORT-LOCAL-TCP";
  public static final String NODE_PORT_UDP = "KUBE-NODE-PORT-UDP";
  public static final String NODE_PORT_LOCAL_UDP = "KUBE-NODE-PORT-LOCAL-UDP";
  public static final String NODE_PORT_SCTP = "KUBE-NODE-PORT-SCTP-HASH";
  public static final String NODE_PORT_LOCAL_SCTP = "KUBE-NODE-PORT-LOCAL-SCTP-HASH";
  public static final String HEALTH_CHECK_NODE_PORT = "KUBE-HEALTH-CHECK-NODE-PORT";
  public static final String IPVS_IPS = "KUBE-IPVS-IPS";

  private IpSets() {}

  /** Every set, in upstream's ipsetInfo order, for one family. */
  public static List<IpSet> all(IpFamily family) {
    List<IpSet> out = new ArrayList<>();
    out.add(new IpSet(LOOP_BACK, IpSetType.HASH_IP_PORT_IP,
        "Kubernetes endpoints dst ip:port, source ip for solving hairpin purpose", family));
    out.add(new IpSet(CLUSTER_IP, IpSetType.HASH_IP_PORT,
        "Kubernetes service cluster ip + port for masquerade purpose", family));
    out.add(new IpSet(EXTERNAL_IP, IpSetType.HASH_IP_PORT,
        "Kubernetes service external ip + port for masquerade and filter purpose", family));
    out.add(new IpSet(EXTERNAL_IP_LOCAL, IpSetType.HASH_IP_PORT,
        "Kubernetes service external ip + port with externalTrafficPolicy=local", family));
    out.add(new IpSet(LOAD_BALANCER, IpSetType.HASH_IP_PORT, "Kubernetes service lb portal", family));
    out.add(new IpSet(LOAD_BALANCER_FW, IpSetType.HASH_IP_PORT,
        "Kubernetes service load balancer ip + port for load balancer with sourceRange", family));
    out.add(new IpSet(LOAD_BALANCER_LOCAL, IpSetType.HASH_IP_PORT,
        "Kubernetes service load balancer ip + port with externalTrafficPolicy=local", family));
    out.add(new IpSet(LOAD_BALANCER_SOURCE_IP, IpSetType.HASH_IP_PORT_IP,
        "Kubernetes service load balancer ip + port + source IP for packet filter purpose", family));
    out.add(new IpSet(LOAD_BALANCER_SOURCE_CIDR, IpSetType.HASH_IP_PORT_NET,
        "Kubernetes service load balancer ip + port + source cidr for packet filter purpose", family));
    out.add(new IpSet(NODE_PORT_TCP, IpSetType.BITMAP_PORT, "Kubernetes nodeport TCP port for masquerade purpose", family));
    out.add(new IpSet(NODE_PORT_LOCAL_TCP, IpSetType.BITMAP_PORT,
        "Kubernetes nodeport TCP port with externalTrafficPolicy=local", family));
    out.add(new IpSet(NODE_PORT_UDP, IpSetType.BITMAP_PORT, "Kubernetes nodeport UDP port for masquerade purpose", family));
    out.add(new IpSet(NODE_PORT_LOCAL_UDP, IpSetType.BITMAP_PORT,
        "Kubernetes nodeport UDP port with externalTrafficPolicy=local", family));
    out.add(new IpSet(NODE_PORT_SCTP, IpSetType.HASH_IP_PORT,
        "Kubernetes nodeport SCTP port for masquerade purpose with type 'hash ip:port'", family));
    out.add(new IpSet(NODE_PORT_LOCAL_SCTP, IpSetType.HASH_IP_PORT,
        "Kubernetes nodeport SCTP port with externalTrafficPolicy=local with type 'hash ip:port'", family));
    out.add(new IpSet(HEALTH_CHECK_NODE_PORT, IpSetType.BITMAP_PORT, "Kubernetes health check node port", family));
    out.add(new IpSet(IPVS_IPS, IpSetType.HASH_IP, "Addresses on the ipvs interface", family));
    return List.copyOf(out);
  }
}
