package dev.kubeproxy.trace.iptables;

import dev.kubeproxy.trace.Step;
import java.util.ArrayList;
import java.util.List;

/**
 * Runs a packet through one table's chain as netfilter does (net/netfilter/x_tables: ipt_do_table): rules in
 * order, jumps and gotos into user chains, RETURN, the built-in chain's policy at its end, and the targets that
 * change the packet (DNAT, MARK, MASQUERADE). Where the kernel chooses at random (-m statistic) both ways are
 * followed on copies of the packet, so the answer holds every outcome a random choice can give.
 */
final class ChainWalker {
  /** Deeper than any chain nesting kube-proxy writes: a deeper walk is a jump loop. */
  private static final int MAX_DEPTH = 64;

  /** How a walk through a chain ended for one copy of the packet. */
  enum Result { CONTINUE, ACCEPT, DROP, REJECT }

  record Outcome(PacketState packet, Result result) {}

  private final IptablesRules rules;

  ChainWalker(IptablesRules rules) {
    this.rules = rules;
  }

  /** The packet through a built-in chain of a table; a table without that chain lets it through. */
  List<Outcome> runBuiltin(String table, String chain, PacketState packet) {
    if (rules.chain(table, chain) == null) {
      return List.of(new Outcome(packet, Result.ACCEPT));
    }
    List<Outcome> out = new ArrayList<>();
    for (Outcome outcome : run(table, chain, packet, 0, 0)) {
      if (outcome.result() == Result.CONTINUE) {
        Result policy = Result.valueOf(rules.policy(table, chain));
        out.add(new Outcome(outcome.packet(), policy));
      } else {
        out.add(outcome);
      }
    }
    return out;
  }

  private List<Outcome> run(String table, String chain, PacketState packet, int from, int depth) {
    if (depth > MAX_DEPTH) {
      throw new IllegalStateException("iptables chains nest deeper than " + MAX_DEPTH + " at " + table + "/" + chain
          + ": a jump loop");
    }
    List<Rule> chainRules = rules.chain(table, chain);
    if (chainRules == null) {
      throw new IllegalStateException("a rule jumps to " + chain + ", which table " + table + " does not have");
    }
    for (int i = from; i < chainRules.size(); i++) {
      Rule rule = chainRules.get(i);
      if (!rule.matches(packet)) {
        continue;
      }
      if (rule.random()) {
        List<Outcome> out = new ArrayList<>(apply(rule, packet.copy(), table, chain, i, depth));
        out.addAll(run(table, chain, packet, i + 1, depth));
        return out;
      }
      return apply(rule, packet, table, chain, i, depth);
    }
    return List.of(new Outcome(packet, Result.CONTINUE));
  }

  /** The rule's target on a packet it matched, then the rest of the chain where the target lets it go on. */
  private List<Outcome> apply(Rule rule, PacketState packet, String table, String chain, int index, int depth) {
    packet.path.add(new Step(table + "/" + chain, rule.text()));
    String target = rule.target();
    switch (target) {
      case "ACCEPT" -> {
        return List.of(new Outcome(packet, Result.ACCEPT));
      }
      case "DROP" -> {
        return List.of(new Outcome(packet, Result.DROP));
      }
      case "REJECT" -> {
        return List.of(new Outcome(packet, Result.REJECT));
      }
      case "RETURN" -> {
        return List.of(new Outcome(packet, Result.CONTINUE));
      }
      case "DNAT" -> {
        Targets.dnat(packet, rule);
        return List.of(new Outcome(packet, Result.ACCEPT));
      }
      case "MASQUERADE", "SNAT" -> {
        packet.masqueraded = true;
        return List.of(new Outcome(packet, Result.ACCEPT));
      }
      case "MARK" -> {
        Targets.mark(packet, rule);
        return run(table, chain, packet, index + 1, depth);
      }
      case "" -> {
        return run(table, chain, packet, index + 1, depth);
      }
      default -> {
        List<Outcome> out = new ArrayList<>();
        for (Outcome sub : run(table, target, packet, 0, depth + 1)) {
          if (sub.result() == Result.CONTINUE && !rule.goTo()) {
            out.addAll(run(table, chain, sub.packet(), index + 1, depth));
          } else {
            out.add(sub);
          }
        }
        return out;
      }
    }
  }
}
