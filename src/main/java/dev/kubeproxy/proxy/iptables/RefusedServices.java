package dev.kubeproxy.proxy.iptables;

import dev.kubeproxy.logging.Log;
import dev.kubeproxy.proxy.Endpoint;
import dev.kubeproxy.proxy.NamespacedName;
import dev.kubeproxy.proxy.ProxyState;
import dev.kubeproxy.proxy.ServicePort;
import dev.kubeproxy.proxy.ServicePortName;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * Services whose rules iptables-restore refused, left out of the state until they change, so that
 * one Service the kernel will not take never keeps every other one from being programmed. What
 * each looked like when refused (ports and endpoints) is kept to notice the change.
 */
final class RefusedServices {
  private record Snapshot(Map<ServicePortName, ServicePort> ports, Map<ServicePortName, List<Endpoint>> endpoints) {}

  private final Map<NamespacedName, Snapshot> refused = new HashMap<>();

  void add(ProxyState state, NamespacedName service) {
    refused.put(service, snapshot(state, service));
  }

  boolean isEmpty() {
    return refused.isEmpty();
  }

  /** The state without the refused Services that are unchanged; a changed one is tried again. */
  ProxyState filter(ProxyState state) {
    if (refused.isEmpty()) {
      return state;
    }
    for (Iterator<Map.Entry<NamespacedName, Snapshot>> it = refused.entrySet().iterator(); it.hasNext(); ) {
      Map.Entry<NamespacedName, Snapshot> e = it.next();
      if (!e.getValue().equals(snapshot(state, e.getKey()))) {
        Log.info("A Service whose rules iptables-restore refused has changed; trying its rules again",
            "service", e.getKey().toString());
        it.remove();
      }
    }
    if (refused.isEmpty()) {
      return state;
    }
    Map<ServicePortName, ServicePort> services = new HashMap<>(state.services());
    Map<ServicePortName, List<Endpoint>> endpoints = new HashMap<>(state.endpoints());
    services.keySet().removeIf(spn -> refused.containsKey(spn.service()));
    endpoints.keySet().removeIf(spn -> refused.containsKey(spn.service()));
    return new ProxyState(services, endpoints, state.changedServices(), state.nodeLabels(), state.serviceCIDRs(),
        state.triggerTimes());
  }

  private static Snapshot snapshot(ProxyState state, NamespacedName service) {
    Map<ServicePortName, ServicePort> ports = new HashMap<>();
    Map<ServicePortName, List<Endpoint>> endpoints = new HashMap<>();
    state.services().forEach((spn, port) -> {
      if (spn.service().equals(service)) {
        ports.put(spn, port);
        endpoints.put(spn, state.endpointsOf(spn));
      }
    });
    return new Snapshot(ports, endpoints);
  }
}
