package dev.kubeproxy.cluster;

import dev.kubeproxy.net.IpAddresses;
import dev.kubeproxy.model.objects.EndpointSlice;
import dev.kubeproxy.model.objects.ObjectMeta;
import dev.kubeproxy.model.objects.Service;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Checks a Service or EndpointSlice the way the API server's validation does (upstream
 * pkg/apis/core/validation ValidateService / ValidateServicePort and pkg/apis/discovery/validation
 * ValidateEndpointSlice), for the fields kube-proxy reads. Objects from an API server passed it
 * already; objects from --manifests (or a misbehaving server) did not, and a value no API server
 * would store (a name with a newline, port 70000, timeoutSeconds -5) must never reach the rules.
 * Fields the API server defaults (protocol, type, traffic policies) may be left out. Every object of
 * every list and watch passes here: a valid one costs no garbage (field paths are made only for
 * an error, sets only for more than one port).
 */
public final class ObjectValidator {
  private static final Set<String> PROTOCOLS = Set.of("TCP", "UDP", "SCTP");
  private static final Set<String> SERVICE_TYPES = Set.of("ClusterIP", "NodePort", "LoadBalancer", "ExternalName");
  private static final Set<String> TRAFFIC_POLICIES = Set.of("Cluster", "Local");
  private static final Set<String> AFFINITIES = Set.of("None", "ClientIP");
  private static final Set<String> FAMILIES = Set.of("IPv4", "IPv6");
  private static final Set<String> FAMILY_POLICIES = Set.of("SingleStack", "PreferDualStack", "RequireDualStack");
  private static final Set<String> TRAFFIC_DISTRIBUTIONS = Set.of("PreferClose", "PreferSameZone", "PreferSameNode");
  private static final Set<String> IP_MODES = Set.of("VIP", "Proxy");
  private static final Set<String> ADDRESS_TYPES = Set.of("IPv4", "IPv6", "FQDN");
  /** MaxClientIPServiceAffinitySeconds in pkg/apis/core. */
  static final int MAX_AFFINITY_SECONDS = 86400;

  private ObjectValidator() {}

  /** Every problem of a Service; empty when an API server would have accepted it. */
  public static List<FieldError> service(Service service) {
    List<FieldError> errors = new ArrayList<>();
    objectMeta(service.metadata(), true, errors);
    String type = service.type() == null ? "ClusterIP" : service.type();
    oneOf("spec.type", service.type(), SERVICE_TYPES, errors);
    boolean headless = "None".equals(service.clusterIP());
    if (!"ExternalName".equals(type)) {
      if (service.clusterIP() != null && !service.clusterIP().isEmpty() && !headless) {
        ip("spec.clusterIP", service.clusterIP(), errors);
      }
      List<String> ips = service.clusterIPs();
      if (ips.size() > 2) {
        errors.add(new FieldError("spec.clusterIPs", "Too many: " + ips.size() + ": must have at most 2 items"));
      }
      for (int i = 0; i < ips.size(); i++) {
        String ip = ips.get(i);
        if (!("None".equals(ip) && i == 0) && IpAddresses.parse(ip) == null) {
          errors.add(FieldError.ip("spec.clusterIPs[" + i + "]", ip));
        }
      }
      if (!ips.isEmpty() && service.clusterIP() != null && !service.clusterIP().isEmpty()
          && !service.clusterIP().equals(ips.get(0))) {
        errors.add(new FieldError("spec.clusterIPs[0]", "Invalid value: \"" + ips.get(0)
            + "\": must match clusterIP when both are specified"));
      }
      if (ips.size() == 2 && IpAddresses.parse(ips.get(0)) != null && IpAddresses.parse(ips.get(1)) != null
          && IpAddresses.parse(ips.get(0)).length == IpAddresses.parse(ips.get(1)).length) {
        errors.add(new FieldError("spec.clusterIPs[1]", "Invalid value: \"" + ips.get(1)
            + "\": may specify no more than one IP for each IP family"));
      }
    }
    List<String> families = service.ipFamilies();
    if (families.size() > 2) {
      errors.add(new FieldError("spec.ipFamilies", "Too many: " + families.size() + ": must have at most 2 items"));
    }
    for (int i = 0; i < families.size(); i++) {
      String f = families.get(i);
      if (!FAMILIES.contains(f)) {
        errors.add(FieldError.unsupported("spec.ipFamilies[" + i + "]", f, FAMILIES));
      } else if (families.subList(0, i).contains(f)) {
        errors.add(new FieldError("spec.ipFamilies[" + i + "]", "Duplicate value: \"" + f + "\""));
      }
    }
    oneOf("spec.ipFamilyPolicy", service.ipFamilyPolicy(), FAMILY_POLICIES, errors);
    oneOf("spec.sessionAffinity", service.sessionAffinity(), AFFINITIES, errors);
    if ("ClientIP".equals(service.sessionAffinity())) {
      Integer t = service.clientIPTimeoutSeconds();
      if (t != null && (t <= 0 || t > MAX_AFFINITY_SECONDS)) {
        errors.add(new FieldError("spec.sessionAffinityConfig.clientIP.timeoutSeconds", "Invalid value: " + t
            + ": must be greater than 0 and less than " + MAX_AFFINITY_SECONDS));
      }
    }
    oneOf("spec.externalTrafficPolicy", service.externalTrafficPolicy(), TRAFFIC_POLICIES, errors);
    oneOf("spec.internalTrafficPolicy", service.internalTrafficPolicy(), TRAFFIC_POLICIES, errors);
    oneOf("spec.trafficDistribution", service.trafficDistribution(), TRAFFIC_DISTRIBUTIONS, errors);
    if (service.healthCheckNodePort() != null && service.healthCheckNodePort() != 0) {
      port("spec.healthCheckNodePort", service.healthCheckNodePort(), errors);
    }
    List<String> externalIPs = service.externalIPs();
    for (int i = 0; i < externalIPs.size(); i++) {
      if (IpAddresses.parse(externalIPs.get(i)) == null) {
        errors.add(FieldError.ip("spec.externalIPs[" + i + "]", externalIPs.get(i)));
      }
    }
    List<String> ranges = service.loadBalancerSourceRanges();
    for (int i = 0; i < ranges.size(); i++) {
      String r = ranges.get(i) == null ? "" : ranges.get(i).trim();
      if (IpAddresses.normalizeCidr(r) == null) {
        errors.add(new FieldError("spec.loadBalancerSourceRanges[" + i + "]", "Invalid value: " + FieldError.quote(ranges.get(i))
            + ": must be a list of IP ranges. For example, 10.240.0.0/24,10.250.0.0/24"));
      }
    }
    servicePorts(service, headless || "ExternalName".equals(type), errors);
    {
      List<Service.Ingress> ingress = service.ingress();
      for (int i = 0; i < ingress.size(); i++) {
        Service.Ingress in = ingress.get(i);
        String at = "status.loadBalancer.ingress[" + i + "]";
        if (in == null) {
          continue;
        }
        if (in.ip() != null && !in.ip().isEmpty()) {
          ip(at + ".ip", in.ip(), errors);
        }
        oneOf(at + ".ipMode", in.ipMode(), IP_MODES, errors);
        if (in.hostname() != null && !in.hostname().isEmpty()) {
          dns1123Subdomain(at + ".hostname", in.hostname(), errors);
        }
      }
    }
    return errors;
  }

  private static void servicePorts(Service service, boolean portsOptional, List<FieldError> errors) {
    List<Service.Port> ports = service.ports();
    if (ports.isEmpty() && !portsOptional) {
      errors.add(new FieldError("spec.ports", "Required value"));
    }
    boolean several = ports.size() > 1;
    Set<String> names = several ? new HashSet<>() : Set.of();
    Set<String> portProtocols = several ? new HashSet<>() : Set.of();
    Set<String> nodePorts = several ? new HashSet<>() : Set.of();
    for (int i = 0; i < ports.size(); i++) {
      Service.Port p = ports.get(i);
      if (p == null) {
        errors.add(new FieldError(portField(i, ""), "Required value"));
        continue;
      }
      String name = p.name() == null ? "" : p.name();
      if (several && name.isEmpty()) {
        errors.add(new FieldError(portField(i, ".name"), "Required value"));
      } else if (!name.isEmpty()) {
        if (!NameFormats.isDns1123Label(name)) {
          errors.add(FieldError.dns1123Label(portField(i, ".name"), name));
        }
        if (several && !names.add(name)) {
          errors.add(new FieldError(portField(i, ".name"), "Duplicate value: " + FieldError.quote(name)));
        }
      }
      if (p.port() == null) {
        errors.add(new FieldError(portField(i, ".port"), "Required value"));
      } else if (!isPort(p.port())) {
        errors.add(FieldError.port(portField(i, ".port"), p.port()));
      }
      String protocol = p.protocol() == null ? "TCP" : p.protocol();
      if (!PROTOCOLS.contains(protocol)) {
        errors.add(FieldError.unsupported(portField(i, ".protocol"), protocol, PROTOCOLS));
      }
      if (several && p.port() != null && !portProtocols.add(p.port() + "/" + protocol)) {
        errors.add(new FieldError(portField(i, ""), "Duplicate value: {port: " + p.port() + ", protocol: " + protocol + "}"));
      }
      if (p.nodePort() != null && p.nodePort() != 0) {
        if (!isPort(p.nodePort())) {
          errors.add(FieldError.port(portField(i, ".nodePort"), p.nodePort()));
        }
        if (several && !nodePorts.add(p.nodePort() + "/" + protocol)) {
          errors.add(new FieldError(portField(i, ".nodePort"), "Duplicate value: " + p.nodePort()));
        }
      }
      if (p.targetPortNumber() != null && p.targetPortNumber() != 0) {
        if (!isPort(p.targetPortNumber())) {
          errors.add(FieldError.port(portField(i, ".targetPort"), p.targetPortNumber()));
        }
      } else if (p.targetPortName() != null) {
        portName(portField(i, ".targetPort"), p.targetPortName(), errors);
      }
    }
  }

  private static String portField(int port, String rest) {
    return "spec.ports[" + port + "]" + rest;
  }

  /** Every problem of an EndpointSlice; empty when an API server would have accepted it. */
  public static List<FieldError> endpointSlice(EndpointSlice slice) {
    List<FieldError> errors = new ArrayList<>();
    objectMeta(slice.metadata(), false, errors);
    String addressType = slice.addressType();
    if (addressType == null || addressType.isEmpty()) {
      errors.add(new FieldError("addressType", "Required value"));
    } else {
      oneOf("addressType", addressType, ADDRESS_TYPES, errors);
    }
    List<EndpointSlice.Endpoint> endpoints = slice.endpoints();
    if (endpoints.size() > 1000) {
      errors.add(new FieldError("endpoints", "Too many: " + endpoints.size() + ": must have at most 1000 items"));
    }
    // Every endpoint of every slice passes here: field paths are made only for an error.
    for (int i = 0; i < endpoints.size(); i++) {
      EndpointSlice.Endpoint ep = endpoints.get(i);
      if (ep == null) {
        errors.add(new FieldError(endpointField(i, ""), "Required value"));
        continue;
      }
      List<String> addresses = ep.addresses();
      if (addresses.isEmpty() || addresses.size() > 100) {
        errors.add(new FieldError(endpointField(i, ".addresses"), addresses.isEmpty() ? "Required value"
            : "Too many: " + addresses.size() + ": must have at most 100 items"));
      }
      for (int j = 0; j < addresses.size(); j++) {
        String a = addresses.get(j);
        if ("FQDN".equals(addressType)) {
          if (!NameFormats.isDns1123Subdomain(a)) {
            errors.add(FieldError.dns1123Subdomain(endpointField(i, ".addresses[" + j + "]"), a));
          }
        } else if ("IPv4".equals(addressType) || "IPv6".equals(addressType)) {
          byte[] parsed = IpAddresses.parse(a);
          if (parsed == null || (parsed.length == 4) != "IPv4".equals(addressType) || a.indexOf(':') >= 0 == "IPv4".equals(addressType)) {
            errors.add(new FieldError(endpointField(i, ".addresses[" + j + "]"), "Invalid value: " + FieldError.quote(a)
                + ": must be a valid " + addressType + " address"));
          }
        }
      }
      if (ep.hostname() != null && !NameFormats.isDns1123Label(ep.hostname())) {
        errors.add(FieldError.dns1123Label(endpointField(i, ".hostname"), ep.hostname()));
      }
      if (ep.nodeName() != null && !ep.nodeName().isEmpty() && !NameFormats.isDns1123Subdomain(ep.nodeName())) {
        errors.add(FieldError.dns1123Subdomain(endpointField(i, ".nodeName"), ep.nodeName()));
      }
    }
    List<EndpointSlice.Port> ports = slice.ports();
    if (ports.size() > 20000) {
      errors.add(new FieldError("ports", "Too many: " + ports.size() + ": must have at most 20000 items"));
    }
    boolean several = ports.size() > 1;
    Set<String> names = several ? new HashSet<>() : Set.of();
    for (int i = 0; i < ports.size(); i++) {
      EndpointSlice.Port p = ports.get(i);
      if (p == null) {
        errors.add(new FieldError("ports[" + i + "]", "Required value"));
        continue;
      }
      String name = p.name() == null ? "" : p.name();
      if (!name.isEmpty() && !NameFormats.isDns1123Label(name)) {
        errors.add(FieldError.dns1123Label("ports[" + i + "].name", name));
      }
      if (several && !names.add(name)) {
        errors.add(new FieldError("ports[" + i + "].name", "Duplicate value: " + FieldError.quote(name)));
      }
      if (p.protocol() != null && !p.protocol().isEmpty() && !PROTOCOLS.contains(p.protocol())) {
        errors.add(FieldError.unsupported("ports[" + i + "].protocol", p.protocol(), PROTOCOLS));
      }
      if (p.port() != null && !isPort(p.port())) {
        errors.add(FieldError.port("ports[" + i + "].port", p.port()));
      }
    }
    return errors;
  }

  /**
   * metadata: name (DNS-1035 label for Services as ValidateServiceName, DNS-1123 subdomain
   * otherwise), namespace (DNS-1123 label), label keys and values, annotation keys.
   */
  private static void objectMeta(ObjectMeta meta, boolean service, List<FieldError> errors) {
    if (meta == null) {
      errors.add(new FieldError("metadata", "Required value"));
      return;
    }
    String name = meta.name();
    if (name == null || name.isEmpty()) {
      errors.add(new FieldError("metadata.name", "Required value: name or generateName is required"));
    } else if (service) {
      if (!NameFormats.isDns1035Label(name)) {
        errors.add(new FieldError("metadata.name", "Invalid value: " + FieldError.quote(name) + ": a DNS-1035 label must consist"
            + " of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an"
            + " alphanumeric character, at most 63 characters"));
      }
    } else {
      dns1123Subdomain("metadata.name", name, errors);
    }
    if (!meta.namespace().isEmpty()) {
      dns1123Label("metadata.namespace", meta.namespace(), errors);
    }
    Map<String, String> labels = meta.labels();
    if (labels != null) {
      for (Map.Entry<String, String> e : labels.entrySet()) {
        qualifiedName("metadata.labels", e.getKey(), errors);
        String v = e.getValue() == null ? "" : e.getValue();
        if (!NameFormats.isLabelValue(v)) {
          errors.add(new FieldError("metadata.labels", "Invalid value: " + FieldError.quote(v) + ": a valid label must be an"
              + " empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an"
              + " alphanumeric character, at most 63 characters"));
        }
      }
    }
    for (String key : meta.annotationKeys()) {
      qualifiedName("metadata.annotations", key, errors);
    }
  }

  private static void qualifiedName(String field, String key, List<FieldError> errors) {
    String k = key == null ? "" : key;
    if (!NameFormats.isQualifiedName(k)) {
      errors.add(new FieldError(field, "Invalid value: " + FieldError.quote(k) + ": name part must consist of alphanumeric"
          + " characters, '-', '_' or '.', and must start and end with an alphanumeric character (at most 63), with an"
          + " optional DNS subdomain prefix and '/'"));
    }
  }

  private static void dns1123Label(String field, String value, List<FieldError> errors) {
    if (!NameFormats.isDns1123Label(value)) {
      errors.add(FieldError.dns1123Label(field, value));
    }
  }

  private static void dns1123Subdomain(String field, String value, List<FieldError> errors) {
    if (!NameFormats.isDns1123Subdomain(value)) {
      errors.add(FieldError.dns1123Subdomain(field, value));
    }
  }

  private static String endpointField(int endpoint, String rest) {
    return "endpoints[" + endpoint + "]" + rest;
  }

  private static void portName(String field, String value, List<FieldError> errors) {
    String v = value == null ? "" : value;
    if (!NameFormats.isPortName(v)) {
      errors.add(new FieldError(field, "Invalid value: " + FieldError.quote(v) + ": must be a port number 1-65535 or an IANA"
          + " service name (at most 15 lower case letters, digits or '-', with a letter)"));
    }
  }

  private static void port(String field, int value, List<FieldError> errors) {
    if (!isPort(value)) {
      errors.add(FieldError.port(field, value));
    }
  }

  private static boolean isPort(int value) {
    return value >= 1 && value <= 65535;
  }

  private static void ip(String field, String value, List<FieldError> errors) {
    if (IpAddresses.parse(value) == null) {
      errors.add(FieldError.ip(field, value));
    }
  }

  /** A value that may be left out (the API server defaults it) but, when given, must be one of these. */
  private static void oneOf(String field, String value, Set<String> allowed, List<FieldError> errors) {
    if (value != null && !value.isEmpty() && !allowed.contains(value)) {
      errors.add(FieldError.unsupported(field, value, allowed));
    }
  }

}
