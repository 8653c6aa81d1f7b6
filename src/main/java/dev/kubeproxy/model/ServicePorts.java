package dev.kubeproxy.model;

import dev.kubeproxy.net.IpFamily;

import dev.kubeproxy.logging.Log;
import dev.kubeproxy.net.IpAddresses;
import dev.kubeproxy.model.objects.Service;
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

  /** With the AllowServiceExternalIPs gate on (its 1.37 default). */
  public static Map<ServicePortName, ServicePort> of(Service service, IpFamily family) {
    return of(service, family, true);
  }

  /**
   * Ingress entries with ipMode Proxy are never VIPs (the LoadBalancerIPMode gate is GA and gone).
   *
   * @param allowExternalIPs feature gate AllowServiceExternalIPs: when off, spec.externalIPs are
   *                         not programmed in any mode (pkg/proxy/serviceport.go newBaseServiceInfo)
   * @return the ports keyed by name, in spec order; empty when the Service is skipped
   */
  public static Map<ServicePortName, ServicePort> of(
      Service service, IpFamily family, boolean allowExternalIPs) {
    if (service == null) {
      return Map.of();
    }
    NamespacedName name = new NamespacedName(service.metadata().namespace(), service.metadata().name());
    String rawClusterIP = service.clusterIP();
    if (rawClusterIP == null || rawClusterIP.isEmpty() || rawClusterIP.equals("None")) {
      return Map.of();
    }
    if ("ExternalName".equals(service.type())) {
      return Map.of();
    }
    String familyIP = clusterIPOfFamily(service, family);
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
    for (String ip : allowExternalIPs ? service.externalIPs() : List.<String>of()) {
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
    for (String raw : service.loadBalancerSourceRanges()) {
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
    {
      for (Service.Ingress ingress : service.ingress()) {
        if (ingress.ip() == null || ingress.ip().isEmpty()) {
          continue;
        }
        if ("Proxy".equals(ingress.ipMode())) {
          continue;
        }
        String n = IpAddresses.normalize(ingress.ip());
        if (n == null) {
          Log.error("Service has an invalid load balancer ingress IP; ignoring it", "service", name,
              "ingressIP", ingress.ip());
        } else if (IpFamily.ofText(n) == family) {
          lbVIPs.add(n);
        }
      }
    }

    String type = service.type() == null ? "ClusterIP" : service.type();
    boolean apiExternallyAccessible = type.equals("LoadBalancer") || type.equals("NodePort")
        || (type.equals("ClusterIP") && !service.externalIPs().isEmpty());
    boolean externalPolicyLocal = apiExternallyAccessible && "Local".equals(service.externalTrafficPolicy());
    boolean internalPolicyLocal = "Local".equals(service.internalTrafficPolicy());
    boolean clientIPAffinity = "ClientIP".equals(service.sessionAffinity());
    int stickySeconds = 0;
    if (clientIPAffinity) {
      Integer t = service.clientIPTimeoutSeconds();
      stickySeconds = t == null ? 10800 : t;
    }
    int healthCheckNodePort = 0;
    if (type.equals("LoadBalancer") && externalPolicyLocal) {
      Integer h = service.healthCheckNodePort();
      if (h == null || h == 0) {
        Log.error("Service has no healthcheck nodeport", "service", name);
      } else if (h < 1 || h > 65535) {
        Log.error("Service has an out-of-range healthCheckNodePort; ignoring it", "service", name,
            "healthCheckNodePort", h);
      } else {
        healthCheckNodePort = h;
      }
    }
    String hints = hintsAnnotation(service.metadata().annotations());

    Map<ServicePortName, ServicePort> out = new LinkedHashMap<>();
    for (Service.Port p : service.ports()) {
      String portName = nullToEmpty(p.name());
      String protocol = p.protocol() == null || p.protocol().isEmpty() ? "TCP" : p.protocol();
      ServicePortName spn = new ServicePortName(name, portName, protocol);
      Integer port = p.port();
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
      int nodePort = p.nodePort() == null ? 0 : p.nodePort();
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
   * Why a Service yields no ports of a family or drops some of them, and the -v level that says
   * so; the words are made only when that level logs (every single-stack Service is a skip of the
   * other family).
   */
  public record Skip(java.util.function.Supplier<String> reason, int verbosity) {}

  /**
   * Why a Service yields no ports of this family, or why some of its ports are dropped (headless,
   * ExternalName, no cluster IP of the family, a duplicate port name and protocol); null when
   * nothing is skipped. Missing the family is -v=4: every single-stack Service on a dual-stack
   * node lacks one, and upstream's serviceToServiceMap says nothing of it; the rest is -v=2.
   */
  public static Skip skip(Service service, IpFamily family) {
    if (service == null) {
      return null;
    }
    String ip = service.clusterIP();
    if (ip == null || ip.isEmpty() || ip.equals("None")) {
      return new Skip(() -> "headless (clusterIP " + (ip == null || ip.isEmpty() ? "unset" : ip) + "): no proxying", 2);
    }
    if ("ExternalName".equals(service.type())) {
      return new Skip(() -> "type ExternalName: no proxying", 2);
    }
    if (clusterIPOfFamily(service, family) == null) {
      return new Skip(() -> "no " + family + " cluster IP (ipFamilies " + service.ipFamilies()
          + "): not proxied by the " + family + " proxier", 4);
    }
    if (service.ports().size() < 2) {
      return null;
    }
    java.util.Set<String> seen = new java.util.HashSet<>();
    for (Service.Port p : service.ports()) {
      if (!seen.add(nullToEmpty(p.name()) + "/" + (p.protocol() == null ? "TCP" : p.protocol()))) {
        return new Skip(() -> "duplicate port name \"" + nullToEmpty(p.name()) + "\": only the last such port is proxied", 2);
      }
    }
    return null;
  }

  /** GetClusterIPByFamily: the spec's cluster IP of this family, raw text, or null. */
  static String clusterIPOfFamily(Service service, IpFamily family) {
    List<String> families = service.ipFamilies();
    if (families.isEmpty()) {
      String ip = service.clusterIP();
      if (ip == null || ip.isEmpty() || ip.equals("None")) {
        return null;
      }
      return IpFamily.ofText(ip) == family ? ip : null;
    }
    List<String> ips = service.clusterIPs();
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

  private static String nullToEmpty(String s) {
    return s == null ? "" : s;
  }
}
