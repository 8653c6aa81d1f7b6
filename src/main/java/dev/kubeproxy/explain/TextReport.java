package dev.kubeproxy.explain;

import dev.kubeproxy.explain.DebugReport.EndpointEntry;
import dev.kubeproxy.explain.DebugReport.Policy;
import dev.kubeproxy.explain.DebugReport.Port;
import dev.kubeproxy.explain.PacketPath.Choice;
import dev.kubeproxy.explain.PacketPath.Hop;
import dev.kubeproxy.model.ProgrammedRules;
import java.util.List;
import java.util.Locale;

/** The report for people: /debug/services?format=text, and what {@code kube-proxy explain} prints. */
public final class TextReport {
  private TextReport() {}

  public static String of(DebugReport r) {
    StringBuilder sb = new StringBuilder();
    sb.append("kube-proxy (").append(r.mode()).append(" mode").append(r.dryRun() ? ", dry run: rules are printed,"
        + " not applied" : "").append("): ").append(r.query()).append('\n');
    if (!r.initialized()) {
      sb.append("  the agent has not programmed rules yet: it waits for the initial Services, EndpointSlices and Node\n");
    }
    if (r.ports().isEmpty()) {
      sb.append("\nthe agent knows no matching service port");
      if (!r.closeNames().isEmpty()) {
        sb.append("; close names: ").append(String.join(", ", r.closeNames()));
      }
      sb.append('\n');
    }
    for (Port p : r.ports()) {
      port(sb, p);
    }
    if (!r.notes().isEmpty()) {
      sb.append("\nnotes:\n");
      r.notes().forEach(n -> sb.append("  - ").append(n).append('\n'));
    }
    return sb.toString();
  }

  private static void port(StringBuilder sb, Port p) {
    sb.append('\n').append(p.servicePort()).append(' ').append(p.protocol()).append(" (").append(p.family())
        .append(")\n");
    sb.append("  cluster IP:      ").append(p.clusterIP()).append(':').append(p.port()).append('\n');
    if (p.nodePort() != 0) {
      sb.append("  node port:       ").append(p.nodePort()).append('\n');
    }
    if (!p.externalIPs().isEmpty()) {
      sb.append("  external IPs:    ").append(String.join(", ", p.externalIPs())).append('\n');
    }
    if (!p.loadBalancerIPs().isEmpty()) {
      sb.append("  LB IPs:          ").append(String.join(", ", p.loadBalancerIPs()));
      if (!p.loadBalancerSourceRanges().isEmpty()) {
        sb.append("  (source ranges ").append(String.join(", ", p.loadBalancerSourceRanges())).append(')');
      }
      sb.append('\n');
    }
    sb.append("  traffic policy:  external ").append(p.externalTrafficPolicy()).append(", internal ")
        .append(p.internalTrafficPolicy());
    if (p.healthCheckNodePort() != 0) {
      sb.append(", health check node port ").append(p.healthCheckNodePort());
    }
    sb.append('\n');
    sb.append("  affinity:        ").append(p.sessionAffinity());
    if (p.sessionAffinity().equals("ClientIP")) {
      sb.append(" (").append(p.affinityTimeoutSeconds()).append(" s)");
    }
    sb.append('\n');
    sb.append("  topology:        ").append(p.topologyMode()).append(" (hints: ").append(p.trafficDistribution())
        .append(p.hintsAnnotation().isEmpty() ? "" : "; annotation " + p.hintsAnnotation()).append(")\n");
    sb.append("  last sync:       ").append(p.lastSync().at() == null ? "-" : p.lastSync().at()).append(", ")
        .append(p.lastSync().kind()).append(", ").append(p.lastSync().result()).append('\n');
    sb.append("  plan:           ");
    for (Policy pol : p.policy()) {
      if (pol.value()) {
        sb.append(' ').append(pol.name());
      }
    }
    sb.append('\n');
    for (Policy pol : p.policy()) {
      if (!pol.value() && pol.name().matches("has(Internal|External)?Endpoints")) {
        sb.append("    not ").append(pol.name()).append(": ").append(pol.meaning()).append('\n');
      }
    }
    sb.append("  endpoints (").append(p.endpoints().size()).append("):\n");
    if (p.endpoints().isEmpty()) {
      sb.append("    none\n");
    }
    for (EndpointEntry e : p.endpoints()) {
      sb.append("    ").append(String.format(Locale.ROOT, "%-22s", e.endpoint()))
          .append(e.ready() ? " ready" : " not-ready").append(e.serving() ? " serving" : "")
          .append(e.terminating() ? " terminating" : "")
          .append("  node ").append(e.node() == null ? "-" : e.node()).append(e.local() ? " (this node)" : "")
          .append("  zone ").append(e.zone() == null ? "-" : e.zone()).append('\n')
          .append("      -> ").append(String.join(", ", e.sets())).append(": ").append(e.reason()).append('\n');
    }
    for (String problem : p.problems()) {
      sb.append("  PROBLEM: ").append(problem).append('\n');
    }
    ProgrammedRules rules = p.programmed();
    if (rules != null) {
      sb.append("  programmed now (").append(rules.source()).append("):\n");
      if (rules.error() != null) {
        sb.append("    could not read: ").append(rules.error()).append('\n');
      } else if (rules.lines().isEmpty()) {
        sb.append("    nothing\n");
      }
      rules.lines().forEach(l -> sb.append("    ").append(l).append('\n'));
    }
    if (p.path() != null) {
      path(sb, p.path());
    }
    if (p.kernel() != null) {
      kernel(sb, p.kernel());
    }
  }

  private static void kernel(StringBuilder sb, KernelPath k) {
    sb.append("  the same packet through the rules programmed (").append(k.source()).append("):\n");
    if (k.error() != null) {
      sb.append("    not traced: ").append(k.error()).append('\n');
      return;
    }
    for (int i = 0; i < k.steps().size(); i++) {
      sb.append("    ").append(i + 1).append(". ").append(k.steps().get(i)).append('\n');
    }
    sb.append("    => ").append(k.verdict());
    if (!k.targets().isEmpty()) {
      sb.append(' ').append(String.join(", ", k.targets()));
    }
    sb.append(k.masqueraded() ? ", masqueraded" : ", source kept").append('\n');
    sb.append(k.disagreement() == null ? "    the rules agree with the model\n"
        : "    DISAGREES: " + k.disagreement() + "\n");
  }

  private static void path(StringBuilder sb, PacketPath path) {
    sb.append("  packet ").append(path.source()).append(" -> ").append(path.destination()).append(" (source: ")
        .append(path.sourceKind()).append(")\n");
    List<Hop> hops = path.hops();
    for (int i = 0; i < hops.size(); i++) {
      sb.append("    ").append(i + 1).append(". ").append(hops.get(i).chain()).append(": ")
          .append(hops.get(i).action()).append('\n');
    }
    sb.append("    => ").append(path.verdict()).append(path.verdict() == PacketPath.Verdict.DNAT ? "" : ": "
        + path.reason()).append('\n');
    for (Choice c : path.endpoints()) {
      sb.append("       ").append(String.format(Locale.ROOT, "%-22s p=%.3f  %s", c.endpoint(), c.probability(),
          c.masquerade() ? "masqueraded" : "source kept")).append(" (").append(c.why()).append(")\n");
    }
    if (path.affinity() != null) {
      sb.append("       ").append(path.affinity()).append('\n');
    }
  }
}
