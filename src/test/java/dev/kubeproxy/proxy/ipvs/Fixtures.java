package dev.kubeproxy.proxy.ipvs;

import dev.kubeproxy.proxy.Endpoint;
import dev.kubeproxy.proxy.IpFamily;
import dev.kubeproxy.proxy.LocalTrafficDetector;
import dev.kubeproxy.proxy.NamespacedName;
import dev.kubeproxy.proxy.ProxyState;
import dev.kubeproxy.proxy.ServicePort;
import dev.kubeproxy.proxy.ServicePortName;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Service ports, endpoints, states and ruleset options for the ipvs tests. */
final class Fixtures {
  private Fixtures() {}

  static ServicePortName spn(String ns, String name, String port, String protocol) {
    return new ServicePortName(new NamespacedName(ns, name), port, protocol);
  }

  /** A mutable ServicePort description; build() makes the record. */
  static final class Svc {
    final ServicePortName name;
    final String clusterIP;
    final int port;
    int nodePort;
    final List<String> externalIPs = new ArrayList<>();
    final List<String> lbVIPs = new ArrayList<>();
    final List<String> sourceRanges = new ArrayList<>();
    boolean affinity;
    int sticky;
    boolean etpLocal;
    boolean itpLocal;
    int hcNodePort;

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

    ServicePort build() {
      return new ServicePort(name, clusterIP, port, name.protocol(), nodePort, externalIPs, lbVIPs, sourceRanges,
          affinity, sticky, etpLocal, itpLocal, hcNodePort, "");
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

  /** A state: services with their endpoints. */
  static final class StateBuilder {
    final Map<ServicePortName, ServicePort> services = new LinkedHashMap<>();
    final Map<ServicePortName, List<Endpoint>> endpoints = new HashMap<>();

    StateBuilder add(Svc svc, Endpoint... eps) {
      ServicePort port = svc.build();
      services.put(port.name(), port);
      List<Endpoint> list = new ArrayList<>(List.of(eps));
      list.sort(Comparator.comparing(Endpoint::endpoint));
      endpoints.put(port.name(), list);
      return this;
    }

    ProxyState build() {
      return new ProxyState(Map.copyOf(services), Map.copyOf(endpoints), Set.of(), Map.of(), List.of(), Map.of());
    }
  }

  static StateBuilder state() {
    return new StateBuilder();
  }

  /** IPv4, rr, no local detection, node 192.168.0.2 (also the only NodePort address). */
  static IpvsRulesetOptions options() {
    return new IpvsRulesetOptions(IpFamily.IPv4, "rr", false, "0x00004000", LocalTrafficDetector.noop(), true,
        "192.168.0.2", List.of("192.168.0.2"), Set.of("192.168.0.2"));
  }

  static IpvsRulesetOptions ipv6Options() {
    return new IpvsRulesetOptions(IpFamily.IPv6, "rr", false, "0x00004000", LocalTrafficDetector.noop(), true,
        "fd00::2", List.of("fd00::2"), Set.of("fd00::2"));
  }

  static IpvsRulesetOptions withScheduler(IpvsRulesetOptions o, String scheduler) {
    return new IpvsRulesetOptions(o.family(), scheduler, o.masqueradeAll(), o.masqueradeMark(), o.localDetector(),
        o.randomFully(), o.nodeIP(), o.nodePortIPs(), o.nodeAddresses());
  }

  static IpvsRulesetOptions withDetector(IpvsRulesetOptions o, LocalTrafficDetector detector) {
    return new IpvsRulesetOptions(o.family(), o.scheduler(), o.masqueradeAll(), o.masqueradeMark(), detector,
        o.randomFully(), o.nodeIP(), o.nodePortIPs(), o.nodeAddresses());
  }
}
