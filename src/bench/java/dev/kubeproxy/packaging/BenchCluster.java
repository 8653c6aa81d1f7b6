package dev.kubeproxy.packaging;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;

/**
 * The scale benchmark's generated cluster: ClusterIP Services bench/svc-0.. of one TCP port, each
 * with one EndpointSlice of E ready endpoints on another node, and this node's Node object; and
 * what each change leaves in the kernel (the chain names the modes derive from a Service or an
 * endpoint, with upstream's hashes).
 */
final class BenchCluster {
  static final String NODE = "node-1";
  /** The Services whose endpoints the churn replaces, one after the other. */
  static final int CHURNED = 20;

  final int services;
  final int endpoints;

  BenchCluster(int services, int endpoints) {
    this.services = services;
    this.endpoints = endpoints;
  }

  JsonObject node() {
    return new JsonObject().put("apiVersion", "v1").put("kind", "Node").put("metadata", new JsonObject()
        .put("name", NODE).put("labels", new JsonObject().put("kubernetes.io/hostname", NODE)))
        .put("status", new JsonObject().put("addresses", new JsonArray().add(new JsonObject()
            .put("type", "InternalIP").put("address", "192.168.200.10"))));
  }

  JsonObject service(int i) {
    String ip = clusterIp(i);
    return new JsonObject().put("apiVersion", "v1").put("kind", "Service")
        .put("metadata", new JsonObject().put("name", "svc-" + i).put("namespace", "bench"))
        .put("spec", new JsonObject().put("type", "ClusterIP").put("clusterIP", ip)
            .put("clusterIPs", new JsonArray().add(ip)).put("ipFamilies", new JsonArray().add("IPv4"))
            .put("ports", new JsonArray().add(new JsonObject().put("name", "http").put("port", 80)
                .put("targetPort", 8080).put("protocol", "TCP"))));
  }

  /** Service i's slice in generation g (0: its first endpoints); a changed slice says when its change was triggered. */
  JsonObject slice(int i, int generation, String triggerTime) {
    JsonObject meta = new JsonObject().put("name", "svc-" + i + "-abcde").put("namespace", "bench")
        .put("labels", new JsonObject().put("kubernetes.io/service-name", "svc-" + i));
    if (triggerTime != null) {
      meta.put("annotations", new JsonObject().put("endpoints.kubernetes.io/last-change-trigger-time", triggerTime));
    }
    JsonArray eps = new JsonArray();
    for (int j = 0; j < endpoints; j++) {
      eps.add(new JsonObject().put("addresses", new JsonArray().add(endpointIp(i, j, generation)))
          .put("conditions", new JsonObject().put("ready", true).put("serving", true).put("terminating", false))
          .put("nodeName", "node-2"));
    }
    return new JsonObject().put("apiVersion", "discovery.k8s.io/v1").put("kind", "EndpointSlice").put("metadata", meta)
        .put("addressType", "IPv4").put("ports", new JsonArray().add(new JsonObject().put("name", "http")
            .put("port", 8080).put("protocol", "TCP")))
        .put("endpoints", eps);
  }

  /** 10.96.0.10 + i. */
  static String clusterIp(int i) {
    return ipv4(0x0A600000 + 10 + i);
  }

  /** Endpoint j of Service i in generation g: 10.64.0.0/10 holds the first ones, 10.128.0.0/10 the replacements. */
  String endpointIp(int i, int j, int generation) {
    return ipv4(generation == 0 ? 0x0A400000 + i * endpoints + j : 0x0A800000 + ((generation * endpoints + j) & 0x3FFFFF));
  }

  /** iptables: the chain of Service i's port (upstream's servicePortChainName). */
  static String serviceChain(int i) {
    return "KUBE-SVC-" + base32(sha256("bench/svc-" + i + ":http" + "tcp"), 16);
  }

  /** iptables: the chain of one endpoint of Service i (upstream's servicePortEndpointChainName). */
  static String endpointChain(int i, String ip) {
    return "KUBE-SEP-" + base32(sha256("bench/svc-" + i + ":http" + "tcp" + ip + ":8080"), 16);
  }

  private static String ipv4(int v) {
    return ((v >>> 24) & 255) + "." + ((v >>> 16) & 255) + "." + ((v >>> 8) & 255) + "." + (v & 255);
  }

  private static final String BASE32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

  private static byte[] sha256(String s) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  private static String base32(byte[] digest, int chars) {
    StringBuilder out = new StringBuilder(chars);
    long bits = 0;
    int count = 0;
    for (int i = 0; out.length() < chars; i++) {
      bits = (bits << 8) | (digest[i] & 0xff);
      count += 8;
      while (count >= 5 && out.length() < chars) {
        count -= 5;
        out.append(BASE32.charAt((int) ((bits >> count) & 31)));
      }
    }
    return out.toString();
  }
}
