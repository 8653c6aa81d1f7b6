package dev.kubeproxy.trace.nftables.script;

import dev.kubeproxy.backend.nftables.objects.Match;
import dev.kubeproxy.backend.nftables.objects.Match.Field;
import dev.kubeproxy.backend.nftables.objects.Rule;
import dev.kubeproxy.backend.nftables.objects.Statement;
import dev.kubeproxy.backend.nftables.objects.Verdict;
import java.util.ArrayList;
import java.util.List;

/**
 * A rule's body in nft's syntax ("ip daddr 10.96.0.1 tcp dport 80 jump mark-for-masquerade
 * comment \"…\"") in the typed form: the matches the agent writes, then its one statement. Any
 * other word is refused with the rule's text.
 */
final class RuleText {
  private RuleText() {}

  static Rule read(String chain, Tokens t) {
    List<Match> matches = new ArrayList<>();
    Statement statement = null;
    while (statement == null) {
      if (t.done()) {
        throw t.bad("a verdict or a statement to end the rule");
      }
      String w = t.peek();
      switch (w) {
        case "ip", "ip6" -> {
          t.next();
          String field = t.next();
          if (field.equals("daddr") && t.peek().equals(".")) {
            t.expect(".");
            t.expect("meta");
            t.expect("l4proto");
            t.expect(".");
            t.expect("th");
            t.expect("dport");
            if (t.peek().startsWith("@")) {
              matches.add(new Match.DestinationInSet(set(t)));
            } else {
              statement = portsVmap(t, true);
            }
          } else if (field.equals("saddr") && t.peek().equals(".")) {
            t.expect(".");
            t.next();
            t.expect("daddr");
            t.expect(".");
            t.expect("meta");
            t.expect("l4proto");
            t.expect(".");
            t.expect("th");
            t.expect("dport");
            matches.add(new Match.TupleInSet(set(t)));
          } else {
            matches.add(address(t, field));
          }
        }
        case "tcp", "udp", "sctp" -> {
          t.next();
          t.expect("dport");
          matches.add(new Match.DestinationPort(w, number(t)));
        }
        case "meta" -> {
          t.next();
          t.expect("l4proto");
          String proto = t.next();
          if (proto.equals(".")) {
            t.expect("th");
            t.expect("dport");
            statement = portsVmap(t, false);
            // "meta l4proto . th dport vmap": the protocol was the key's first part, not a match
          } else {
            matches.add(new Match.Protocol(proto));
          }
        }
        case "iifname" -> {
          t.next();
          boolean negated = t.accept("!=");
          matches.add(new Match.InterfaceName(negated, t.quoted()));
        }
        case "fib" -> {
          t.next();
          Field f = field(t, t.next());
          t.expect("type");
          t.expect("local");
          matches.add(new Match.LocalAddress(f));
        }
        case "ct" -> {
          t.next();
          String key = t.next();
          String value = t.next();
          if (key.equals("state") && value.equals("new")) {
            matches.add(new Match.NewConnection());
          } else if (key.equals("status") && value.equals("dnat")) {
            matches.add(new Match.DestinationNatted());
          } else {
            throw t.bad("ct state new or ct status dnat");
          }
        }
        case "mark" -> {
          t.next();
          if (t.accept("set")) {
            t.expect("mark");
            String op = t.next();
            if (!op.equals("or") && !op.equals("xor")) {
              throw t.bad("or or xor");
            }
            statement = new Statement.SetMark(op.equals("xor"), t.next());
          } else {
            t.expect("and");
            String mark = t.next();
            t.expect("==");
            t.expect("0");
            matches.add(new Match.MarkUnset(mark));
          }
        }
        default -> statement = statement(t);
      }
    }
    String comment = t.accept("comment") ? t.quoted() : null;
    if (!t.done()) {
      throw t.bad("the end of the rule");
    }
    return new Rule(chain, matches, statement, comment);
  }

  private static Match address(Tokens t, String fieldWord) {
    Field f = field(t, fieldWord);
    boolean negated = t.accept("!=");
    if (t.peek().startsWith("@")) {
      if (negated) {
        throw t.bad("a lookup in a named set without !=");
      }
      return new Match.AddressInSet(f, set(t));
    }
    if (t.accept("{")) {
      List<String> parts = new ArrayList<>();
      do {
        parts.add(t.next());
      } while (t.accept(","));
      t.expect("}");
      return new Match.AddressIn(f, negated, parts);
    }
    return new Match.Address(f, negated, t.next());
  }

  /** "vmap @M" after the key. */
  private static Statement portsVmap(Tokens t, boolean withAddress) {
    t.expect("vmap");
    return new Statement.DestinationVmap(withAddress, set(t));
  }

  /** The verdict word w begins (taking a jump's or goto's chain from t), or null when w is none. */
  static Verdict verdict(String w, Tokens t) {
    return switch (w) {
      case "jump" -> Verdict.jump(t.next());
      case "goto" -> Verdict.goTo(t.next());
      case "drop" -> Verdict.DROP;
      case "accept" -> Verdict.ACCEPT;
      case "return" -> Verdict.RETURN;
      default -> null;
    };
  }

  private static Statement statement(Tokens t) {
    String w = t.next();
    Verdict verdict = verdict(w, t);
    if (verdict != null) {
      return verdict;
    }
    switch (w) {
      case "reject" -> {
        return new Statement.Reject();
      }
      case "counter" -> {
        t.expect("name");
        String counter = t.quoted();
        t.expect("reject");
        return new Statement.CountedReject(counter.substring(1, counter.length() - 1));
      }
      case "masquerade" -> {
        t.accept("fully-random");
        return new Statement.Masquerade();
      }
      case "dnat" -> {
        return dnat(t);
      }
      case "numgen" -> {
        int mod = numgen(t);
        t.expect("vmap");
        t.expect("{");
        List<String> targets = new ArrayList<>();
        do {
          int key = number(t);
          t.expect(":");
          t.expect("goto");
          if (key != targets.size()) {
            throw t.bad("the draw " + targets.size());
          }
          targets.add(t.next());
        } while (t.accept(","));
        t.expect("}");
        if (targets.size() != mod) {
          throw t.bad("one chain for each of the " + mod + " draws");
        }
        return new Statement.RandomGoto(targets);
      }
      case "update" -> {
        String set = set(t);
        t.expect("{");
        String family = t.next();
        if (!family.equals("ip") && !family.equals("ip6")) {
          throw t.bad("ip or ip6");
        }
        t.expect("saddr");
        t.expect("}");
        return new Statement.RememberSource(set);
      }
      default -> throw t.bad("a match, a verdict or a statement, not " + w);
    }
  }

  /**
   * "dnat to A:P", "dnat to [A]:P", "dnat ip addr . port to numgen random mod M offset K map @S" or
   * "dnat ip addr . port to ip daddr . meta l4proto . th dport map @S".
   */
  private static Statement dnat(Tokens t) {
    if (t.accept("to")) {
      String target = t.next();
      int colon = target.lastIndexOf(':');
      if (colon <= 0) {
        throw t.bad("an address:port DNAT target");
      }
      String address = target.substring(0, colon).replace("[", "").replace("]", "");
      try {
        return new Statement.Dnat(address, Integer.parseInt(target.substring(colon + 1)));
      } catch (NumberFormatException e) {
        throw t.bad("a port in " + target);
      }
    }
    String family = t.next();
    t.expect("addr");
    t.expect(".");
    t.expect("port");
    t.expect("to");
    if (t.accept(family)) {
      t.expect("daddr");
      for (String w : List.of(".", "meta", "l4proto", ".", "th", "dport", "map")) {
        t.expect(w);
      }
      return new Statement.DnatByDestination(set(t));
    }
    int mod = numgen(t);
    int offset = t.accept("offset") ? number(t) : 0;
    t.expect("map");
    return new Statement.DnatFromMap(mod, offset, set(t));
  }

  /** "numgen random mod N": N. */
  private static int numgen(Tokens t) {
    if (t.peek().equals("numgen")) {
      t.next();
    }
    t.expect("random");
    t.expect("mod");
    return number(t);
  }

  private static Field field(Tokens t, String w) {
    return switch (w) {
      case "saddr" -> Field.SOURCE;
      case "daddr" -> Field.DESTINATION;
      default -> throw t.bad("saddr or daddr, not " + w);
    };
  }

  private static String set(Tokens t) {
    String w = t.next();
    if (!w.startsWith("@") || w.length() < 2) {
      throw t.bad("@set, not " + w);
    }
    return w.substring(1);
  }

  private static int number(Tokens t) {
    String w = t.next();
    try {
      return Integer.parseInt(w);
    } catch (NumberFormatException e) {
      throw t.bad("a number, not " + w);
    }
  }
}
