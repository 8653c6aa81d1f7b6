package dev.kubeproxy.e2e;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One test Service and its endpoints, rendered as a Kubernetes Service plus one EndpointSlice
 * per IP family. Ports: "tcp" 80 -> echo TCP port, "udp" 53 -> echo UDP port; NodePorts are
 * 30000 + 2n and 30000 + 2n + 1 when the type has them. Cluster IPs are {@code serviceIp(n)}.
 */
public final class ServiceDef {
  public static final String NAMESPACE = "e2e";
  public static final int TCP = 80;
  public static final int UDP = 53;

  final String name;
  final int number;
  String type = "ClusterIP";
  boolean udp = true;
  final List<Integer> externalIps = new ArrayList<>();
  final List<Integer> lbIngress = new ArrayList<>();
  final List<String> sourceRangesClients = new ArrayList<>();
  int affinityTimeout;
  boolean externalLocal;
  boolean internalLocal;
  int healthCheckNodePort;
  List<Backend> endpoints = List.of();
  /** trafficDistribution and the hints the EndpointSlice controller would write for it. */
  String trafficDistribution;
  java.util.Map<Backend, String> zoneHints = java.util.Map.of();

  public ServiceDef(String name, int number) {
    this.name = name;
    this.number = number;
  }

  public ServiceDef nodePort() {
    this.type = "NodePort";
    return this;
  }

  public ServiceDef loadBalancer(int externalIndex) {
    this.type = "LoadBalancer";
    lbIngress.add(externalIndex);
    return this;
  }

  public ServiceDef tcpOnly() {
    this.udp = false;
    return this;
  }

  public ServiceDef externalIp(int externalIndex) {
    externalIps.add(externalIndex);
    return this;
  }

  /** loadBalancerSourceRanges allowing only this client ("client-a" or "client-b"). */
  public ServiceDef allowOnly(String client) {
    sourceRangesClients.add(client);
    return this;
  }

  public ServiceDef sessionAffinity(int timeoutSeconds) {
    this.affinityTimeout = timeoutSeconds;
    return this;
  }

  public ServiceDef externalTrafficPolicyLocal(int healthCheckNodePort) {
    this.externalLocal = true;
    this.healthCheckNodePort = healthCheckNodePort;
    return this;
  }

  public ServiceDef internalTrafficPolicyLocal() {
    this.internalLocal = true;
    return this;
  }

  /** PreferSameNode: every endpoint hinted for its own node (hints.forNodes). */
  public ServiceDef preferSameNode() {
    trafficDistribution = "PreferSameNode";
    return this;
  }

  /** PreferSameZone (or its alias PreferClose): each endpoint hinted for the zone given. */
  public ServiceDef preferSameZone(String distribution, java.util.Map<Backend, String> zones) {
    trafficDistribution = distribution;
    zoneHints = java.util.Map.copyOf(zones);
    return this;
  }

  public ServiceDef endpoints(Backend... backends) {
    this.endpoints = List.of(backends);
    return this;
  }

  public String name() {
    return name;
  }

  public String clusterIp(Family f) {
    return f.serviceIp(number);
  }

  public boolean hasNodePorts() {
    return !type.equals("ClusterIP");
  }

  public int tcpNodePort() {
    return 30000 + 2 * number;
  }

  public int udpNodePort() {
    return 30000 + 2 * number + 1;
  }

  public String externalIp(Family f) {
    return f.externalIp(externalIps.get(0));
  }

  public String lbIp(Family f) {
    return f.externalIp(lbIngress.get(0));
  }

  /** The Service and its EndpointSlices for the given families (first = primary). */
  List<Map<String, Object>> objects(List<Family> families) {
    List<Map<String, Object>> docs = new ArrayList<>();
    docs.add(service(families));
    for (Family f : families) {
      docs.add(slice(f));
    }
    return docs;
  }

  private Map<String, Object> service(List<Family> families) {
    Map<String, Object> spec = new LinkedHashMap<>();
    spec.put("type", type);
    spec.put("clusterIP", clusterIp(families.get(0)));
    spec.put("clusterIPs", families.stream().map(this::clusterIp).toList());
    spec.put("ipFamilies", families.stream().map(Family::apiName).toList());
    spec.put("ipFamilyPolicy", families.size() > 1 ? "RequireDualStack" : "SingleStack");
    List<Map<String, Object>> ports = new ArrayList<>();
    ports.add(port("tcp", "TCP", TCP, Topology.TCP_PORT, tcpNodePort()));
    if (udp) {
      ports.add(port("udp", "UDP", UDP, Topology.UDP_PORT, udpNodePort()));
    }
    spec.put("ports", ports);
    if (!externalIps.isEmpty()) {
      spec.put("externalIPs", addresses(families, externalIps));
    }
    if (!sourceRangesClients.isEmpty()) {
      List<String> ranges = new ArrayList<>();
      for (Family f : families) {
        for (String c : sourceRangesClients) {
          ranges.add((c.equals("client-a") ? f.clientAIp() : f.clientBIp()) + f.hostLength());
        }
      }
      spec.put("loadBalancerSourceRanges", ranges);
    }
    if (affinityTimeout > 0) {
      spec.put("sessionAffinity", "ClientIP");
      spec.put("sessionAffinityConfig", Map.of("clientIP", Map.of("timeoutSeconds", affinityTimeout)));
    } else {
      spec.put("sessionAffinity", "None");
    }
    if (hasNodePorts()) {
      spec.put("externalTrafficPolicy", externalLocal ? "Local" : "Cluster");
    }
    if (externalLocal && type.equals("LoadBalancer")) {
      spec.put("healthCheckNodePort", healthCheckNodePort);
    }
    spec.put("internalTrafficPolicy", internalLocal ? "Local" : "Cluster");
    if (trafficDistribution != null) {
      spec.put("trafficDistribution", trafficDistribution);
    }

    Map<String, Object> svc = new LinkedHashMap<>();
    svc.put("apiVersion", "v1");
    svc.put("kind", "Service");
    svc.put("metadata", Map.of("name", name, "namespace", NAMESPACE));
    svc.put("spec", spec);
    if (!lbIngress.isEmpty()) {
      List<Map<String, Object>> ingress = addresses(families, lbIngress).stream()
          .map(ip -> Map.<String, Object>of("ip", ip)).toList();
      svc.put("status", Map.of("loadBalancer", Map.of("ingress", ingress)));
    }
    return svc;
  }

  private Map<String, Object> port(String portName, String protocol, int port, int target, int nodePort) {
    Map<String, Object> p = new LinkedHashMap<>();
    p.put("name", portName);
    p.put("protocol", protocol);
    p.put("port", port);
    p.put("targetPort", target);
    if (hasNodePorts()) {
      p.put("nodePort", nodePort);
    }
    return p;
  }

  private static List<String> addresses(List<Family> families, List<Integer> indexes) {
    List<String> out = new ArrayList<>();
    for (Family f : families) {
      for (int i : indexes) {
        out.add(f.externalIp(i));
      }
    }
    return out;
  }

  private Map<String, Object> slice(Family f) {
    Map<String, Object> s = new LinkedHashMap<>();
    s.put("apiVersion", "discovery.k8s.io/v1");
    s.put("kind", "EndpointSlice");
    s.put("metadata", Map.of(
        "name", name + "-" + f.apiName().toLowerCase(),
        "namespace", NAMESPACE,
        "labels", Map.of("kubernetes.io/service-name", name,
            "endpointslice.kubernetes.io/managed-by", "e2e-test")));
    s.put("addressType", f.apiName());
    List<Map<String, Object>> ports = new ArrayList<>();
    ports.add(Map.of("name", "tcp", "protocol", "TCP", "port", Topology.TCP_PORT));
    if (udp) {
      ports.add(Map.of("name", "udp", "protocol", "UDP", "port", Topology.UDP_PORT));
    }
    s.put("ports", ports);
    List<Map<String, Object>> eps = new ArrayList<>();
    for (Backend b : endpoints) {
      Map<String, Object> ep = new LinkedHashMap<>();
      ep.put("addresses", List.of(b.ip(f)));
      ep.put("conditions", Map.of("ready", true, "serving", true, "terminating", false));
      ep.put("nodeName", b.nodeName());
      Map<String, Object> hints = new LinkedHashMap<>();
      if ("PreferSameNode".equals(trafficDistribution)) {
        hints.put("forNodes", List.of(Map.of("name", b.nodeName())));
      }
      if (zoneHints.containsKey(b)) {
        hints.put("forZones", List.of(Map.of("name", zoneHints.get(b))));
      }
      if (!hints.isEmpty()) {
        ep.put("hints", hints);
      }
      ep.put("targetRef", Map.of("kind", "Pod", "namespace", NAMESPACE, "name", b.host()));
      eps.add(ep);
    }
    s.put("endpoints", eps);
    return s;
  }
}
