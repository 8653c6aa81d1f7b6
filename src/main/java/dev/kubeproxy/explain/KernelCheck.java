package dev.kubeproxy.explain;

import dev.kubeproxy.model.LocalTrafficDetector;
import dev.kubeproxy.model.ProgrammedRuleset;
import dev.kubeproxy.model.ProxierSettings;
import dev.kubeproxy.model.ServicePort;
import dev.kubeproxy.trace.Origin;
import dev.kubeproxy.trace.Packet;
import dev.kubeproxy.trace.PacketTracer;
import dev.kubeproxy.trace.Protocol;
import dev.kubeproxy.trace.Step;
import dev.kubeproxy.trace.Trace;
import dev.kubeproxy.trace.Verdict;
import dev.kubeproxy.trace.iptables.IptablesRules;
import dev.kubeproxy.trace.iptables.IptablesTracer;
import dev.kubeproxy.trace.iptables.LocalNode;
import dev.kubeproxy.trace.ipvs.IpvsTracer;
import dev.kubeproxy.trace.nftables.NftablesTracer;
import dev.kubeproxy.trace.nftables.TraceHost;
import dev.kubeproxy.trace.nftables.json.NftJsonReader;
import dev.kubeproxy.trace.nftables.script.NftScriptReader;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;

/**
 * Traces a {@link PacketPath}'s packet through one family's programmed rules with the packet tracer
 * of their form, and compares the answer with the model's: the model says why, the rules say what
 * the kernel does, and a difference between them is a bug of the rules (or rules changed by someone
 * else) that the model alone would hide.
 */
final class KernelCheck {
  private final ProgrammedRuleset ruleset;
  private final ProxierSettings settings;
  private final PacketTracer tracer;
  private final String error;

  KernelCheck(ProgrammedRuleset ruleset, ProxierSettings settings) {
    this.ruleset = ruleset;
    this.settings = settings;
    PacketTracer t = null;
    String e = ruleset.error();
    if (e == null) {
      try {
        t = tracer(ruleset, settings);
        if (t == null) {
          e = "no tracer reads rules of the form " + ruleset.form();
        }
      } catch (IllegalArgumentException | IllegalStateException bad) {
        e = "the rules read do not parse: " + bad.getMessage();
      }
    }
    this.tracer = t;
    this.error = e;
  }

  /** The tracer of the ruleset's form over its text, or null for a form no tracer reads. */
  private static PacketTracer tracer(ProgrammedRuleset ruleset, ProxierSettings settings) {
    if (ProgrammedRuleset.IPVS.equals(ruleset.form())) {
      return IpvsTracer.of(ruleset, node(settings));
    }
    if (ProgrammedRuleset.IPTABLES_SAVE.equals(ruleset.form())) {
      return new IptablesTracer(IptablesRules.parse(ruleset.text()), node(settings));
    }
    if (ProgrammedRuleset.NFT_JSON.equals(ruleset.form())) {
      LocalNode node = node(settings);
      return new NftablesTracer(NftJsonReader.read(settings.family(), ruleset.text()),
          new TraceHost(node.localIps(), node.podInterface()));
    }
    if (ProgrammedRuleset.NFT_COMMANDS.equals(ruleset.form())) {
      LocalNode node = node(settings);
      return new NftablesTracer(NftScriptReader.read(settings.family(), ruleset.text()),
          new TraceHost(node.localIps(), node.podInterface()));
    }
    return null;
  }

  /** The node as the rules see it: its addresses, and an interface pods' packets arrive on. */
  private static LocalNode node(ProxierSettings settings) {
    LocalTrafficDetector d = settings.localDetector();
    String podInterface = d.byInterfacePrefix() ? d.value() + "0"
        : d.mode().equals("BridgeInterface") ? d.value() : "cni0";
    return new LocalNode(Set.copyOf(settings.nodeIPs()), podInterface, "eth0");
  }

  KernelPath check(ServicePort svc, PacketPath model, PathTracer modelTracer) {
    if (tracer == null) {
      return KernelPath.unavailable(ruleset.source(), error);
    }
    String src = model.source();
    String dst = model.destination();
    int colon = dst.lastIndexOf(':');
    String dstIp = dst.substring(0, colon).replace("[", "").replace("]", "");
    int port = Integer.parseInt(dst.substring(colon + 1));
    Origin origin = modelTracer.isPod(src) ? Origin.POD : modelTracer.isNode(src, dstIp) ? Origin.NODE : Origin.OUTSIDE;
    Trace trace;
    try {
      trace = tracer.trace(new Packet(origin, src, dstIp, port,
          Protocol.valueOf(svc.protocol().toUpperCase(Locale.ROOT)), false));
    } catch (RuntimeException e) {
      return KernelPath.unavailable(ruleset.source(), "the tracer could not follow the packet: " + e.getMessage());
    }
    List<String> steps = new ArrayList<>();
    for (Step s : trace.path()) {
      steps.add(s.chain() + ": " + s.rule());
    }
    String verdict = trace.verdict() == Verdict.ACCEPT
        ? (trace.dnatTargets().isEmpty() ? "ACCEPT" : "DNAT") : trace.verdict().name();
    List<String> targets = List.copyOf(trace.dnatTargets());
    return new KernelPath(ruleset.source(), verdict, targets, trace.masqueraded(), steps,
        disagreement(svc, model, verdict, targets, trace.masqueraded()), null);
  }

  /**
   * Where the rules differ from the model, or null. A packet the model does not send through this
   * port is not compared: other rules (another Service's) may well take it.
   */
  private static String disagreement(ServicePort svc, PacketPath model, String verdict, List<String> targets,
      boolean masqueraded) {
    if (model.entry() == null) {
      return null;
    }
    String expected = model.verdict().name();
    Set<String> endpoints = new TreeSet<>();
    boolean masq = false;
    for (PacketPath.Choice c : model.endpoints()) {
      endpoints.add(c.endpoint());
      masq |= c.masquerade();
    }
    boolean same = expected.equals(verdict) && (!expected.equals("DNAT")
        || (new HashSet<>(targets).equals(endpoints) && masq == masqueraded));
    if (same) {
      return null;
    }
    return "the programmed rules disagree with the model for " + svc.name() + " (" + svc.protocol() + " "
        + model.destination() + ", " + model.entry() + "): the model expects " + describe(expected, endpoints, masq)
        + ", the rules " + describe(verdict, targets, masqueraded);
  }

  private static String describe(String verdict, java.util.Collection<String> targets, boolean masq) {
    if (!verdict.equals("DNAT")) {
      return verdict;
    }
    return "DNAT to " + new TreeSet<>(targets) + (masq ? " masqueraded" : " with the source kept");
  }
}
