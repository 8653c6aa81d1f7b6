package dev.kubeproxy.model;

import dev.kubeproxy.logging.Log;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * Service ports whose rules the kernel refused, left out of the state a backend programs until
 * their inputs (the port and its endpoints) change, so that one Service the kernel will not take
 * never keeps every other one from being programmed. Each is handed out once for its event.
 * Not thread-safe: owned by one backend, used under its lock.
 */
public final class RefusedServicePorts {
  private record Inputs(ServicePort port, List<Endpoint> endpoints) {}

  private final String backend;
  private final Map<ServicePortName, Inputs> refused = new HashMap<>();
  private final List<ServicePortName> unreported = new ArrayList<>();

  /** @param backend the backend's name for the log lines ("iptables-restore", "nftables") */
  public RefusedServicePorts(String backend) {
    this.backend = backend;
  }

  /** Leaves the port out, as it is in this state, until it changes. */
  public void add(ProxyState state, ServicePortName port) {
    refused.put(port, new Inputs(state.services().get(port), state.endpointsOf(port)));
    unreported.add(port);
  }

  /** The state without the refused ports that are unchanged; a changed or deleted one is tried again. */
  public ProxyState filter(ProxyState state) {
    for (Iterator<Map.Entry<ServicePortName, Inputs>> it = refused.entrySet().iterator(); it.hasNext(); ) {
      Map.Entry<ServicePortName, Inputs> r = it.next();
      Inputs now = new Inputs(state.services().get(r.getKey()), state.endpointsOf(r.getKey()));
      if (!r.getValue().equals(now)) {
        Log.info("A service port whose rules the kernel refused has changed; trying it again", "backend", backend,
            "servicePort", r.getKey().toString());
        it.remove();
      }
    }
    if (refused.isEmpty()) {
      return state;
    }
    Map<ServicePortName, ServicePort> services = new HashMap<>(state.services());
    Map<ServicePortName, List<Endpoint>> endpoints = new HashMap<>(state.endpoints());
    services.keySet().removeAll(refused.keySet());
    endpoints.keySet().removeAll(refused.keySet());
    return new ProxyState(Map.copyOf(services), Map.copyOf(endpoints), state.changedServices(), state.nodeLabels(),
        state.serviceCIDRs(), state.triggerTimes(), state.fullSyncReason());
  }

  /** The ports refused since the last call, each once. */
  public List<ServicePortName> takeUnreported() {
    List<ServicePortName> out = List.copyOf(unreported);
    unreported.clear();
    return out;
  }
}
