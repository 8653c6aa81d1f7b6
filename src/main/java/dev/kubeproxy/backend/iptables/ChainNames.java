package dev.kubeproxy.backend.iptables;

import dev.kubeproxy.model.ServicePortName;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * Upstream's chain names (pkg/proxy/iptables/proxier.go servicePortPolicyClusterChain and its siblings, portProtoHash): fixed top-level chains and the hashed per-service-port
 * and per-endpoint chains. The hash is the first 16 characters of base32(sha256(...)).
 */
public final class ChainNames {
  public static final String KUBE_SERVICES = "KUBE-SERVICES";
  public static final String KUBE_EXTERNAL_SERVICES = "KUBE-EXTERNAL-SERVICES";
  public static final String KUBE_NODEPORTS = "KUBE-NODEPORTS";
  public static final String KUBE_FORWARD = "KUBE-FORWARD";
  public static final String KUBE_PROXY_FIREWALL = "KUBE-PROXY-FIREWALL";
  public static final String KUBE_FIREWALL = "KUBE-FIREWALL";
  public static final String KUBE_POSTROUTING = "KUBE-POSTROUTING";
  public static final String KUBE_MARK_MASQ = "KUBE-MARK-MASQ";
  public static final String KUBE_PROXY_CANARY = "KUBE-PROXY-CANARY";
  public static final String KUBE_KUBELET_CANARY = "KUBE-KUBELET-CANARY";

  /** The filter table's top-level chains, in the order the restore input declares them. */
  static final java.util.List<String> FILTER_TOP_LEVEL =
      java.util.List.of(KUBE_SERVICES, KUBE_EXTERNAL_SERVICES, KUBE_FORWARD, KUBE_NODEPORTS, KUBE_PROXY_FIREWALL);
  /** The nat table's top-level chains, in the order the restore input declares them. */
  static final java.util.List<String> NAT_TOP_LEVEL =
      java.util.List.of(KUBE_SERVICES, KUBE_NODEPORTS, KUBE_POSTROUTING, KUBE_MARK_MASQ);

  private static final String[] SERVICE_CHAIN_PREFIXES = {
    "KUBE-SVC-", "KUBE-SVL-", "KUBE-SEP-", "KUBE-FW-", "KUBE-EXT-"
  };
  /**
   * Chain shapes only older kube-proxies wrote (KUBE-XLB-: externalTrafficPolicy Local, up to
   * v1.23). They are never active; left behind, one that jumps to a service chain the agent
   * deletes would make every restore refuse that deletion, so they go with the stale chains.
   */
  private static final String[] OBSOLETE_CHAIN_PREFIXES = {"KUBE-XLB-"};
  private static final char[] BASE32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567".toCharArray();

  private final MessageDigest sha256;

  /** Not thread safe (one digest per instance): one instance per proxier. */
  public ChainNames() {
    try {
      sha256 = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("the JVM has no SHA-256", e);
    }
  }

  /** The 16-character suffix shared by KUBE-SVC-/SVL-/EXT-/FW- of one service port. */
  public String serviceHash(ServicePortName name) {
    return hash(name.toString() + name.protocol().toLowerCase());
  }

  /** KUBE-SEP-... for one endpoint ("ip:port" or "[ip6]:port") of a service port. */
  public String endpointChain(String servicePortName, String protocolLower, String endpoint) {
    return "KUBE-SEP-" + hash(servicePortName + protocolLower + endpoint);
  }

  /** First 16 base32 characters (80 bits = the first 10 bytes) of sha256(text). */
  public String hash(String text) {
    byte[] digest = sha256.digest(text.getBytes(StandardCharsets.UTF_8));
    char[] out = new char[16];
    long bits = 0;
    int bitCount = 0;
    int n = 0;
    for (int i = 0; i < 10; i++) {
      bits = (bits << 8) | (digest[i] & 0xff);
      bitCount += 8;
      while (bitCount >= 5) {
        bitCount -= 5;
        out[n++] = BASE32[(int) ((bits >> bitCount) & 0x1f)];
      }
    }
    return new String(out);
  }

  /** A chain of an older kube-proxy's layout, deleted whenever it is found. */
  public static boolean isObsoleteChain(String chain) {
    for (String prefix : OBSOLETE_CHAIN_PREFIXES) {
      if (chain.startsWith(prefix)) {
        return true;
      }
    }
    return false;
  }

  /** The "is this one of ours" test used for stale-chain deletion and cleanup. */
  public static boolean isServiceChain(String chain) {
    for (String prefix : SERVICE_CHAIN_PREFIXES) {
      if (chain.startsWith(prefix)) {
        return true;
      }
    }
    return false;
  }
}
