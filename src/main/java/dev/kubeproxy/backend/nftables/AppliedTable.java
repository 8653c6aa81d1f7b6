package dev.kubeproxy.backend.nftables;

import dev.kubeproxy.backend.nftables.objects.Chain;
import dev.kubeproxy.backend.nftables.objects.Element;
import dev.kubeproxy.backend.nftables.objects.NftObject;
import dev.kubeproxy.backend.nftables.objects.NftSet;
import dev.kubeproxy.backend.nftables.objects.Rule;

import dev.kubeproxy.model.Endpoint;
import dev.kubeproxy.model.ServicePort;
import dev.kubeproxy.model.ServicePortName;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What the last syncs built into this family's table: each service port's objects with the inputs
 * they were computed from, the elements of the shared sets and maps counted per contributor, where
 * the endpoints sit in the endpoint-ranges maps, and the inputs of the fixed part. The builders
 * update it; the next sync reuses what did not change.
 */
final class AppliedTable {
  /** What the kernel holds for one service port, and the inputs it was computed from. */
  record Port(ServicePort svc, List<Endpoint> endpoints, ServicePortRules rules) {
    boolean sameInputs(ServicePort svc, List<Endpoint> eps) {
      return (this.svc == svc || this.svc.equals(svc)) && (endpoints == eps || endpoints.equals(eps));
    }
  }

  /** Read freely; written only through {@link #putPort}, {@link #removePort}, {@link #replacePorts} and {@link #clear}, which keep the counts below. */
  final Map<ServicePortName, Port> ports = new HashMap<>();
  /** The ports of {@link #ports} without a usable endpoint for internal / external traffic, counted as ports come and go. */
  private int noLocalInternal;
  private int noLocalExternal;
  final ElementIndex elements = new ElementIndex();
  final EndpointSlots slots = new EndpointSlots();
  final NumberTexts texts = new NumberTexts();
  /** Which protocols' NodePorts are rejected on loopback (the gate's configuration, not cleared). */
  final LocalhostRejects localhostRejects = new LocalhostRejects();
  /** The endpoint-ranges shards the kernel's table declares. */
  final Set<String> declaredShards = new HashSet<>();
  /** The NodePort addresses of the last full sync (the fixed part depends on them). */
  List<String> nodePortIPs;
  int fixedRuleCount;
  int serviceRuleCount;

  void clear() {
    ports.clear();
    noLocalInternal = 0;
    noLocalExternal = 0;
    elements.clear();
    declaredShards.clear();
  }

  int ruleCount() {
    return fixedRuleCount + serviceRuleCount;
  }

  void putPort(ServicePortName name, Port port) {
    count(ports.put(name, port), -1);
    count(port, 1);
  }

  void removePort(ServicePortName name) {
    count(ports.remove(name), -1);
  }

  /** The ports of a full sync instead of the ones before. */
  void replacePorts(Map<ServicePortName, Port> next) {
    ports.clear();
    noLocalInternal = 0;
    noLocalExternal = 0;
    next.forEach(this::putPort);
  }

  private void count(Port port, int sign) {
    if (port != null) {
      noLocalInternal += port.rules().noLocalInternal() ? sign : 0;
      noLocalExternal += port.rules().noLocalExternal() ? sign : 0;
    }
  }

  /** Service ports that have endpoints, but none usable for internal traffic. */
  int noLocalInternal() {
    return noLocalInternal;
  }

  /** Service ports that have endpoints, but none usable for external traffic. */
  int noLocalExternal() {
    return noLocalExternal;
  }

  /**
   * The service port whose objects include this one (a chain, set, rule or element of a refused
   * transaction), or null when it belongs to none (the fixed part, a leftover). Only asked after
   * the kernel refused a transaction, so a scan is cheap enough.
   */
  ServicePortName ownerOf(NftObject o) {
    for (Map.Entry<ServicePortName, Port> e : ports.entrySet()) {
      ServicePortRules r = e.getValue().rules();
      boolean owns = o instanceof Chain c ? r.chains().containsKey(c.name())
          : o instanceof Rule rule ? r.chains().containsKey(rule.chain())
          : o instanceof NftSet s ? r.affinitySets().contains(s)
          : o instanceof Element el && r.elements().contains(el);
      if (owns) {
        return e.getKey();
      }
    }
    return null;
  }

  /** Service ports in the order of their names, so the transaction text is reproducible. */
  static List<ServicePortName> sortedNames(Collection<ServicePortName> names) {
    List<Map.Entry<String, ServicePortName>> keyed = new ArrayList<>(names.size());
    for (ServicePortName n : names) {
      keyed.add(Map.entry(n.toString() + '\u0000' + n.protocol(), n));
    }
    keyed.sort(Map.Entry.comparingByKey());
    List<ServicePortName> out = new ArrayList<>(keyed.size());
    for (Map.Entry<String, ServicePortName> e : keyed) {
      out.add(e.getValue());
    }
    return out;
  }

  /** The elements reordered so that those of one container are adjacent (first-seen order kept). */
  static List<Element> groupedByContainer(List<Element> list) {
    Map<String, List<Element>> groups = new LinkedHashMap<>();
    for (Element e : list) {
      groups.computeIfAbsent(e.container(), k -> new ArrayList<>()).add(e);
    }
    List<Element> out = new ArrayList<>(list.size());
    groups.values().forEach(out::addAll);
    return out;
  }
}
