package dev.kubeproxy.model;

import dev.kubeproxy.net.IpFamily;
import dev.kubeproxy.runtime.FamilyProxier;

import dev.kubeproxy.logging.Log;
import dev.kubeproxy.net.IpAddresses;
import dev.kubeproxy.metrics.ProxyMetrics;
import dev.kubeproxy.model.objects.EndpointSlice;
import java.time.Clock;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.BiConsumer;

/**
 * The EndpointSlice cache of one family (pkg/proxy/endpointschangetracker.go
 * EndpointsChangeTracker): the slices applied at the last sync and the pending ones, per Service.
 * Only what the model uses is kept from a slice, so a change elsewhere in the object (targetRef,
 * labels, endpoint order) is no change. Not thread-safe: owned by its {@link FamilyProxier}.
 */
public final class EndpointsChangeTracker {
  static final String SERVICE_NAME_LABEL = "kubernetes.io/service-name";
  static final String TRIGGER_TIME_ANNOTATION = "endpoints.kubernetes.io/last-change-trigger-time";
  /** Go's zero time, which the annotation may carry and which means "unset". */
  private static final Instant GO_ZERO_TIME = Instant.parse("0001-01-01T00:00:00Z");

  /**
   * What is kept of one slice; a removal has no endpoints and the remove flag. The ports and
   * endpoints are the decoded slice's own (which its source keeps anyway), in port and address
   * order: no copy per slice or endpoint. Compared with {@link #sameSlice}, which sees only what
   * the model reads of them.
   */
  record SliceData(List<EndpointSlice.Port> ports, List<EndpointSlice.Endpoint> endpoints, boolean remove) {}

  /** One Service's endpoints before and after applying its pending slices. */
  record ServiceChange(Map<ServicePortName, List<Endpoint>> previous, Map<ServicePortName, List<Endpoint>> current) {}

  /** Everything a sync takes out of the tracker. */
  record Checkout(Map<NamespacedName, ServiceChange> changes, Map<NamespacedName, List<Instant>> triggerTimes) {}

  private final IpFamily family;
  private final String nodeName;
  private final boolean topologyAwareHintsGate;
  private final boolean preferSameTrafficDistributionGate;
  private final ProxyMetrics metrics;
  private final Instant startTime;
  private final BiConsumer<NamespacedName, String> incorrectIpVersion;
  private final Map<NamespacedName, Map<String, SliceData>> applied = new HashMap<>();
  private final Map<NamespacedName, Map<String, SliceData>> pending = new LinkedHashMap<>();
  private final Map<NamespacedName, List<Instant>> triggerTimes = new HashMap<>();
  /** The endpoints computed from the applied slices at the last checkout, per service. */
  private final Map<NamespacedName, Map<ServicePortName, List<Endpoint>>> computed = new HashMap<>();
  private int pendingCount;

  /**
   * @param nodeName           endpoints on this node are local
   * @param incorrectIpVersion told (service, endpoint IP) about endpoints of the wrong family,
   *                           for the KubeProxyIncorrectIPVersion event
   */
  public EndpointsChangeTracker(
      IpFamily family, String nodeName, boolean topologyAwareHintsGate, ProxyMetrics metrics, Clock clock,
      BiConsumer<NamespacedName, String> incorrectIpVersion) {
    this(family, nodeName, topologyAwareHintsGate, true, metrics, clock, incorrectIpVersion);
  }

  /** @param preferSameTrafficDistributionGate read hints.forNodes (PreferSameNode, upstream 1.33+) */
  public EndpointsChangeTracker(
      IpFamily family, String nodeName, boolean topologyAwareHintsGate, boolean preferSameTrafficDistributionGate,
      ProxyMetrics metrics, Clock clock, BiConsumer<NamespacedName, String> incorrectIpVersion) {
    this.family = family;
    this.nodeName = nodeName == null ? "" : nodeName;
    this.topologyAwareHintsGate = topologyAwareHintsGate;
    this.preferSameTrafficDistributionGate = preferSameTrafficDistributionGate;
    this.metrics = metrics;
    this.startTime = clock.instant();
    this.incorrectIpVersion = incorrectIpVersion;
  }

  public IpFamily family() {
    return family;
  }

  /**
   * Records a slice add/update (remove false) or delete (remove true).
   *
   * @return whether this call changed the pending state
   */
  public boolean update(EndpointSlice slice, boolean remove) {
    if (slice == null || !family.name().equals(slice.addressType())) {
      return false;
    }
    String namespace = slice.metadata().namespace();
    String sliceName = slice.metadata().name();
    String serviceName = slice.metadata().labels().get(SERVICE_NAME_LABEL);
    if (namespace.isEmpty() || sliceName.isEmpty()
        || serviceName == null || serviceName.isEmpty()) {
      Log.error("Error getting endpoint slice cache keys: an EndpointSlice needs a namespace, a name and the "
          + "service-name label; ignoring it", "endpointSlice", namespace + "/" + sliceName,
          "label", SERVICE_NAME_LABEL);
      return false;
    }
    metrics.incEndpointChanges();
    NamespacedName service = new NamespacedName(namespace, serviceName);
    SliceData data = sliceData(slice, remove);

    Map<String, SliceData> pendingOfService = pending.get(service);
    SliceData pendingData = pendingOfService == null ? null : pendingOfService.get(sliceName);
    boolean changed;
    if (pendingData != null) {
      changed = !sameSlice(pendingData, data);
    } else {
      Map<String, SliceData> appliedOfService = applied.get(service);
      SliceData appliedData = appliedOfService == null ? null : appliedOfService.get(sliceName);
      changed = appliedData != null ? !sameSlice(appliedData, data) : !remove;
    }
    if (!changed) {
      return false;
    }
    pending.computeIfAbsent(service, k -> new HashMap<>()).put(sliceName, data);
    pendingCount++;
    metrics.setEndpointChangesPending(pendingCount);
    if (remove) {
      triggerTimes.remove(service);
    } else {
      Instant t = triggerTime(slice);
      if (t != null && t.isAfter(startTime)) {
        triggerTimes.computeIfAbsent(service, k -> new ArrayList<>()).add(t);
      }
    }
    return true;
  }

  private Instant triggerTime(EndpointSlice slice) {
    String value = slice.metadata().annotations().get(TRIGGER_TIME_ANNOTATION);
    if (value == null || value.isEmpty()) {
      return null;
    }
    try {
      Instant t = OffsetDateTime.parse(value).toInstant();
      return t.equals(GO_ZERO_TIME) ? null : t;
    } catch (DateTimeParseException e) {
      Log.error("Error while parsing EndpointsLastChangeTriggerTimeAnnotation", e, "value", value,
          "endpointSlice", slice.metadata().key());
      return null;
    }
  }

  /** The slice's own ports (immutable) when already in port order, the usual case, else a sorted copy. */
  private static List<EndpointSlice.Port> byPortNumber(List<EndpointSlice.Port> ports) {
    Comparator<EndpointSlice.Port> order = Comparator.comparingInt(p -> p.port() == null ? 0 : p.port());
    for (int i = 1; i < ports.size(); i++) {
      if (order.compare(ports.get(i - 1), ports.get(i)) > 0) {
        List<EndpointSlice.Port> sorted = new ArrayList<>(ports);
        sorted.sort(order);
        return List.copyOf(sorted);
      }
    }
    return ports;
  }

  private SliceData sliceData(EndpointSlice slice, boolean remove) {
    List<EndpointSlice.Port> ports = byPortNumber(slice.ports());
    if (remove) {
      return new SliceData(ports, List.of(), true);
    }
    List<EndpointSlice.Endpoint> endpoints = slice.endpoints();
    if (!sorted(endpoints)) {
      List<EndpointSlice.Endpoint> copy = new ArrayList<>(endpoints);
      copy.sort(Comparator.comparing(EndpointsChangeTracker::sortKey));
      endpoints = List.copyOf(copy);
    }
    return new SliceData(List.copyOf(ports), endpoints, false);
  }

  private static String sortKey(EndpointSlice.Endpoint e) {
    return e.addresses().size() == 1 ? e.addresses().get(0) : String.join(",", e.addresses());
  }

  private static boolean sorted(List<EndpointSlice.Endpoint> endpoints) {
    for (int i = 1; i < endpoints.size(); i++) {
      if (sortKey(endpoints.get(i - 1)).compareTo(sortKey(endpoints.get(i))) > 0) {
        return false;
      }
    }
    return true;
  }

  /** Whether two versions of a slice give the model the same ports and endpoints. */
  private boolean sameSlice(SliceData a, SliceData b) {
    if (a.remove() != b.remove() || !a.ports().equals(b.ports()) || a.endpoints().size() != b.endpoints().size()) {
      return false;
    }
    for (int i = 0; i < a.endpoints().size(); i++) {
      EndpointSlice.Endpoint x = a.endpoints().get(i);
      EndpointSlice.Endpoint y = b.endpoints().get(i);
      if (x != y && !(x.addresses().equals(y.addresses()) && ready(x) == ready(y) && serving(x) == serving(y)
          && terminating(x) == terminating(y) && Objects.equals(x.nodeName(), y.nodeName())
          && Objects.equals(x.zone(), y.zone()) && Objects.equals(zoneHints(x), zoneHints(y))
          && nodeHint(x) == nodeHint(y))) {
        return false;
      }
    }
    return true;
  }

  private static boolean ready(EndpointSlice.Endpoint ep) {
    return ep.ready() == null || ep.ready();
  }

  private static boolean serving(EndpointSlice.Endpoint ep) {
    return ep.serving() == null || ep.serving();
  }

  private static boolean terminating(EndpointSlice.Endpoint ep) {
    return Boolean.TRUE.equals(ep.terminating());
  }

  /** hints.forZones as a set, or null without hints or with the gate off. */
  private Set<String> zoneHints(EndpointSlice.Endpoint ep) {
    if (!topologyAwareHintsGate || ep.zoneHints().isEmpty()) {
      return null;
    }
    return Collections.unmodifiableSet(new TreeSet<>(ep.zoneHints()));
  }

  /** hints.forNodes relative to this node; NONE without such hints or with the gate off. */
  private Endpoint.NodeHint nodeHint(EndpointSlice.Endpoint ep) {
    if (!preferSameTrafficDistributionGate || ep.nodeHints().isEmpty()) {
      return Endpoint.NodeHint.NONE;
    }
    return ep.nodeHints().contains(nodeName) ? Endpoint.NodeHint.THIS_NODE : Endpoint.NodeHint.OTHER_NODES;
  }

  public int pendingCount() {
    return pendingCount;
  }

  /** The pending slices applied: each changed service's slices, in name order. */
  private record Taken(Map<NamespacedName, Map<String, SliceData>> slices) {}

  /**
   * Applies the pending slices and hands over each changed Service's old and new endpoints, with
   * the trigger times recorded since the previous checkout.
   */
  Checkout checkout() {
    Map<NamespacedName, List<Instant>> times = new HashMap<>();
    triggerTimes.forEach((k, v) -> times.put(k, List.copyOf(v)));
    triggerTimes.clear();
    return compute(take(), times);
  }

  /** Applies the pending slices and clears them. */
  private Taken take() {
    Map<NamespacedName, Map<String, SliceData>> taken = new HashMap<>();
    for (Map.Entry<NamespacedName, Map<String, SliceData>> e : pending.entrySet()) {
      NamespacedName service = e.getKey();
      // Slices are read in name order so that the dedupe winner does not depend on hashing.
      TreeMap<String, SliceData> slices = new TreeMap<>(applied.getOrDefault(service, Map.of()));
      for (Map.Entry<String, SliceData> s : e.getValue().entrySet()) {
        if (s.getValue().remove()) {
          slices.remove(s.getKey());
        } else {
          slices.put(s.getKey(), s.getValue());
        }
      }
      Map<String, SliceData> kept = frozen(slices);
      if (kept.isEmpty()) {
        applied.remove(service);
      } else {
        applied.put(service, kept);
      }
      taken.put(service, kept);
    }
    pending.clear();
    pendingCount = 0;
    metrics.setEndpointChangesPending(0);
    return new Taken(taken);
  }

  /**
   * A service's slices as kept between syncs, read-only and in name order: most services have one
   * slice, kept as a one-entry map rather than a tree.
   */
  private static Map<String, SliceData> frozen(TreeMap<String, SliceData> slices) {
    return switch (slices.size()) {
      case 0 -> Map.of();
      case 1 -> Map.of(slices.firstKey(), slices.firstEntry().getValue());
      default -> Collections.unmodifiableMap(slices);
    };
  }

  /** The endpoints of each changed service before and after. */
  private Checkout compute(Taken taken, Map<NamespacedName, List<Instant>> triggerTimes) {
    Map<NamespacedName, ServiceChange> changes = new HashMap<>();
    taken.slices().forEach((service, slices) -> {
      Map<ServicePortName, List<Endpoint>> previous = computed.getOrDefault(service, Map.of());
      Map<ServicePortName, List<Endpoint>> current = endpointsOf(service, slices);
      if (slices.isEmpty()) {
        computed.remove(service);
      } else {
        computed.put(service, current);
      }
      changes.put(service, new ServiceChange(previous, current));
    });
    return new Checkout(changes, triggerTimes);
  }

  /**
   * Which of two endpoints with the same address and port is kept (pkg/proxy/endpointslicecache.go
   * addEndpoints): a non-terminating one replaces a terminating one; among those alike, where
   * upstream leaves the result undefined, a ready one and then a serving one wins, and otherwise
   * the first in slice-name order.
   */
  static int precedence(Endpoint e) {
    return (e.terminating() ? 0 : 4) + (e.ready() ? 2 : 0) + (e.serving() ? 1 : 0);
  }

  /** pkg/proxy/endpointslicecache.go addEndpoints: the endpoints of every port of one Service from all its slices, deduplicated and sorted. */
  private Map<ServicePortName, List<Endpoint>> endpointsOf(NamespacedName service, Map<String, SliceData> slices) {
    Map<ServicePortName, Map<String, Endpoint>> byPort = new HashMap<>();
    for (SliceData slice : MapViews.values(slices)) {
      for (EndpointSlice.Port port : slice.ports()) {
        if (port.name() == null) {
          Log.v(2).info("Ignoring a port with nil name in an EndpointSlice", "service", service);
          continue;
        }
        if (port.port() == null || port.port() == 0) {
          Log.v(2).info("Ignoring an invalid endpoint port", "portName", port.name(), "service", service);
          continue;
        }
        ServicePortName spn = new ServicePortName(service, port.name(), port.protocol() == null ? "TCP" : port.protocol());
        Map<String, Endpoint> eps = byPort.computeIfAbsent(spn, k -> new HashMap<>());
        for (EndpointSlice.Endpoint ep : slice.endpoints()) {
          if (ep.addresses().isEmpty()) {
            Log.v(2).info("Ignoring an endpoint with no addresses", "service", service);
            continue;
          }
          String raw = ep.addresses().get(0);
          String ip = IpAddresses.normalize(raw);
          if (ip == null) {
            Log.error("Ignoring an endpoint with an invalid address", "address", raw, "service", service);
            continue;
          }
          if (IpFamily.ofText(ip) != family) {
            incorrectIpVersion.accept(service, raw);
            continue;
          }
          boolean local = ep.nodeName() != null && !ep.nodeName().isEmpty() && ep.nodeName().equals(nodeName);
          Endpoint endpoint = new Endpoint(ip, port.port(), local, ready(ep), serving(ep), terminating(ep),
              zoneHints(ep), nodeHint(ep), ep.nodeName(), ep.zone());
          // A reused pod IP can be listed twice: the running pod's copy wins over the terminating one.
          String id = endpoint.endpoint();
          Endpoint seen = eps.get(id);
          if (seen == null || precedence(endpoint) > precedence(seen)) {
            eps.put(id, endpoint);
          }
        }
      }
    }
    Map<ServicePortName, List<Endpoint>> out = new HashMap<>();
    byPort.forEach((spn, eps) -> {
      // The map key is the identity string, so sorting by key needs no string building.
      List<Map.Entry<String, Endpoint>> entries = new ArrayList<>(eps.entrySet());
      entries.sort(Map.Entry.comparingByKey());
      Endpoint[] sorted = new Endpoint[entries.size()];
      for (int i = 0; i < sorted.length; i++) {
        sorted[i] = entries.get(i).getValue();
      }
      out.put(spn, List.of(sorted)); // kept: one object for a single endpoint, no wrapper around a list
    });
    // kept per Service until it changes; most have one port, which needs no hash table
    if (out.size() == 1) {
      Map.Entry<ServicePortName, List<Endpoint>> only = out.entrySet().iterator().next();
      return Map.of(only.getKey(), only.getValue());
    }
    return out;
  }
}
