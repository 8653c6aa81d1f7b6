package dev.kubeproxy.model.objects;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Tests: builds a {@link Service} field by field; {@link #from} edits a copy of one. */
public final class ServiceBuilder {
  private String namespace;
  private String name;
  private String resourceVersion;
  private Map<String, String> labels = new HashMap<>();
  private Map<String, String> annotations = new HashMap<>();
  private String type;
  private String clusterIP;
  private List<String> clusterIPs = List.of();
  private List<String> ipFamilies = List.of();
  private String ipFamilyPolicy;
  private List<Service.Port> ports = new ArrayList<>();
  private List<String> externalIPs = List.of();
  private List<String> loadBalancerSourceRanges = List.of();
  private String sessionAffinity;
  private Integer clientIPTimeoutSeconds;
  private String externalTrafficPolicy;
  private String internalTrafficPolicy;
  private Integer healthCheckNodePort;
  private String trafficDistribution;
  private List<Service.Ingress> ingress = List.of();

  public ServiceBuilder(String namespace, String name) {
    this.namespace = namespace;
    this.name = name;
  }

  public static ServiceBuilder from(Service s) {
    ServiceBuilder b = new ServiceBuilder(s.metadata().namespace(), s.metadata().name());
    b.resourceVersion = s.metadata().resourceVersion();
    b.labels = new HashMap<>(s.metadata().labels());
    b.annotations = new HashMap<>(s.metadata().annotations());
    b.type = s.type();
    b.clusterIP = s.clusterIP();
    b.clusterIPs = s.clusterIPs();
    b.ipFamilies = s.ipFamilies();
    b.ipFamilyPolicy = s.ipFamilyPolicy();
    b.ports = new ArrayList<>(s.ports());
    b.externalIPs = s.externalIPs();
    b.loadBalancerSourceRanges = s.loadBalancerSourceRanges();
    b.sessionAffinity = s.sessionAffinity();
    b.clientIPTimeoutSeconds = s.clientIPTimeoutSeconds();
    b.externalTrafficPolicy = s.externalTrafficPolicy();
    b.internalTrafficPolicy = s.internalTrafficPolicy();
    b.healthCheckNodePort = s.healthCheckNodePort();
    b.trafficDistribution = s.trafficDistribution();
    b.ingress = s.ingress();
    return b;
  }

  public static Service.Port port(String name, Integer port, String protocol) {
    return new Service.Port(name, protocol, port, null, null, null);
  }

  public static Service.Port nodePort(String name, Integer port, String protocol, Integer nodePort) {
    return new Service.Port(name, protocol, port, nodePort, null, null);
  }

  public ServiceBuilder name(String v) { name = v; return this; }
  public ServiceBuilder namespace(String v) { namespace = v; return this; }
  public ServiceBuilder resourceVersion(String v) { resourceVersion = v; return this; }
  public ServiceBuilder labels(Map<String, String> v) { labels = v == null ? new HashMap<>() : v; return this; }
  public ServiceBuilder annotations(Map<String, String> v) { annotations = v == null ? new HashMap<>() : v; return this; }
  public ServiceBuilder type(String v) { type = v; return this; }
  public ServiceBuilder clusterIP(String v) { clusterIP = v; return this; }
  public ServiceBuilder clusterIPs(List<String> v) { clusterIPs = orEmpty(v); return this; }
  public ServiceBuilder ipFamilies(List<String> v) { ipFamilies = orEmpty(v); return this; }
  public ServiceBuilder ipFamilyPolicy(String v) { ipFamilyPolicy = v; return this; }
  public ServiceBuilder ports(List<Service.Port> v) { ports = new ArrayList<>(orEmpty(v)); return this; }
  public ServiceBuilder addPort(Service.Port v) { ports.add(v); return this; }
  public ServiceBuilder externalIPs(List<String> v) { externalIPs = orEmpty(v); return this; }
  public ServiceBuilder loadBalancerSourceRanges(List<String> v) { loadBalancerSourceRanges = orEmpty(v); return this; }
  public ServiceBuilder sessionAffinity(String v) { sessionAffinity = v; return this; }
  public ServiceBuilder clientIPTimeoutSeconds(Integer v) { clientIPTimeoutSeconds = v; return this; }
  public ServiceBuilder externalTrafficPolicy(String v) { externalTrafficPolicy = v; return this; }
  public ServiceBuilder internalTrafficPolicy(String v) { internalTrafficPolicy = v; return this; }
  public ServiceBuilder healthCheckNodePort(Integer v) { healthCheckNodePort = v; return this; }
  public ServiceBuilder trafficDistribution(String v) { trafficDistribution = v; return this; }
  public ServiceBuilder ingress(List<Service.Ingress> v) { ingress = orEmpty(v); return this; }

  public Service build() {
    return new Service(new ObjectMeta(namespace, name, resourceVersion, labels, annotations, null, null), type,
        clusterIP, clusterIPs, ipFamilies, ipFamilyPolicy, ports, externalIPs, loadBalancerSourceRanges,
        sessionAffinity, clientIPTimeoutSeconds, externalTrafficPolicy, internalTrafficPolicy, healthCheckNodePort,
        trafficDistribution, ingress);
  }

  private static <T> List<T> orEmpty(List<T> v) {
    return v == null ? List.of() : v;
  }
}
