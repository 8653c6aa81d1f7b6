package dev.kubeproxy.proxy.iptables;

import dev.kubeproxy.proxy.Endpoint;
import dev.kubeproxy.proxy.IpFamily;
import dev.kubeproxy.proxy.LocalTrafficDetector;
import dev.kubeproxy.proxy.NamespacedName;
import dev.kubeproxy.proxy.ProxierSettings;
import dev.kubeproxy.proxy.ProxyState;
import dev.kubeproxy.proxy.ServicePort;
import dev.kubeproxy.proxy.ServicePortName;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Builders for service ports, endpoints, states and settings in tests. */
final class Fixtures {
  private Fixtures() {}

  static ServicePortName spn(String ns, String name, String port, String protocol) {
    return new ServicePortName(new NamespacedName(ns, name), port, protocol);
  }

  /** A mutable ServicePort description; build() makes the record. */
  static final class Svc {
    ServicePortName name;
    String clusterIP;
    int port;
    int nodePort;
    List<String> externalIPs = new ArrayList<>();
    List<String> lbVIPs = new ArrayList<>();
    List<String> sourceRanges = new ArrayList<>();
    boolean affinity;
    int sticky;
    boolean etpLocal;
    boolean itpLocal;
    int hcNodePort;
    String hints = "";

    Svc(ServicePortName name, String clusterIP, int port) {
      this.name = name;
      this.clusterIP = clusterIP;
      this.port = port;
    }

    Svc nodePort(int p) {
      nodePort = p;
      return this;
    }

    Svc externalIP(String ip) {
      externalIPs.add(ip);
      return this;
    }

    Svc lb(String ip) {
      lbVIPs.add(ip);
      return this;
    }

    Svc sourceRange(String cidr) {
      sourceRanges.add(cidr);
      return this;
    }

    Svc affinity(int seconds) {
      affinity = true;
      sticky = seconds;
      return this;
    }

    Svc etpLocal(int hcPort) {
      etpLocal = true;
      hcNodePort = hcPort;
      return this;
    }

    Svc itpLocal() {
      itpLocal = true;
      return this;
    }

    Svc hints(String annotation) {
      hints = annotation;
      return this;
    }

    ServicePort build() {
      return new ServicePort(name, clusterIP, port, name.protocol(), nodePort, externalIPs, lbVIPs, sourceRanges,
          affinity, sticky, etpLocal, itpLocal, hcNodePort, hints);
    }
  }

  static Svc svc(ServicePortName name, String clusterIP, int port) {
    return new Svc(name, clusterIP, port);
  }

  static Endpoint ready(String ip, int port, boolean local) {
    return new Endpoint(ip, port, local, true, true, false, null);
  }

  static Endpoint terminating(String ip, int port, boolean local, boolean serving) {
    return new Endpoint(ip, port, local, false, serving, true, null);
  }

  static Endpoint hinted(String ip, int port, boolean local, String... zones) {
    return new Endpoint(ip, port, local, true, true, false, Set.of(zones));
  }

  /** A state builder: services with their endpoints, which services changed, node labels. */
  static final class StateBuilder {
    final Map<ServicePortName, ServicePort> services = new LinkedHashMap<>();
    final Map<ServicePortName, List<Endpoint>> endpoints = new HashMap<>();
    final Set<NamespacedName> changed = new HashSet<>();
    Map<String, String> labels = Map.of();

    StateBuilder add(Svc svc, Endpoint... eps) {
      ServicePort port = svc.build();
      services.put(port.name(), port);
      List<Endpoint> list = new ArrayList<>(List.of(eps));
      list.sort(Comparator.comparing(Endpoint::endpoint));
      endpoints.put(port.name(), list);
      return this;
    }

    StateBuilder changed(ServicePortName name) {
      changed.add(name.service());
      return this;
    }

    StateBuilder labels(Map<String, String> l) {
      labels = l;
      return this;
    }

    ProxyState build() {
      return new ProxyState(Map.copyOf(services), Map.copyOf(endpoints), Set.copyOf(changed), labels, List.of(),
          Map.of());
    }
  }

  static StateBuilder state() {
    return new StateBuilder();
  }

  static ProxierSettings settings(IpFamily family, List<String> nodePortAddresses, LocalTrafficDetector detector,
      boolean masqueradeAll, boolean localhostNodePorts, PrintStream dryRun) {
    List<String> nodeIPs = family == IpFamily.IPv4 ? List.of("192.168.200.10") : List.of("fd00:192:168::10");
    return new ProxierSettings(family, "node-a", nodeIPs, nodePortAddresses, masqueradeAll, 14,
        localhostNodePorts, detector, Duration.ofHours(1), Duration.ofSeconds(1), dryRun);
  }

  static RulesetOptions options(IpFamily family, LocalTrafficDetector detector) {
    return new RulesetOptions(family, "0x00004000", false, family == IpFamily.IPv4, detector, true, false, true,
        List.of(), family == IpFamily.IPv4 ? List.of("192.168.200.10") : List.of("fd00:192:168::10"));
  }

  static LocalTrafficDetector clusterCidr(String cidr) {
    return new LocalTrafficDetector("ClusterCIDR", cidr);
  }
}
