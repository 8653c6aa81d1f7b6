package dev.kubeproxy.explain;

import dev.kubeproxy.config.ProxyMode;

import dev.kubeproxy.explain.DebugReport.EndpointEntry;
import dev.kubeproxy.explain.DebugReport.LastSync;
import dev.kubeproxy.explain.DebugReport.Policy;
import dev.kubeproxy.explain.DebugReport.Port;
import dev.kubeproxy.model.Endpoint;
import dev.kubeproxy.model.EndpointCategorizer.TopologyMode;
import dev.kubeproxy.messages.FamilySnapshot;
import dev.kubeproxy.messages.InvalidObjects;
import dev.kubeproxy.net.IpFamily;
import dev.kubeproxy.model.NamespacedName;
import dev.kubeproxy.messages.ProxierSnapshot;
import dev.kubeproxy.model.ProxyState;
import dev.kubeproxy.model.ServicePort;
import dev.kubeproxy.model.ServicePortName;
import dev.kubeproxy.model.ServicePortPlan;
import dev.kubeproxy.model.ServiceSyncLog;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Builds a {@link DebugReport} from the proxier's snapshot: each port's plan is decided by
 * {@link ServicePortPlan}, exactly as the backends decide it, and only explained here.
 */
public final class ReportBuilder {
  static final String ZONE_LABEL = "topology.kubernetes.io/zone";

  private ReportBuilder() {}

  public static DebugReport build(ProxierSnapshot snapshot, ServiceQuery query) {
    List<Port> ports = new ArrayList<>();
    List<String> notes = new ArrayList<>();
    Set<NamespacedName> known = new TreeSet<>();
    for (FamilySnapshot family : snapshot.families()) {
      ProxyState state = family.state();
      if (state == null) {
        notes.add(family.family() + ": no sync yet" + (snapshot.initialized() ? ""
            : " (the agent waits for the initial Services, EndpointSlices and Node)"));
        continue;
      }
      state.services().keySet().forEach(spn -> known.add(spn.service()));
      PathTracer tracer = new PathTracer(snapshot.mode(), family.settings());
      KernelCheck kernel = null;
      List<ServicePort> matching = new ArrayList<>();
      for (ServicePort svc : state.services().values()) {
        if (query.matches(svc)) {
          matching.add(svc);
        }
      }
      matching.sort(Comparator.comparing(ServicePort::name));
      for (ServicePort svc : matching) {
        ServicePortPlan plan = state.plan(svc);
        PacketPath path = null;
        KernelPath kernelPath = null;
        if (query.tracesPath()) {
          if (IpFamily.ofText(query.toIp()) != family.family()) {
            continue;
          }
          path = tracer.trace(plan, query.from(), query.toIp(), query.toPort());
          if (path.entry() == null && query.service() == null) {
            continue; // not this port's address: only a query for this Service shows why
          }
          if (family.ruleset() != null) {
            kernel = kernel != null ? kernel : new KernelCheck(family.ruleset(), family.settings());
            kernelPath = kernel.check(svc, path, tracer);
          }
        }
        ports.add(port(snapshot.mode(), family, state, plan, path, kernelPath));
      }
      if (query.service() != null) {
        orphans(state, query, family.family(), notes);
      }
    }
    if (query.service() != null) {
      invalid(snapshot.invalid(), query.service(), notes);
    }
    List<String> close = ports.isEmpty() && query.service() != null ? CloseNames.of(query.service(), known) : List.of();
    return new DebugReport(snapshot.mode(), snapshot.dryRun(), snapshot.initialized(), query.describe(), ports, notes,
        close);
  }

  private static Port port(ProxyMode mode, FamilySnapshot family, ProxyState state, ServicePortPlan plan,
      PacketPath path, KernelPath kernel) {
    ServicePort svc = plan.service();
    ServicePortName spn = svc.name();
    List<EndpointEntry> endpoints = new ArrayList<>();
    String zone = state.nodeLabels().get(ZONE_LABEL);
    for (Endpoint ep : state.endpointsOf(spn)) {
      endpoints.add(EndpointSets.explain(ep, plan, zone));
    }
    List<String> problems = new ArrayList<>();
    ServiceSyncLog.Refusal refusal = family.syncs().refusal(state, spn);
    if (refusal != null) {
      problems.add("the kernel refused this port's rules at " + refusal.at() + "; it is left out until the port or"
          + " its endpoints change (the agent's log has the kernel's message)");
    }
    ServiceSyncLog.Sync sync = family.syncs().lastFor(spn.service());
    if (sync != null && !sync.ok()) {
      problems.add("the last sync that included it failed (" + sync.error() + "); the kernel keeps the rules of the"
          + " sync before, and the agent retries");
    }
    LastSync lastSync = sync == null ? new LastSync(null, "none", "no sync has programmed it yet")
        : new LastSync(sync.at().toString(), sync.kind(), sync.ok() ? "ok" : "failed: " + sync.error());
    return new Port(family.family().name(), spn.toString(), svc.protocol(), svc.clusterIP(), svc.port(),
        svc.nodePort(), svc.externalIPs(), svc.loadBalancerVIPs(), svc.loadBalancerSourceRanges(),
        svc.externalPolicyLocal() ? "Local" : "Cluster", svc.internalPolicyLocal() ? "Local" : "Cluster",
        svc.healthCheckNodePort(), svc.sessionAffinityClientIP() ? "ClientIP" : "None", svc.stickyMaxAgeSeconds(),
        svc.hintsAnnotation(), trafficDistribution(state.endpointsOf(spn)), topologyMode(plan.topologyMode()),
        policy(plan, mode), endpoints, lastSync, problems, family.programmed().get(spn), path, kernel);
  }

  static String topologyMode(TopologyMode mode) {
    return switch (mode) {
      case NONE -> "none";
      case PREFER_SAME_NODE -> "PreferSameNode";
      case PREFER_SAME_ZONE -> "PreferSameZone";
    };
  }

  /** What the endpoints' hints ask for: the EndpointSlice controller writes them from spec.trafficDistribution. */
  static String trafficDistribution(List<Endpoint> endpoints) {
    boolean nodeHints = false;
    boolean zoneHints = false;
    for (Endpoint ep : endpoints) {
      nodeHints |= ep.nodeHint() != Endpoint.NodeHint.NONE;
      zoneHints |= ep.zoneHints() != null && !ep.zoneHints().isEmpty();
    }
    if (nodeHints) {
      return "PreferSameNode (node hints)";
    }
    return zoneHints ? "PreferSameZone or PreferClose (zone hints)" : "none (no hints)";
  }

  /** The plan's decisions in the words of the mode's rules: chains in iptables and nftables, virtual servers in ipvs. */
  private static List<Policy> policy(ServicePortPlan plan, ProxyMode mode) {
    ServicePort svc = plan.service();
    List<Policy> out = new ArrayList<>();
    out.add(new Policy("hasEndpoints", plan.hasEndpoints(), plan.hasEndpoints()
        ? "some endpoint can serve" : "no usable endpoint anywhere: traffic is rejected"));
    out.add(new Policy("hasInternalEndpoints", plan.hasInternalEndpoints(), plan.hasInternalEndpoints()
        ? "cluster IP traffic reaches an endpoint" : svc.internalPolicyLocal() && plan.hasEndpoints()
            ? "internalTrafficPolicy Local and no endpoint on this node: cluster IP traffic is dropped"
            : "cluster IP traffic is rejected"));
    if (svc.externallyAccessible()) {
      out.add(new Policy("hasExternalEndpoints", plan.hasExternalEndpoints(), plan.hasExternalEndpoints()
          ? "external traffic reaches an endpoint" : svc.externalPolicyLocal() && plan.hasEndpoints()
              ? "externalTrafficPolicy Local and no endpoint on this node: external traffic is dropped (pods and"
                  + " this node still reach the cluster-wide endpoints)"
              : "external traffic is rejected"));
    }
    if (mode == ProxyMode.IPVS) {
      out.addAll(ipvsForwarding(plan));
    } else {
      out.add(new Policy("usesClusterPolicyChain", plan.usesClusterPolicyChain(), "cluster-wide endpoint chain: "
          + plan.clusterEndpoints().size() + " endpoint(s)"));
      out.add(new Policy("usesLocalPolicyChain", plan.usesLocalPolicyChain(), "this node's endpoint chain: "
          + plan.localEndpoints().size() + " endpoint(s)"));
      out.add(new Policy("usesExternalChain", plan.usesExternalChain(), "NodePort, external and LoadBalancer IPs go"
          + " through the external chain"));
    }
    out.add(new Policy("hasSourceRangeFirewall", plan.hasSourceRangeFirewall(),
        "loadBalancerSourceRanges checked on the LoadBalancer IPs"));
    out.add(new Policy("clusterTerminatingFallback", plan.clusterTerminatingFallback(),
        "no ready endpoint passed topology: serving-terminating endpoints take cluster traffic"));
    out.add(new Policy("localTerminatingFallback", plan.localTerminatingFallback(),
        "no ready local endpoint: local serving-terminating endpoints take local traffic"));
    return out;
  }

  /**
   * ipvs mode has no per-service chains: the port's virtual servers forward to real servers, chosen
   * per virtual server by {@link ServicePortPlan#realServers}; the external addresses have virtual
   * servers (and ipset entries) whether or not there are endpoints.
   */
  private static List<Policy> ipvsForwarding(ServicePortPlan plan) {
    ServicePort svc = plan.service();
    boolean external = svc.externallyAccessible();
    boolean hasLocal = !plan.localEndpoints().isEmpty();
    // a virtual server under a Local policy forwards to this node's endpoints when there are some
    boolean internalLocal = svc.internalPolicyLocal() && hasLocal;
    boolean externalLocal = external && svc.externalPolicyLocal() && hasLocal;
    boolean local = internalLocal || externalLocal;
    boolean cluster = !plan.clusterEndpoints().isEmpty() && (!internalLocal || (external && !externalLocal));
    return List.of(
        new Policy("clusterRealServers", cluster, "virtual servers forwarding to the cluster-wide endpoints: "
            + plan.clusterEndpoints().size() + " endpoint(s)"),
        new Policy("localRealServers", local, "virtual servers forwarding to this node's endpoints only (Local"
            + " policy): " + plan.localEndpoints().size() + " endpoint(s)"),
        new Policy("externalVirtualServers", external, "NodePort, external and LoadBalancer IPs have virtual"
            + " servers and ipset entries"));
  }

  /** Endpoints of this Service under a port name (or protocol) the Service does not have: not programmed. */
  private static void orphans(ProxyState state, ServiceQuery query, IpFamily family, List<String> notes) {
    for (Map.Entry<ServicePortName, List<Endpoint>> e : state.endpoints().entrySet()) {
      ServicePortName spn = e.getKey();
      if (spn.service().equals(query.service()) && !state.services().containsKey(spn)
          && (query.port() == null || query.port().equals(spn.port()))) {
        notes.add(family + ": EndpointSlice port \"" + spn.port() + "\" (" + spn.protocol() + ") of " + spn.service()
            + " has " + e.getValue().size() + " endpoint(s), but the Service has no such port: not programmed");
      }
    }
  }

  private static void invalid(List<InvalidObjects.Invalid> invalid, NamespacedName service, List<String> notes) {
    for (InvalidObjects.Invalid i : invalid) {
      if (!i.namespace().equals(service.namespace())) {
        continue;
      }
      boolean self = i.kind().equals("Service") && i.name().equals(service.name());
      // EndpointSlices are named after their Service (the controller's generateName "<service>-").
      boolean slice = i.kind().equals("EndpointSlice")
          && (i.name().equals(service.name()) || i.name().startsWith(service.name() + "-"));
      if (self) {
        notes.add("Service " + service + " was refused as invalid at " + i.at() + " (its last valid version, if any,"
            + " stays in effect): " + i.problem());
      } else if (slice) {
        notes.add("EndpointSlice " + i.namespace() + "/" + i.name() + " was refused as invalid at " + i.at() + ": "
            + i.problem());
      }
    }
  }
}
