package dev.kubeproxy.runtime;

import dev.kubeproxy.logging.Log;
import dev.kubeproxy.messages.ClusterEvent;
import dev.kubeproxy.messages.InvalidObjects;
import dev.kubeproxy.model.objects.EndpointSlice;
import dev.kubeproxy.model.objects.Node;
import dev.kubeproxy.model.objects.Service;
import dev.kubeproxy.model.objects.ServiceCidr;
import dev.kubeproxy.net.IpFamily;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The meta-proxier's fan-out (pkg/proxy/metaproxier/meta_proxier.go): each cluster event goes to
 * the families it concerns (an EndpointSlice only to the family of its address type), and once
 * every initial list is in ({@link InitialLists}) each family starts programming. Each event
 * carries the version it replaces, so no copy of the objects is kept here; only the ServiceCIDRs
 * are, since a family gets all of them at once.
 */
final class ClusterEventRouter {
  private final String nodeName;
  private final InvalidObjects invalidObjects;
  /** The proxier verticle's families: filled once the backends are built; events before that wait. */
  private final List<FamilyProxier> families;
  private final InitialLists initialLists = new InitialLists();
  private final Map<String, List<String>> serviceCIDRs = new HashMap<>();

  /**
   * @param invalidObjects records the Services and EndpointSlices that failed validation, for /debug/services
   */
  ClusterEventRouter(String nodeName, InvalidObjects invalidObjects, List<FamilyProxier> families) {
    this.nodeName = nodeName;
    this.invalidObjects = invalidObjects;
    this.families = families;
  }

  /** Every initial list has been delivered: rules are being programmed. */
  boolean initialized() {
    return initialLists.complete();
  }

  /** The event carries the previous version (null for an add) and the new one (null for a delete). */
  void onService(ClusterEvent<?> event) {
    invalidObjects.onClusterEvent("Service", event);
    if (!(event.latest() instanceof Service)) {
      Log.error("Ignoring a Service event without a Service", "key", event.key());
      return;
    }
    Service old = (Service) event.old();
    Service current = (Service) event.current();
    for (FamilyProxier f : families) {
      f.onServiceUpdate(old, current);
    }
  }

  /** A slice whose address type changed leaves its old family and joins the new one. */
  void onEndpointSlice(ClusterEvent<?> event) {
    invalidObjects.onClusterEvent("EndpointSlice", event);
    if (!(event.latest() instanceof EndpointSlice)) {
      Log.error("Ignoring an EndpointSlice event without an EndpointSlice", "key", event.key());
      return;
    }
    EndpointSlice old = (EndpointSlice) event.old();
    EndpointSlice current = (EndpointSlice) event.current();
    if (current == null) {
      routeSlice(old, true);
      return;
    }
    if (old != null && !Objects.equals(old.addressType(), current.addressType())) {
      routeSlice(old, true);
    }
    routeSlice(current, false);
  }

  private void routeSlice(EndpointSlice slice, boolean remove) {
    String type = slice.addressType();
    if (!IpFamily.IPv4.name().equals(type) && !IpFamily.IPv6.name().equals(type)) {
      Log.v(2).info("Ignoring an EndpointSlice with an unsupported address type", "endpointSlice",
          slice.metadata().key(), "addressType", type);
      return;
    }
    for (FamilyProxier f : families) {
      if (f.family().name().equals(type)) {
        f.onEndpointSliceUpdate(slice, remove);
      }
    }
  }

  /** The own Node's labels (none once it is deleted); other nodes' events are refused. */
  void onNode(ClusterEvent<?> event) {
    if (!(event.latest() instanceof Node node)) {
      Log.error("Ignoring a Node event without a Node", "key", event.key());
      return;
    }
    String name = node.metadata().name();
    if (!Objects.equals(name, nodeName)) {
      Log.error("Received a watch event for a node that doesn't match the current node", "eventNode", name,
          "currentNode", nodeName);
      return;
    }
    Map<String, String> labels = event.type() == ClusterEvent.Type.DELETE ? null : node.metadata().labels();
    for (FamilyProxier f : families) {
      f.onNodeLabels(labels);
    }
  }

  /** Every family gets the CIDRs of all ServiceCIDRs, in the order of their names. */
  void onServiceCIDR(ClusterEvent<?> event) {
    if (event.type() == ClusterEvent.Type.DELETE) {
      serviceCIDRs.remove(event.key());
    } else {
      if (!(event.latest() instanceof ServiceCidr cidr)) {
        Log.error("Ignoring a ServiceCIDR event without a ServiceCIDR", "key", event.key());
        return;
      }
      serviceCIDRs.put(event.key(), cidr.cidrs());
    }
    List<String> all = new ArrayList<>();
    serviceCIDRs.keySet().stream().sorted().forEach(k -> all.addAll(serviceCIDRs.get(k)));
    for (FamilyProxier f : families) {
      f.onServiceCIDRs(all);
    }
  }

  /** One kind's initial list is in; the last one lets every family program its rules. */
  void onSynced(ClusterEvent.Kind kind) {
    if (initialLists.delivered(kind)) {
      Log.info("Services, EndpointSlices, the Node and ServiceCIDRs received; programming rules");
      for (FamilyProxier f : families) {
        f.initialListsDelivered();
      }
    }
  }
}
