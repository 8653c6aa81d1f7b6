package dev.kubeproxy.e2e;

/**
 * The addresses of the test topology for one IP family. Node network 192.168.200.0/24 and
 * fd00:192:168:200::/64; pods of node-1 in 10.244.1.0/24 and fd00:10:244::1:0/112, pods of the
 * remote node in 10.244.2.0/24 and fd00:10:244::2:0/112 (both inside the cluster CIDRs
 * 10.244.0.0/16 and fd00:10:244::/64); Service IPs in 10.96.0.0/16 and fd00:10:96::/112.
 * External and LoadBalancer IPs are node-network addresses from .100 up that the clients route to
 * the node; only the proxy's rules give them meaning.
 */
public enum Family {
  V4("IPv4", "192.168.200.", "/24", "10.244.1.", "10.244.2.", "/24", "10.96.0.",
      "10.244.0.0/16", "10.96.0.0/16", "192.168.200.96/28"),
  V6("IPv6", "fd00:192:168:200::", "/64", "fd00:10:244::1:", "fd00:10:244::2:", "/112", "fd00:10:96::",
      "fd00:10:244::/64", "fd00:10:96::/112", "fd00:192:168:200::100/120");

  private final String apiName;
  private final String nodeNet;
  private final String nodePrefixLen;
  private final String localPods;
  private final String remotePods;
  private final String podPrefixLen;
  private final String services;
  private final String clusterCidr;
  private final String serviceCidr;
  private final String externalRange;

  Family(String apiName, String nodeNet, String nodePrefixLen, String localPods, String remotePods,
      String podPrefixLen, String services, String clusterCidr, String serviceCidr, String externalRange) {
    this.apiName = apiName;
    this.nodeNet = nodeNet;
    this.nodePrefixLen = nodePrefixLen;
    this.localPods = localPods;
    this.remotePods = remotePods;
    this.podPrefixLen = podPrefixLen;
    this.services = services;
    this.clusterCidr = clusterCidr;
    this.serviceCidr = serviceCidr;
    this.externalRange = externalRange;
  }

  /** "IPv4" / "IPv6", as in Service.spec.ipFamilies and EndpointSlice.addressType. */
  public String apiName() {
    return apiName;
  }

  public boolean v6() {
    return this == V6;
  }

  public String nodeIp() {
    return nodeNet + "10";
  }

  public String remoteNodeIp() {
    return nodeNet + "11";
  }

  public String clientAIp() {
    return nodeNet + "20";
  }

  public String clientBIp() {
    return nodeNet + "21";
  }

  /** External/LoadBalancer address number n (0..9), routed by the clients to the node. */
  public String externalIp(int n) {
    return nodeNet + (100 + n);
  }

  public String externalRange() {
    return externalRange;
  }

  public String nodeNetPrefixLen() {
    return nodePrefixLen;
  }

  /** The node's address on each pod veth: the pods' gateway (and a hairpin masquerade source). */
  public String podGateway() {
    return localPods + "1";
  }

  /** Local pod number i (0-based: pod-a, pod-b, pod-c). */
  public String localPodIp(int i) {
    return localPods + (2 + i);
  }

  public String localPodSubnet() {
    return v6() ? localPods + "0/112" : localPods + "0/24";
  }

  public String remoteGateway() {
    return remotePods + "1";
  }

  public String remotePodIp() {
    return remotePods + "2";
  }

  public String remotePodSubnet() {
    return v6() ? remotePods + "0/112" : remotePods + "0/24";
  }

  public String remotePodPrefixLen() {
    return podPrefixLen;
  }

  /** Service cluster IP number n (1..254). */
  public String serviceIp(int n) {
    return services + n;
  }

  public String clusterCidr() {
    return clusterCidr;
  }

  public String serviceCidr() {
    return serviceCidr;
  }

  public String hostLength() {
    return v6() ? "/128" : "/32";
  }

  /** "-4" or "-6" for the ip command. */
  public String ipFlag() {
    return v6() ? "-6" : "-4";
  }

  /** A literal usable in a URL's host part. */
  public String urlHost(String ip) {
    return v6() ? "[" + ip + "]" : ip;
  }
}
