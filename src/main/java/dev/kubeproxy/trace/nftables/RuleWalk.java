package dev.kubeproxy.trace.nftables;

import dev.kubeproxy.net.Cidr;
import dev.kubeproxy.net.IpFamily;
import dev.kubeproxy.backend.nftables.objects.Chain;
import dev.kubeproxy.backend.nftables.objects.Element;
import dev.kubeproxy.backend.nftables.objects.ElementValue;
import dev.kubeproxy.backend.nftables.objects.Match;
import dev.kubeproxy.backend.nftables.objects.Rule;
import dev.kubeproxy.backend.nftables.objects.Statement;
import dev.kubeproxy.trace.Origin;
import dev.kubeproxy.trace.Packet;
import dev.kubeproxy.trace.Step;
import dev.kubeproxy.trace.Verdict;
import dev.kubeproxy.trace.nftables.BaseChains.Hook;
import dev.kubeproxy.trace.nftables.KeyParts.Kind;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Locale;

/**
 * One walk of a packet through the hooks and the rules, taking at each random draw the option
 * {@link Choices} gives (nf_tables' evaluation: rules in order, their matches in order, a verdict
 * ends the base chain or moves between chains; jump returns, goto does not; NAT statements end the
 * base chain; accept moves on to the next base chain, drop and reject end the packet).
 */
final class RuleWalk {
  /** nf_tables' jump stack (NFT_JUMP_STACK_SIZE). */
  private static final int MAX_JUMP_DEPTH = 16;

  /** The end of one walk. */
  record Outcome(List<Step> steps, Verdict verdict, String dnatTarget, boolean masqueraded) {}

  private enum Effect { NO_MATCH, CONTINUE, ACCEPT, DROP, REJECT, RETURN, JUMP, GOTO }

  private record Action(Effect kind, String chain) {
    static final Action NO_MATCH = new Action(Effect.NO_MATCH, null);
    static final Action CONTINUE = new Action(Effect.CONTINUE, null);
    static final Action ACCEPT = new Action(Effect.ACCEPT, null);
  }

  private final NftRuleset table;
  private final BaseChains bases;
  private final TraceHost host;
  private final Choices choices;
  private final Packet packet;
  private final IpFamily family;
  private final int protocol;
  private final List<Step> steps = new ArrayList<>();
  private String daddr;
  private int dport;
  private long mark;
  private String dnatTarget;
  private boolean masqueraded;
  private Hook hook;

  RuleWalk(NftRuleset table, BaseChains bases, TraceHost host, Choices choices, Packet packet) {
    this.table = table;
    this.bases = bases;
    this.host = host;
    this.choices = choices;
    this.packet = packet;
    this.family = table.family();
    this.protocol = KeyParts.protocolNumber(packet.protocol().name());
    this.daddr = packet.destinationIp();
    this.dport = packet.destinationPort();
  }

  /**
   * The node's own packets go output then postrouting, and loop back through prerouting (whose
   * NAT the connection already has) to input when their destination is local; the others go
   * prerouting, then input when the destination is local after DNAT, else forward and postrouting.
   */
  Outcome walk() {
    boolean nat = !packet.established();
    Verdict v;
    if (packet.origin() == Origin.NODE) {
      v = run(Hook.OUTPUT, nat);
      v = v != null ? v : run(Hook.POSTROUTING, nat);
      if (v == null && host.isLocal(daddr)) {
        v = run(Hook.PREROUTING, false);
        v = v != null ? v : run(Hook.INPUT, nat);
      }
    } else {
      v = run(Hook.PREROUTING, nat);
      if (v == null && host.isLocal(daddr)) {
        v = run(Hook.INPUT, nat);
      } else if (v == null) {
        v = run(Hook.FORWARD, nat);
        v = v != null ? v : run(Hook.POSTROUTING, nat);
      }
    }
    return new Outcome(List.copyOf(steps), v == null ? Verdict.ACCEPT : v, dnatTarget, masqueraded);
  }

  /** The hook's base chains in order; drop or reject, or null when the packet goes on. */
  private Verdict run(Hook h, boolean withNat) {
    hook = h;
    for (Chain base : bases.of(h)) {
      if (BaseChains.isNat(base) && !withNat) {
        continue;
      }
      Verdict v = runBase(base.name());
      if (v != null) {
        return v;
      }
    }
    return null;
  }

  private Verdict runBase(String base) {
    Deque<int[]> positions = new ArrayDeque<>();
    Deque<String> names = new ArrayDeque<>();
    names.push(base);
    positions.push(new int[] {0});
    while (!names.isEmpty()) {
      String chain = names.peek();
      List<Rule> rules = table.rules(chain);
      int[] at = positions.peek();
      if (at[0] >= rules.size()) {
        names.pop();
        positions.pop();
        continue;
      }
      Rule rule = rules.get(at[0]++);
      Action a = evaluate(rule);
      if (a.kind() == Effect.NO_MATCH) {
        continue;
      }
      steps.add(new Step(chain, text(rule)));
      switch (a.kind()) {
        case CONTINUE -> { }
        case ACCEPT -> {
          return null;
        }
        case DROP -> {
          return Verdict.DROP;
        }
        case REJECT -> {
          return Verdict.REJECT;
        }
        case RETURN -> {
          names.pop();
          positions.pop();
        }
        case JUMP, GOTO -> {
          if (a.kind() == Effect.GOTO) {
            names.pop();
            positions.pop();
          } else if (names.size() >= MAX_JUMP_DEPTH) {
            throw new IllegalStateException("more than " + MAX_JUMP_DEPTH + " nested jumps at chain " + chain);
          }
          table.rules(a.chain());
          names.push(a.chain());
          positions.push(new int[] {0});
        }
        default -> throw new IllegalStateException("unexpected action " + a);
      }
    }
    return null;
  }

  private Action evaluate(Rule rule) {
    for (Match m : rule.matches()) {
      if (!matches(m)) {
        return Action.NO_MATCH;
      }
    }
    return execute(rule.statement());
  }

  private boolean matches(Match m) {
    if (m instanceof Match.Address a) {
      return Cidr.parse(a.prefix()).contains(address(a.field())) != a.negated();
    } else if (m instanceof Match.AddressIn a) {
      String addr = address(a.field());
      return a.prefixes().stream().anyMatch(p -> KeyParts.addressMatches(p, addr)) != a.negated();
    } else if (m instanceof Match.AddressInSet a) {
      return lookup(a.set(), List.of(Kind.ADDRESS), List.of(address(a.field()))) != null;
    } else if (m instanceof Match.DestinationPort p) {
      return KeyParts.protocolNumber(p.protocol()) == protocol && p.port() == dport;
    } else if (m instanceof Match.Protocol p) {
      return KeyParts.protocolNumber(p.protocol()) == protocol;
    } else if (m instanceof Match.InterfaceName i) {
      boolean outputPath = hook == Hook.OUTPUT || hook == Hook.POSTROUTING;
      return host.interfaceMatches(packet.origin(), outputPath, i.negated(), i.name());
    } else if (m instanceof Match.LocalAddress l) {
      return host.isLocal(address(l.field()));
    } else if (m instanceof Match.NewConnection) {
      return !packet.established();
    } else if (m instanceof Match.DestinationNatted) {
      return dnatTarget != null;
    } else if (m instanceof Match.MarkUnset u) {
      return (mark & number(u.mark())) == 0;
    } else if (m instanceof Match.DestinationInSet d) {
      return lookup(d.set(), DESTINATION, destination()) != null;
    } else if (m instanceof Match.TupleInSet t) {
      return lookup(t.set(), List.of(Kind.ADDRESS, Kind.ADDRESS, Kind.PROTOCOL, Kind.NUMBER),
          List.of(packet.sourceIp(), daddr, Integer.toString(protocol), Integer.toString(dport))) != null;
    }
    throw new IllegalStateException("the tracer does not know the match " + m);
  }

  private Action execute(Statement s) {
    if (s instanceof dev.kubeproxy.backend.nftables.objects.Verdict v) {
      return verdict(v);
    } else if (s instanceof Statement.Reject || s instanceof Statement.CountedReject) {
      return new Action(Effect.REJECT, null);
    } else if (s instanceof Statement.Dnat d) {
      return dnat(d.address(), d.port());
    } else if (s instanceof Statement.DnatFromMap d) {
      List<ElementValue.Target> options = EndpointRanges.reachable(table, d.map(), d.offset(), d.modulus());
      ElementValue.Target t = options.get(choices.choose(options.size()));
      return t == null ? Action.NO_MATCH : dnat(t.address(), t.port());
    } else if (s instanceof Statement.DnatByDestination d) {
      Element e = lookup(d.map(), DESTINATION, destination());
      if (e == null) {
        return Action.NO_MATCH;
      }
      if (!(e.value() instanceof ElementValue.Target t)) {
        throw new IllegalStateException("the map " + d.map() + " holds " + e.valueText() + " at " + e.keyText());
      }
      return dnat(t.address(), t.port());
    } else if (s instanceof Statement.RandomGoto g) {
      return new Action(Effect.GOTO, g.targets().get(choices.choose(g.targets().size())));
    } else if (s instanceof Statement.DestinationVmap v) {
      Element e = v.withAddress() ? lookup(v.map(), DESTINATION, destination())
          : lookup(v.map(), List.of(Kind.PROTOCOL, Kind.NUMBER),
              List.of(Integer.toString(protocol), Integer.toString(dport)));
      if (e == null) {
        return Action.NO_MATCH;
      }
      if (!(e.value() instanceof dev.kubeproxy.backend.nftables.objects.Verdict verdict)) {
        throw new IllegalStateException("the verdict map " + v.map() + " holds " + e.valueText() + " at " + e.keyText());
      }
      return verdict(verdict);
    } else if (s instanceof Statement.SetMark m) {
      mark = m.toggle() ? mark ^ number(m.mark()) : mark | number(m.mark());
      return Action.CONTINUE;
    } else if (s instanceof Statement.Masquerade) {
      masqueraded = true;
      return Action.ACCEPT;
    } else if (s instanceof Statement.RememberSource) {
      // The affinity sets learn the client; a traced packet is a new client, so nothing to read back.
      return Action.CONTINUE;
    }
    throw new IllegalStateException("the tracer does not know the statement " + s);
  }

  private static Action verdict(dev.kubeproxy.backend.nftables.objects.Verdict v) {
    return switch (v.kind()) {
      case ACCEPT -> Action.ACCEPT;
      case DROP -> new Action(Effect.DROP, null);
      case RETURN -> new Action(Effect.RETURN, null);
      case JUMP -> new Action(Effect.JUMP, v.chain());
      case GOTO -> new Action(Effect.GOTO, v.chain());
    };
  }

  /** DNAT rewrites the destination at once (later chains see the endpoint) and ends the base chain. */
  private Action dnat(String address, int port) {
    daddr = address;
    dport = port;
    dnatTarget = family == IpFamily.IPv6 ? "[" + address + "]:" + port : address + ":" + port;
    return Action.ACCEPT;
  }

  /** The kinds of a key "daddr . l4proto . dport". */
  private static final List<Kind> DESTINATION = List.of(Kind.ADDRESS, Kind.PROTOCOL, Kind.NUMBER);

  /** The packet's "daddr . l4proto . dport". */
  private List<String> destination() {
    return List.of(daddr, Integer.toString(protocol), Integer.toString(dport));
  }

  /** The first element of the set or map whose key holds the values, or null. */
  private Element lookup(String container, List<Kind> kinds, List<String> values) {
    for (Element e : table.elements(container)) {
      if (KeyParts.matches(e.key(), kinds, values)) {
        return e;
      }
    }
    return null;
  }

  private String address(Match.Field field) {
    return field == Match.Field.SOURCE ? packet.sourceIp() : daddr;
  }

  private static long number(String text) {
    try {
      return Long.decode(text.trim().toLowerCase(Locale.ROOT));
    } catch (NumberFormatException e) {
      throw new IllegalStateException("not a mark value: " + text, e);
    }
  }

  /** The rule as nft writes it, comment included. */
  private String text(Rule rule) {
    String body = rule.text(family);
    return rule.comment() == null ? body : body + " comment \"" + rule.comment() + "\"";
  }
}
