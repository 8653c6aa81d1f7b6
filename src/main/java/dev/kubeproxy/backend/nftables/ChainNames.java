package dev.kubeproxy.backend.nftables;

import dev.kubeproxy.model.Endpoint;
import dev.kubeproxy.model.ServicePortName;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Locale;

/**
 * Upstream's names of the per-service objects (pkg/proxy/nftables/proxier.go
 * servicePortChainNameBase, hashAndTruncate): a readable base prefixed by a short
 * hash, e.g. "service-ULMVA6XW-ns1/svc1/tcp/p80".
 */
public final class ChainNames {
  private static final String BASE32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
  /** nft's 256-character name limit minus room for the longest prefix. */
  private static final int MAX_BASE = 240;

  /** Never digests anything itself: each name hashes with a clone, cheaper than a provider lookup. */
  private static final MessageDigest SHA256 = sha256();

  private static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is part of every Java runtime", e);
    }
  }

  private static MessageDigest newDigest() {
    try {
      return (MessageDigest) SHA256.clone();
    } catch (CloneNotSupportedException e) {
      return sha256();
    }
  }

  private ChainNames() {}

  /** "namespace/service/protocol/portName", the readable part of the service chains' names. */
  public static String serviceBase(ServicePortName spn) {
    return hashAndTruncate(serviceText(spn));
  }

  /** The readable part of an endpoint chain's or affinity set's name. */
  public static String endpointBase(ServicePortName spn, Endpoint ep) {
    return hashAndTruncate(serviceText(spn) + "__" + ep.ip().replace(':', '.') + "/" + ep.port());
  }

  public static String serviceChain(ServicePortName spn) {
    return "service-" + serviceBase(spn);
  }

  public static String localChain(ServicePortName spn) {
    return "local-" + serviceBase(spn);
  }

  public static String externalChain(ServicePortName spn) {
    return "external-" + serviceBase(spn);
  }

  public static String firewallChain(ServicePortName spn) {
    return "firewall-" + serviceBase(spn);
  }

  /** The chains of one service port, with the hash computed once. */
  public record ServiceChains(String service, String local, String external, String firewall) {
    public static ServiceChains of(ServicePortName spn) {
      String base = serviceBase(spn);
      return new ServiceChains("service-" + base, "local-" + base, "external-" + base, "firewall-" + base);
    }
  }

  public static String endpointChain(ServicePortName spn, Endpoint ep) {
    return "endpoint-" + endpointBase(spn, ep);
  }

  public static String affinitySet(ServicePortName spn, Endpoint ep) {
    return "affinity-" + endpointBase(spn, ep);
  }

  private static String serviceText(ServicePortName spn) {
    return spn.service().namespace() + "/" + spn.service().name() + "/"
        + spn.protocol().toLowerCase(Locale.ROOT) + "/" + (spn.port() == null ? "" : spn.port());
  }

  /** First 8 characters of base32(sha256(s)), a dash, then s cut to fit nft's name limit. */
  static String hashAndTruncate(String s) {
    byte[] digest = newDigest().digest(s.getBytes(StandardCharsets.UTF_8));
    // 8 base32 characters are exactly the first 40 bits (5 bytes) of the digest.
    long bits = 0;
    for (int i = 0; i < 5; i++) {
      bits = (bits << 8) | (digest[i] & 0xff);
    }
    StringBuilder sb = new StringBuilder(9 + s.length());
    for (int i = 7; i >= 0; i--) {
      sb.append(BASE32.charAt((int) ((bits >>> (5 * i)) & 31)));
    }
    sb.append('-').append(s);
    if (sb.length() > MAX_BASE) {
      sb.setLength(MAX_BASE - 3);
      sb.append("...");
    }
    return sb.toString();
  }
}
