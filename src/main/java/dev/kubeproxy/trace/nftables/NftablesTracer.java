package dev.kubeproxy.trace.nftables;

import dev.kubeproxy.net.IpAddresses;
import dev.kubeproxy.net.IpFamily;
import dev.kubeproxy.trace.Packet;
import dev.kubeproxy.trace.PacketTracer;
import dev.kubeproxy.trace.Step;
import dev.kubeproxy.trace.Trace;
import dev.kubeproxy.trace.Verdict;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * Traces a packet through one family's kube-proxy nftables table in the agent's typed form, as
 * netfilter would run it (modelled on upstream's pkg/proxy/nftables/helpers_test.go nftablesTracer
 * and tracePacket, but following the hooks and priorities of the table's base chains rather than a
 * fixed list of chains, and evaluating the masquerade chains instead of assuming them).
 *
 * <p>Where the rules draw at random (numgen), every option is walked: the DNAT targets are all the
 * endpoints the packet can reach, it is masqueraded when any of those walks masquerades it, it is
 * accepted when any walk accepts it, and the path is the first walk followed by where each other
 * walk differs from the one before. A packet of the other family than the table's does not meet it.
 *
 * <p>An established packet keeps the NAT its connection chose: nat chains see only a connection's
 * first packet, so its trace has the filter chains only and no DNAT target.
 */
public final class NftablesTracer implements PacketTracer {
  private final NftRuleset table;
  private final BaseChains bases;
  private final TraceHost host;

  public NftablesTracer(NftRuleset table, TraceHost host) {
    this.table = Objects.requireNonNull(table, "table");
    this.host = Objects.requireNonNull(host, "host");
    this.bases = new BaseChains(table);
  }

  @Override
  public Trace trace(Packet packet) {
    IpFamily family = familyOf(packet);
    if (family != table.family()) {
      return new Trace(List.of(), Verdict.ACCEPT, new TreeSet<>(), false);
    }
    Choices choices = new Choices();
    List<RuleWalk.Outcome> outcomes = new ArrayList<>();
    do {
      outcomes.add(new RuleWalk(table, bases, host, choices, packet).walk());
    } while (choices.next());
    return merge(outcomes);
  }

  private static Trace merge(List<RuleWalk.Outcome> outcomes) {
    List<Step> path = new ArrayList<>(outcomes.get(0).steps());
    SortedSet<String> targets = new TreeSet<>();
    boolean accepted = false;
    boolean masqueraded = false;
    List<Step> previous = List.of();
    for (RuleWalk.Outcome o : outcomes) {
      if (!previous.isEmpty()) {
        int common = 0;
        while (common < previous.size() && common < o.steps().size()
            && previous.get(common).equals(o.steps().get(common))) {
          common++;
        }
        path.addAll(o.steps().subList(common, o.steps().size()));
      }
      previous = o.steps();
      if (o.verdict() == Verdict.ACCEPT) {
        accepted = true;
        masqueraded |= o.masqueraded();
        if (o.dnatTarget() != null) {
          targets.add(o.dnatTarget());
        }
      }
    }
    Verdict verdict = accepted ? Verdict.ACCEPT : outcomes.get(0).verdict();
    return new Trace(List.copyOf(path), verdict, targets, masqueraded);
  }

  private static IpFamily familyOf(Packet packet) {
    Objects.requireNonNull(packet, "packet");
    Objects.requireNonNull(packet.origin(), "packet origin");
    Objects.requireNonNull(packet.protocol(), "packet protocol");
    IpFamily source = IpAddresses.familyOf(Objects.requireNonNull(packet.sourceIp(), "packet source"));
    IpFamily destination = IpAddresses.familyOf(Objects.requireNonNull(packet.destinationIp(), "packet destination"));
    if (source == null || destination == null) {
      throw new IllegalArgumentException("the packet's addresses must be IP literals: " + packet.sourceIp() + " -> "
          + packet.destinationIp());
    }
    if (source != destination) {
      throw new IllegalArgumentException("the packet's source and destination are of different families: "
          + packet.sourceIp() + " -> " + packet.destinationIp());
    }
    if (packet.destinationPort() < 0 || packet.destinationPort() > 65535) {
      throw new IllegalArgumentException("the packet's destination port must be 0..65535: " + packet.destinationPort());
    }
    return source;
  }
}
