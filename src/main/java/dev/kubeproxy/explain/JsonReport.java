package dev.kubeproxy.explain;

import dev.kubeproxy.explain.DebugReport.EndpointEntry;
import dev.kubeproxy.explain.DebugReport.Policy;
import dev.kubeproxy.explain.DebugReport.Port;
import dev.kubeproxy.model.ProgrammedRules;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

/** /debug/services' JSON: the report's records with their component names as keys. */
public final class JsonReport {
  private JsonReport() {}

  public static JsonObject of(DebugReport r) {
    JsonArray ports = new JsonArray();
    r.ports().forEach(p -> ports.add(port(p)));
    return new JsonObject()
        .put("mode", r.mode().text())
        .put("dryRun", r.dryRun())
        .put("initialized", r.initialized())
        .put("query", r.query())
        .put("ports", ports)
        .put("notes", new JsonArray(r.notes()))
        .put("closeNames", new JsonArray(r.closeNames()));
  }

  private static JsonObject port(Port p) {
    JsonArray endpoints = new JsonArray();
    for (EndpointEntry e : p.endpoints()) {
      endpoints.add(new JsonObject().put("endpoint", e.endpoint()).put("ready", e.ready()).put("serving", e.serving())
          .put("terminating", e.terminating()).put("node", e.node()).put("zone", e.zone()).put("local", e.local())
          .put("sets", new JsonArray(e.sets())).put("reason", e.reason()));
    }
    JsonObject policy = new JsonObject();
    for (Policy pol : p.policy()) {
      policy.put(pol.name(), pol.value());
    }
    JsonObject out = new JsonObject()
        .put("family", p.family())
        .put("servicePort", p.servicePort())
        .put("protocol", p.protocol())
        .put("clusterIP", p.clusterIP())
        .put("port", p.port())
        .put("nodePort", p.nodePort())
        .put("externalIPs", new JsonArray(p.externalIPs()))
        .put("loadBalancerIPs", new JsonArray(p.loadBalancerIPs()))
        .put("loadBalancerSourceRanges", new JsonArray(p.loadBalancerSourceRanges()))
        .put("externalTrafficPolicy", p.externalTrafficPolicy())
        .put("internalTrafficPolicy", p.internalTrafficPolicy())
        .put("healthCheckNodePort", p.healthCheckNodePort())
        .put("sessionAffinity", p.sessionAffinity())
        .put("affinityTimeoutSeconds", p.affinityTimeoutSeconds())
        .put("hintsAnnotation", p.hintsAnnotation())
        .put("trafficDistribution", p.trafficDistribution())
        .put("topologyMode", p.topologyMode())
        .put("policy", policy)
        .put("endpoints", endpoints)
        .put("lastSync", new JsonObject().put("at", p.lastSync().at()).put("kind", p.lastSync().kind())
            .put("result", p.lastSync().result()))
        .put("problems", new JsonArray(p.problems()));
    ProgrammedRules rules = p.programmed();
    if (rules != null) {
      out.put("programmed", new JsonObject().put("source", rules.source()).put("lines", new JsonArray(rules.lines()))
          .put("error", rules.error()));
    }
    if (p.path() != null) {
      out.put("path", path(p.path()));
    }
    if (p.kernel() != null) {
      KernelPath k = p.kernel();
      out.put("kernel", new JsonObject().put("source", k.source()).put("verdict", k.verdict())
          .put("targets", new JsonArray(k.targets())).put("masqueraded", k.masqueraded())
          .put("steps", new JsonArray(k.steps())).put("disagreement", k.disagreement()).put("error", k.error()));
    }
    return out;
  }

  private static JsonObject path(PacketPath path) {
    JsonArray hops = new JsonArray();
    path.hops().forEach(h -> hops.add(new JsonObject().put("chain", h.chain()).put("action", h.action())));
    JsonArray endpoints = new JsonArray();
    path.endpoints().forEach(c -> endpoints.add(new JsonObject().put("endpoint", c.endpoint())
        .put("probability", c.probability()).put("masquerade", c.masquerade()).put("why", c.why())));
    return new JsonObject()
        .put("source", path.source())
        .put("destination", path.destination())
        .put("sourceKind", path.sourceKind())
        .put("entry", path.entry())
        .put("hops", hops)
        .put("verdict", path.verdict().name())
        .put("reason", path.reason())
        .put("endpoints", endpoints)
        .put("affinity", path.affinity());
  }
}
