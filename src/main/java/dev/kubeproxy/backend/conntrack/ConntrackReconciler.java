package dev.kubeproxy.backend.conntrack;

import dev.kubeproxy.logging.Log;
import dev.kubeproxy.metrics.ProxyMetrics;
import dev.kubeproxy.model.Endpoint;
import dev.kubeproxy.net.IpFamily;
import dev.kubeproxy.model.ServicePort;
import dev.kubeproxy.model.ServicePortName;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Removes conntrack entries that keep datagrams going to the wrong place (upstream 1.32+
 * pkg/proxy/conntrack/cleanup.go CleanStaleEntries): after each successful sync it reads
 * the table and deletes every UDP or SCTP entry whose original destination is a Service frontend
 * (cluster IP, external IP or load-balancer IP with the service port, or any address with the
 * NodePort) and whose reply source is not a serving endpoint (IP and target port) of that
 * Service. It replaces 1.31's event-based cleanup, which missed entries whenever an event was
 * missed or a sync failed.
 *
 * <p>With the later upstream fixes: a Service without serving endpoints is checked with an empty
 * set, so its old entries go, and the frontends of Service ports deleted since the last reconcile
 * are checked with an empty set too. TCP entries are left to expire. Upstream checks UDP only;
 * SCTP entries are checked the same way here.
 */
public final class ConntrackReconciler {
  private static final Set<String> PROTOCOLS = Set.of("UDP", "SCTP");

  private final ConntrackTable table;
  private final ProxyMetrics metrics;

  public ConntrackReconciler(ConntrackTable table, ProxyMetrics metrics) {
    this.table = table;
    this.metrics = metrics;
  }

  /**
   * One reconcile of one family. Blocking: call it on a worker. Failures are logged; the next
   * sync tries again.
   *
   * @param deletedPorts Service ports removed since the last reconcile
   * @return the number of entries deleted
   */
  public int reconcile(IpFamily family, Map<ServicePortName, ServicePort> services,
      Map<ServicePortName, List<Endpoint>> endpoints, Collection<ServicePort> deletedPorts) {
    long start = System.nanoTime();
    Log.v(4).info("Started to reconcile conntrack entries", "ipFamily", family);
    int deleted = 0;
    try {
      List<ConntrackFlow> flows = table.list(family);
      List<ConntrackFlow> stale = staleFlows(services, endpoints, deletedPorts, flows);
      for (ConntrackFlow flow : stale) {
        Log.v(6).info("Deleting stale conntrack entry", "flow", flow);
      }
      try {
        deleted = stale.isEmpty() ? 0 : table.delete(family, stale);
        Log.v(4).info("Finished reconciling conntrack entries", "ipFamily", family, "entriesDeleted", deleted,
            "took", elapsed(start));
      } catch (IOException e) {
        Log.error("Failed to clear all conntrack entries", "ipFamily", family, "took", elapsed(start),
            "err", e.getMessage());
      }
    } catch (IOException | RuntimeException e) {
      Log.error("Failed to list conntrack entries", "ipFamily", family, "err", e.getMessage());
    }
    metrics.observeConntrackReconcile(family.name(), Duration.ofNanos(System.nanoTime() - start), deleted);
    return deleted;
  }

  /** The entries to delete, in table order (pure: the whole rule of the reconciler). */
  static List<ConntrackFlow> staleFlows(Map<ServicePortName, ServicePort> services,
      Map<ServicePortName, List<Endpoint>> endpoints, Collection<ServicePort> deletedPorts,
      List<ConntrackFlow> flows) {
    // protocol/frontend IP/port -> serving endpoints "ip/port"; protocol/nodePort -> same
    Map<String, Set<String>> byFrontend = new HashMap<>();
    Map<String, Set<String>> byNodePort = new HashMap<>();
    // Deleted ports first: a current Service with the same frontend (a reused IP) takes precedence.
    for (ServicePort port : deletedPorts) {
      if (PROTOCOLS.contains(port.protocol())) {
        addFrontends(port, Set.of(), byFrontend, byNodePort);
      }
    }
    for (Map.Entry<ServicePortName, ServicePort> e : services.entrySet()) {
      ServicePort port = e.getValue();
      if (!PROTOCOLS.contains(port.protocol())) {
        continue;
      }
      // Every serving endpoint, whatever the traffic policy, topology or termination: the
      // entries of connections to it stay, as they would for TCP.
      Set<String> serving = new HashSet<>();
      for (Endpoint ep : endpoints.getOrDefault(e.getKey(), List.of())) {
        if (ep.serving()) {
          serving.add(ep.ip() + "/" + ep.port());
        }
      }
      addFrontends(port, serving, byFrontend, byNodePort);
    }
    List<ConntrackFlow> stale = new ArrayList<>();
    for (ConntrackFlow flow : flows) {
      String protocol = protocolName(flow.protocol());
      if (protocol == null) {
        continue;
      }
      String backend = flow.replySrc() + "/" + flow.replySrcPort();
      Set<String> serving = byFrontend.get(protocol + "/" + flow.origDst() + "/" + flow.origDstPort());
      if (serving == null) {
        serving = byNodePort.get(protocol + "/" + flow.origDstPort());
      }
      if (serving != null && !serving.contains(backend)) {
        stale.add(flow);
      }
    }
    return stale;
  }

  private static void addFrontends(ServicePort port, Set<String> serving, Map<String, Set<String>> byFrontend,
      Map<String, Set<String>> byNodePort) {
    String prefix = port.protocol() + "/";
    byFrontend.put(prefix + port.clusterIP() + "/" + port.port(), serving);
    for (String ip : port.loadBalancerVIPs()) {
      byFrontend.put(prefix + ip + "/" + port.port(), serving);
    }
    for (String ip : port.externalIPs()) {
      byFrontend.put(prefix + ip + "/" + port.port(), serving);
    }
    if (port.nodePort() != 0) {
      byNodePort.put(prefix + port.nodePort(), serving);
    }
  }

  private static String protocolName(int number) {
    return switch (number) {
      case ConntrackFlow.UDP -> "UDP";
      case ConntrackFlow.SCTP -> "SCTP";
      default -> null;
    };
  }

  private static String elapsed(long startNanos) {
    return (System.nanoTime() - startNanos) / 1_000 / 1000.0 + "ms";
  }
}
