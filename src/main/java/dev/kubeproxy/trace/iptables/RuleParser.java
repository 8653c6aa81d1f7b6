package dev.kubeproxy.trace.iptables;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads one rule's options as iptables(8) and iptables-extensions(8) define them into {@link Condition}s and a
 * target. Covers what kube-proxy's rules use (-s/-d, -p, -i/-o, --dport/--sport, multiport, comment, addrtype,
 * conntrack/state, mark, recent, statistic, nfacct, the DNAT/MARK/MASQUERADE/REJECT targets); a rule with any
 * other match is kept as unsupported, so rules other programs put in the built-in chains do not stop a trace.
 */
final class RuleParser {
  private RuleParser() {}

  /** Splits a rule line as a shell would for the double-quoted comments iptables-save writes. */
  static List<String> tokens(String line) {
    List<String> tokens = new ArrayList<>();
    StringBuilder current = null;
    boolean quoted = false;
    for (int i = 0; i < line.length(); i++) {
      char c = line.charAt(i);
      if (quoted) {
        if (c == '\\' && i + 1 < line.length()) {
          current.append(line.charAt(++i));
        } else if (c == '"') {
          quoted = false;
        } else {
          current.append(c);
        }
      } else if (Character.isWhitespace(c)) {
        if (current != null) {
          tokens.add(current.toString());
          current = null;
        }
      } else {
        if (current == null) {
          current = new StringBuilder();
        }
        if (c == '"') {
          quoted = true;
        } else {
          current.append(c);
        }
      }
    }
    if (quoted) {
      throw new IllegalArgumentException("unterminated quote in iptables rule: " + line);
    }
    if (current != null) {
      tokens.add(current.toString());
    }
    return tokens;
  }

  /**
   * Parses the options of a rule (the tokens after "-A CHAIN").
   *
   * @param text the whole line, kept for the trace
   */
  static Rule parse(String table, String chain, String text, List<String> args) {
    List<Condition> conditions = new ArrayList<>();
    Map<String, String> targetOptions = new HashMap<>();
    String target = "";
    boolean goTo = false;
    boolean random = false;
    String unsupported = "";
    boolean negate = false;
    boolean inTarget = false;
    for (int i = 0; i < args.size(); i++) {
      String option = args.get(i);
      if (option.equals("!")) {
        negate = true;
        continue;
      }
      if (inTarget) {
        boolean flag = i + 1 >= args.size() || args.get(i + 1).startsWith("-");
        targetOptions.put(option, flag ? "" : args.get(++i));
        continue;
      }
      Condition condition = null;
      switch (option) {
        case "-j", "--jump", "-g", "--goto" -> {
          target = value(args, ++i, text);
          goTo = option.startsWith("-g") || option.equals("--goto");
          inTarget = true;
        }
        case "-m", "--match" -> {
          String module = value(args, ++i, text);
          if (!Matches.KNOWN_MODULES.contains(module) && unsupported.isEmpty()) {
            unsupported = "match module " + module;
          }
        }
        case "-p", "--protocol" -> {
          String protocol = value(args, ++i, text);
          condition = packet -> protocol.equals("all") || protocol.equalsIgnoreCase(packet.protocol);
        }
        case "-s", "--source" -> condition = Matches.address(value(args, ++i, text), true);
        case "-d", "--destination" -> condition = Matches.address(value(args, ++i, text), false);
        case "-i", "--in-interface" -> condition = Matches.iface(value(args, ++i, text), true);
        case "-o", "--out-interface" -> condition = Matches.iface(value(args, ++i, text), false);
        case "--dport", "--destination-port" -> condition = Matches.ports(value(args, ++i, text));
        case "--dports", "--destination-ports" -> condition = Matches.ports(value(args, ++i, text));
        case "--sport", "--source-port", "--sports", "--source-ports" -> {
          // The traced packet has no source port: a source-port match is not decidable.
          value(args, ++i, text);
          unsupported = unsupported.isEmpty() ? "source-port match" : unsupported;
        }
        case "--comment", "--nfacct-name" -> value(args, ++i, text);
        case "--src-type" -> condition = Matches.addrType(value(args, ++i, text), true);
        case "--dst-type" -> condition = Matches.addrType(value(args, ++i, text), false);
        case "--limit-iface-in", "--limit-iface-out" -> { }
        case "--ctstate", "--state" -> {
          List<String> states = List.of(value(args, ++i, text).split(","));
          condition = packet -> packet.inCtState(states);
        }
        case "--mark" -> condition = Matches.mark(value(args, ++i, text));
        case "--mode" -> {
          value(args, ++i, text);
          random = true;
        }
        case "--probability", "--every", "--packet", "--name", "--mask", "--seconds" -> value(args, ++i, text);
        case "--set", "--rsource", "--rdest", "--reap" -> { }
        case "--match-set" -> {
          String set = value(args, ++i, text);
          List<String> flags = List.of(value(args, ++i, text).split(","));
          condition = packet -> packet.sets.contains(set, flags, packet);
        }
        // The traced packets never cross a bridge port with bridge netfilter on.
        case "--physdev-is-in", "--physdev-is-out", "--physdev-is-bridged" -> condition = packet -> false;
        case "--ipvs" -> condition = packet -> packet.ipvsAddress != null;
        case "--vaddr" -> condition = Matches.virtualAddress(value(args, ++i, text));
        case "--vproto" -> {
          // written by name, printed back by iptables-save as the protocol's number
          String protocol = switch (value(args, ++i, text)) {
            case "6" -> "tcp";
            case "17" -> "udp";
            case "132" -> "sctp";
            default -> args.get(i);
          };
          condition = packet -> protocol.equalsIgnoreCase(packet.ipvsProtocol);
        }
        case "--vport" -> {
          int port = Integer.parseInt(value(args, ++i, text));
          condition = packet -> packet.ipvsAddress != null && packet.ipvsPort == port;
        }
        // A new flow has no history, so a check of what it did before never holds.
        case "--rcheck", "--update" -> condition = packet -> false;
        default -> {
          if (unsupported.isEmpty()) {
            unsupported = "option " + option;
          }
          if (i + 1 < args.size() && !args.get(i + 1).startsWith("-") && !args.get(i + 1).equals("!")) {
            i++;
          }
        }
      }
      if (condition != null) {
        conditions.add(negate ? condition.negated() : condition);
      }
      negate = false;
    }
    return new Rule(table, chain, text, conditions, target, targetOptions, random, goTo, unsupported);
  }

  private static String value(List<String> args, int i, String text) {
    if (i >= args.size()) {
      throw new IllegalArgumentException("iptables rule ends where an option's value was expected: " + text);
    }
    return args.get(i);
  }
}
