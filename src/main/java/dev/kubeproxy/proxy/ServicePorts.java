package dev.kubeproxy.proxy;

import dev.kubeproxy.logging.Log;
import dev.kubeproxy.platform.IpAddresses;
import io.kubernetes.client.openapi.models.V1LoadBalancerIngress;
import io.kubernetes.client.openapi.models.V1Service;
import io.kubernetes.client.openapi.models.V1ServicePort;
import io.kubernetes.client.openapi.models.V1ServiceSpec;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Turns a v1 Service into the ServicePorts of one IP family (pkg/proxy/servicechangetracker.go serviceToServiceMap, pkg/proxy/serviceport.go newBaseServiceInfo).
 * Bad values are logged with the Service's name and left out; a Service with no usable
 * cluster IP of the family yields no ports at all.
 */
public final class ServicePorts {
  static final String TOPOLOGY_HINTS_ANNOTATION = "service.kubernetes.io/topology-aware-hints";
  static final String TOPOLOGY_MODE_ANNOTATION = "service.kubernetes.io/topology-mode";

  private ServicePorts() {}

  /** With the LoadBalancerIPMode gate on (1.31 default). */
  public static Map<ServicePortName, ServicePort> of(V1Service service, IpFamily family) {
    return of(service, family, true);
  }

  /**
   * @param loadBalancerIPModeGate feature gate LoadBalancerIPMode: when on, ingress entries with
   *                               ipMode Proxy are not VIPs
   * @return the ports keyed by name, in spec order; empty when the Service is skipped
   */
  public static Map<ServicePortName, ServicePort> of(
      V1Service service, IpFamily family, boolean loadBalancerIPModeGate) {
    if (service == null || service.getSpec() == null || service.getMetadata() == null) {
      return Map.of();
    }
    V1ServiceSpec spec = service.getSpec();
    NamespacedName name = new NamespacedName(
        nullToEmpty(service.getMetadata().getNamespace()), nullToEmpty(service.getMetadata().getName()));
    String rawClusterIP = spec.getClusterIP();
    if (rawClusterIP == null || rawClusterIP.isEmpty() || rawClusterIP.equals("None")) {
      return Map.of();
    }
    if ("ExternalName".equals(spec.getType())) {
      return Map.of();
    }
    String familyIP = clusterIPOfFamily(spec, family);
    if (familyIP == null) {
      return Map.of();
    }
    String clusterIP = IpAddresses.normalize(familyIP);
    if (clusterIP == null) {
      Log.error("Service has an invalid clusterIP; skipping it", "service", name, "clusterIP", familyIP);
      return Map.of();
    }
    if (IpFamily.ofText(clusterIP) != family) {
      // e.g. an IPv4-mapped IPv6 literal: not of this family after all.
      return Map.of();
    }

    List<String> externalIPs = new ArrayList<>();
    for (String ip : nonNull(spec.getExternalIPs())) {
      if (ip == null || ip.isEmpty()) {
        continue;
      }
      String n = IpAddresses.normalize(ip);
      if (n == null) {
        Log.error("Service has an invalid externalIP; ignoring it", "service", name, "externalIP", ip);
      } else if (IpFamily.ofText(n) == family) {
        externalIPs.add(n);
      }
    }

    List<String> sourceRanges = new ArrayList<>();
    for (String raw : nonNull(spec.getLoadBalancerSourceRanges())) {
      String trimmed = raw == null ? "" : raw.trim();
      String n = IpAddresses.normalizeCidr(trimmed);
      if (n == null) {
        Log.error("Service has an invalid loadBalancerSourceRanges entry; ignoring it", "service", name,
            "sourceRange", raw);
      } else if (IpFamily.ofText(n) == family) {
        sourceRanges.add(n);
      }
    }

    List<String> lbVIPs = new ArrayList<>();
    if (service.getStatus() != null && service.getStatus().getLoadBalancer() != null) {
      for (V1LoadBalancerIngress ingress : nonNull(service.getStatus().getLoadBalancer().getIngress())) {
        if (ingress == null || ingress.getIp() == null || ingress.getIp().isEmpty()) {
          continue;
        }
        if (loadBalancerIPModeGate && "Proxy".equals(ingress.getIpMode())) {
          continue;
        }
        String n = IpAddresses.normalize(ingress.getIp());
        if (n == null) {
          Log.error("Service has an invalid load balancer ingress IP; ignoring it", "service", name,
              "ingressIP", ingress.getIp());
        } else if (IpFamily.ofText(n) == family) {
          lbVIPs.add(n);
        }
      }
    }

    String type = spec.getType() == null ? "ClusterIP" : spec.getType();
    boolean apiExternallyAccessible = type.equals("LoadBalancer") || type.equals("NodePort")
        || (type.equals("ClusterIP") && !nonNull(spec.getExternalIPs()).isEmpty());
    boolean externalPolicyLocal = apiExternallyAccessible && "Local".equals(spec.getExternalTrafficPolicy());
    boolean internalPolicyLocal = "Local".equals(spec.getInternalTrafficPolicy());
    boolean clientIPAffinity = "ClientIP".equals(spec.getSessionAffinity());
    int stickySeconds = 0;
    if (clientIPAffinity) {
      Integer t = spec.getSessionAffinityConfig() == null || spec.getSessionAffinityConfig().getClientIP() == null
          ? null : spec.getSessionAffinityConfig().getClientIP().getTimeoutSeconds();
      stickySeconds = t == null ? 10800 : t;
    }
    int healthCheckNodePort = 0;
    if (type.equals("LoadBalancer") && externalPolicyLocal) {
      Integer h = spec.getHealthCheckNodePort();
      if (h == null || h == 0) {
        Log.error("Service has no healthcheck nodeport", "service", name);
      } else if (h < 1 || h > 65535) {
        Log.error("Service has an out-of-range healthCheckNodePort; ignoring it", "service", name,
            "healthCheckNodePort", h);
      } else {
        healthCheckNodePort = h;
      }
    }
    String hints = hintsAnnotation(service.getMetadata().getAnnotations());

    Map<ServicePortName, ServicePort> out = new LinkedHashMap<>();
    for (V1ServicePort p : nonNull(spec.getPorts())) {
      if (p == null) {
        continue;
      }
      String portName = nullToEmpty(p.getName());
      String protocol = p.getProtocol() == null || p.getProtocol().isEmpty() ? "TCP" : p.getProtocol();
      ServicePortName spn = new ServicePortName(name, portName, protocol);
      Integer port = p.getPort();
      if (port == null || port < 1 || port > 65535) {
        Log.error("Service port has an out-of-range port; skipping this port", "service", name, "portName", portName,
            "port", port);
        continue;
      }
      if (!protocol.equals("TCP") && !protocol.equals("UDP") && !protocol.equals("SCTP")) {
        Log.error("Service port has an unknown protocol; skipping this port", "service", name, "portName", portName,
            "protocol", protocol);
        continue;
      }
      int nodePort = p.getNodePort() == null ? 0 : p.getNodePort();
      if (nodePort < 0 || nodePort > 65535) {
        Log.error("Service port has an out-of-range nodePort; skipping this port", "service", name,
            "portName", portName, "nodePort", nodePort);
        continue;
      }
      out.put(spn, new ServicePort(spn, clusterIP, port, protocol, nodePort, externalIPs, lbVIPs, sourceRanges,
          clientIPAffinity, stickySeconds, externalPolicyLocal, internalPolicyLocal, healthCheckNodePort, hints));
    }
    return Collections.unmodifiableMap(out);
  }

  /**
   * Why a Service yields no ports of this family, or why some of its ports are dropped, for the
   * -v=2 line upstream writes once (headless, ExternalName, no cluster IP of the family, a
   * duplicate port name and protocol); null when nothing is skipped silently.
   */
  public static String skipReason(V1Service service, IpFamily family) {
    if (service == null || service.getSpec() == null || service.getMetadata() == null) {
      return null;
    }
    V1ServiceSpec spec = service.getSpec();
    String ip = spec.getClusterIP();
    if (ip == null || ip.isEmpty() || ip.equals("None")) {
      return "headless (clusterIP " + (ip == null || ip.isEmpty() ? "unset" : ip) + "): no proxying";
    }
    if ("ExternalName".equals(spec.getType())) {
      return "type ExternalName: no proxying";
    }
    if (clusterIPOfFamily(spec, family) == null) {
      return "no " + family + " cluster IP (ipFamilies " + nonNull(spec.getIpFamilies()) + "): not proxied by the "
          + family + " proxier";
    }
    java.util.Set<String> seen = new java.util.HashSet<>();
    for (V1ServicePort p : nonNull(spec.getPorts())) {
      if (p != null && !seen.add(nullToEmpty(p.getName()) + "/" + (p.getProtocol() == null ? "TCP" : p.getProtocol()))) {
        return "duplicate port name \"" + nullToEmpty(p.getName()) + "\": only the last such port is proxied";
      }
    }
    return null;
  }

  /** GetClusterIPByFamily: the spec's cluster IP of this family, raw text, or null. */
  static String clusterIPOfFamily(V1ServiceSpec spec, IpFamily family) {
    List<String> families = nonNull(spec.getIpFamilies());
    if (families.isEmpty()) {
      String ip = spec.getClusterIP();
      if (ip == null || ip.isEmpty() || ip.equals("None")) {
        return null;
      }
      return IpFamily.ofText(ip) == family ? ip : null;
    }
    List<String> ips = nonNull(spec.getClusterIPs());
    for (int i = 0; i < families.size(); i++) {
      if (family.name().equals(families.get(i))) {
        return i < ips.size() ? ips.get(i) : null;
      }
    }
    return null;
  }

  static String hintsAnnotation(Map<String, String> annotations) {
    if (annotations == null) {
      return "";
    }
    if (annotations.containsKey(TOPOLOGY_HINTS_ANNOTATION)) {
      return nullToEmpty(annotations.get(TOPOLOGY_HINTS_ANNOTATION));
    }
    return nullToEmpty(annotations.get(TOPOLOGY_MODE_ANNOTATION));
  }

  private static <T> List<T> nonNull(List<T> list) {
    return list == null ? List.of() : list;
  }

  private static String nullToEmpty(String s) {
    return s == null ? "" : s;
  }
}
