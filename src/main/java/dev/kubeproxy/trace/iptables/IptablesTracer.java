package dev.kubeproxy.trace.iptables;

import dev.kubeproxy.trace.Origin;
import dev.kubeproxy.trace.Packet;
import dev.kubeproxy.trace.PacketTracer;
import dev.kubeproxy.trace.Step;
import dev.kubeproxy.trace.Trace;
import dev.kubeproxy.trace.Verdict;
import dev.kubeproxy.trace.iptables.ChainWalker.Outcome;
import dev.kubeproxy.trace.iptables.ChainWalker.Result;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * Traces a packet through iptables rules in netfilter's hook order (the tables at each hook in priority order:
 * raw, mangle, nat, filter; nat only for a connection's first packet), with the routing decision after
 * PREROUTING/OUTPUT telling local delivery (INPUT) from forwarding (FORWARD, POSTROUTING).
 *
 * <p>Unlike upstream's test tracer (pkg/proxy/iptables/proxier_test.go iptablesTracer), which runs the kube
 * chains by hand and treats marks and conntrack states as never matching, this one walks the built-in chains,
 * keeps the skb mark, and gives conntrack's state from the packet (NEW or ESTABLISHED, DNAT once DNATed), so that
 * its answer is what the kernel would do with the rules.
 */
public final class IptablesTracer implements PacketTracer {
  private final ChainWalker walker;
  private final LocalNode node;
  private final IpSetContents sets;
  private final VirtualServers ipvs;

  /** A tracer of iptables mode's rules (no ipsets, no IPVS). */
  public IptablesTracer(IptablesRules rules, LocalNode node) {
    this(rules, node, IpSetContents.none(), VirtualServers.none());
  }

  /** A tracer of rules that test ipsets, with IPVS taking the packets of its virtual servers (ipvs mode). */
  public IptablesTracer(IptablesRules rules, LocalNode node, IpSetContents sets, VirtualServers ipvs) {
    this.walker = new ChainWalker(rules);
    this.node = node;
    this.sets = sets;
    this.ipvs = ipvs;
  }

  @Override
  public Trace trace(Packet packet) {
    PacketState start = PacketState.of(packet, node, sets);
    List<Outcome> done = new ArrayList<>();
    List<PacketState> live = List.of(start);
    if (packet.origin() == Origin.NODE) {
      live = hook(live, done, "OUTPUT", "raw", "mangle", "nat");
      // IPVS takes locally sent packets right after nat OUTPUT and lets them go on (ip_vs_local_request).
      List<PacketState> afterIpvs = new ArrayList<>();
      for (PacketState p : live) {
        List<PacketState> taken = ipvs(p, done);
        afterIpvs.addAll(taken == null ? List.of(p) : taken);
      }
      live = hook(afterIpvs, done, "OUTPUT", "filter");
      for (PacketState p : live) {
        p.outInterface = node.isLocal(p.destination) ? "lo" : node.externalInterface();
      }
      live = hook(live, done, "POSTROUTING", "mangle", "nat");
      // A packet for the node itself comes back in on loopback; NAT was settled on the way out.
      List<PacketState> input = new ArrayList<>();
      for (PacketState p : live) {
        if (node.isLocal(p.destination)) {
          p.inInterface = "lo";
          input.add(p);
        } else {
          done.add(new Outcome(p, Result.ACCEPT));
        }
      }
      finish(hook(input, done, "INPUT", "mangle", "filter"), done);
    } else {
      start.inInterface = packet.origin() == Origin.POD ? node.podInterface() : node.externalInterface();
      live = hook(live, done, "PREROUTING", "raw", "mangle", "nat");
      List<PacketState> input = new ArrayList<>();
      List<PacketState> forward = new ArrayList<>();
      for (PacketState p : live) {
        (node.isLocal(p.destination) ? input : forward).add(p);
      }
      List<PacketState> local = new ArrayList<>();
      List<PacketState> viaIpvs = new ArrayList<>();
      for (PacketState p : hook(input, done, "INPUT", "mangle", "filter")) {
        // IPVS takes packets for its virtual servers after filter INPUT and sends them on through
        // LOCAL_OUT and POSTROUTING (ip_vs_remote_request, ip_vs_nat_xmit).
        List<PacketState> taken = ipvs(p, done);
        if (taken == null) {
          local.add(p);
        } else {
          viaIpvs.addAll(taken);
        }
      }
      finish(hook(local, done, "INPUT", "nat"), done);
      for (PacketState p : forward) {
        p.outInterface = node.externalInterface();
      }
      for (PacketState p : viaIpvs) {
        p.outInterface = node.externalInterface();
      }
      List<PacketState> out = new ArrayList<>(hook(forward, done, "FORWARD", "mangle", "filter"));
      out.addAll(hook(viaIpvs, done, "OUTPUT", "mangle", "filter"));
      finish(hook(out, done, "POSTROUTING", "mangle", "nat"), done);
    }
    return answer(done);
  }

  /**
   * IPVS on a packet: null when no virtual server has its destination; else one copy per real server a new
   * connection can go to, DNATed there (none: the packet is refused, as IPVS answers with ICMP unreachable).
   */
  private List<PacketState> ipvs(PacketState p, List<Outcome> done) {
    List<String> destinations = ipvs.destinations(p.destination, p.protocol, p.destinationPort);
    if (destinations == null) {
      return null;
    }
    String virtual = (p.destination.contains(":") ? "[" + p.destination + "]" : p.destination) + ":"
        + p.destinationPort + "/" + p.protocol.toUpperCase(java.util.Locale.ROOT);
    if (destinations.isEmpty()) {
      p.path.add(new Step("ipvs", virtual + " has no real server"));
      done.add(new Outcome(p, Result.REJECT));
      return List.of();
    }
    List<PacketState> out = new ArrayList<>();
    for (String destination : destinations) {
      PacketState copy = p.copy();
      copy.ipvsAddress = p.destination;
      copy.ipvsProtocol = p.protocol;
      copy.ipvsPort = p.destinationPort;
      copy.path.add(new Step("ipvs", virtual + " -> " + destination));
      Targets.dnatTo(copy, destination);
      out.add(copy);
    }
    return out;
  }

  /** The packets through one hook's tables in order; dropped and rejected ones end in {@code done}. */
  private List<PacketState> hook(List<PacketState> packets, List<Outcome> done, String hook, String... tables) {
    List<PacketState> current = packets;
    for (String table : tables) {
      List<PacketState> next = new ArrayList<>();
      for (PacketState packet : current) {
        if (table.equals("nat") && packet.established) {
          next.add(packet); // NAT is decided by a connection's first packet only
          continue;
        }
        for (Outcome outcome : walker.runBuiltin(table, hook, packet)) {
          if (outcome.result() == Result.ACCEPT) {
            next.add(outcome.packet());
          } else {
            done.add(outcome);
          }
        }
      }
      current = next;
    }
    return current;
  }

  private static void finish(List<PacketState> accepted, List<Outcome> done) {
    for (PacketState packet : accepted) {
      done.add(new Outcome(packet, Result.ACCEPT));
    }
  }

  /**
   * One answer for all outcomes: the steps of every outcome in walk order, accepted if any outcome is (else
   * rejected if any is, else dropped), the DNAT targets and masquerade of the outcomes with that verdict.
   */
  private static Trace answer(List<Outcome> outcomes) {
    Result verdict = Result.DROP;
    for (Outcome outcome : outcomes) {
      if (outcome.result() == Result.ACCEPT
          || (outcome.result() == Result.REJECT && verdict == Result.DROP)) {
        verdict = outcome.result();
      }
    }
    Set<Step> path = new LinkedHashSet<>();
    TreeSet<String> targets = new TreeSet<>();
    boolean masqueraded = false;
    for (Outcome outcome : outcomes) {
      path.addAll(outcome.packet().path);
      if (outcome.result() == verdict) {
        if (outcome.packet().dnatTarget != null) {
          targets.add(outcome.packet().dnatTarget);
        }
        masqueraded |= outcome.packet().masqueraded;
      }
    }
    return new Trace(List.copyOf(path), Verdict.valueOf(verdict.name()), targets, masqueraded);
  }
}
