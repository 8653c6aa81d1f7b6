package dev.kubeproxy.testutil;

import dev.kubeproxy.model.Endpoint;
import dev.kubeproxy.model.EndpointCategorizer;
import dev.kubeproxy.model.NamespacedName;
import dev.kubeproxy.model.ProxyState;
import dev.kubeproxy.model.ServicePort;
import dev.kubeproxy.model.ServicePortName;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The proxy model's records (service ports, endpoints, states) as the backend and explain tests build
 * them: one set of builders for the iptables, ipvs, nftables and explain tests.
 */
public final class ModelFixtures {
  /** The stickiness timeout a Service gets when it asks for ClientIP affinity without one (3 hours). */
  public static final int DEFAULT_AFFINITY_SECONDS = 10800;
  /** The healthCheckNodePort of an externalTrafficPolicy: Local Service when a test names none. */
  public static final int DEFAULT_HEALTH_CHECK_NODE_PORT = 32000;

  private ModelFixtures() {}

  public static ServicePortName spn(String ns, String name, String port, String protocol) {
    return new ServicePortName(new NamespacedName(ns, name), port, protocol);
  }

  /** A TCP service port name. */
  public static ServicePortName spn(String ns, String name, String port) {
    return spn(ns, name, port, "TCP");
  }

  /** A mutable ServicePort description; {@link #build} makes the record. */
  public static final class Svc {
    private final ServicePortName name;
    private final String clusterIP;
    private final int port;
    private int nodePort;
    private final List<String> externalIPs = new ArrayList<>();
    private final List<String> lbVIPs = new ArrayList<>();
    private final List<String> sourceRanges = new ArrayList<>();
    private boolean affinity;
    private int stickySeconds;
    private boolean etpLocal;
    private boolean itpLocal;
    private int healthCheckNodePort;
    private String hints = "";

    Svc(ServicePortName name, String clusterIP, int port) {
      this.name = name;
      this.clusterIP = clusterIP;
      this.port = port;
    }

    public Svc nodePort(int p) {
      nodePort = p;
      return this;
    }

    /** Adds external IPs. */
    public Svc externalIPs(String... ips) {
      return add(externalIPs, ips);
    }

    /** Adds load-balancer ingress IPs. */
    public Svc loadBalancer(String... ips) {
      return add(lbVIPs, ips);
    }

    /** Adds loadBalancerSourceRanges entries. */
    public Svc sourceRanges(String... cidrs) {
      return add(sourceRanges, cidrs);
    }

    private Svc add(List<String> list, String... values) {
      list.addAll(List.of(values));
      return this;
    }

    public Svc affinity(int seconds) {
      affinity = true;
      stickySeconds = seconds;
      return this;
    }

    /** ClientIP affinity with the default timeout. */
    public Svc affinity() {
      return affinity(DEFAULT_AFFINITY_SECONDS);
    }

    public Svc etpLocal(int hcPort) {
      etpLocal = true;
      healthCheckNodePort = hcPort;
      return this;
    }

    public Svc etpLocal() {
      return etpLocal(DEFAULT_HEALTH_CHECK_NODE_PORT);
    }

    public Svc itpLocal() {
      itpLocal = true;
      return this;
    }

    /** The topology hints annotation. */
    public Svc hints(String annotation) {
      hints = annotation;
      return this;
    }

    public ServicePort build() {
      return new ServicePort(name, clusterIP, port, name.protocol(), nodePort, externalIPs, lbVIPs, sourceRanges,
          affinity, stickySeconds, etpLocal, itpLocal, healthCheckNodePort, hints);
    }
  }

  public static Svc svc(ServicePortName name, String clusterIP, int port) {
    return new Svc(name, clusterIP, port);
  }

  public static Endpoint ready(String ip, int port, boolean local) {
    return new Endpoint(ip, port, local, true, true, false, null);
  }

  public static Endpoint terminating(String ip, int port, boolean local, boolean serving) {
    return new Endpoint(ip, port, local, false, serving, true, null);
  }

  /** A terminating endpoint that still serves. */
  public static Endpoint terminating(String ip, int port, boolean local) {
    return terminating(ip, port, local, true);
  }

  public static Endpoint hinted(String ip, int port, boolean local, String... zones) {
    return new Endpoint(ip, port, local, true, true, false, Set.of(zones));
  }

  /** Endpoints in the model's order (by identity). */
  public static List<Endpoint> byIdentity(Endpoint... eps) {
    List<Endpoint> list = new ArrayList<>(List.of(eps));
    list.sort(Comparator.comparing(Endpoint::endpoint));
    return List.copyOf(list);
  }

  /** A state: services with their endpoints, which services changed, the node's labels. */
  public static final class StateBuilder {
    private final Map<ServicePortName, ServicePort> services = new LinkedHashMap<>();
    private final Map<ServicePortName, List<Endpoint>> endpoints = new HashMap<>();
    private final Set<NamespacedName> changed = new HashSet<>();
    private Map<String, String> labels = Map.of();
    private EndpointCategorizer.TopologyGates gates = EndpointCategorizer.TopologyGates.DEFAULT;

    public StateBuilder add(Svc svc, Endpoint... eps) {
      ServicePort port = svc.build();
      services.put(port.name(), port);
      endpoints.put(port.name(), byIdentity(eps));
      return this;
    }

    public StateBuilder changed(ServicePortName name) {
      changed.add(name.service());
      return this;
    }

    public StateBuilder labels(Map<String, String> l) {
      labels = l;
      return this;
    }

    /** The topology gates the state's plans are decided with (both on unless set). */
    public StateBuilder gates(EndpointCategorizer.TopologyGates g) {
      gates = g;
      return this;
    }

    public ProxyState build() {
      return new ProxyState(Map.copyOf(services), Map.copyOf(endpoints), Set.copyOf(changed), labels, List.of(),
          Map.of(), null, gates, null);
    }
  }

  public static StateBuilder state() {
    return new StateBuilder();
  }
}
