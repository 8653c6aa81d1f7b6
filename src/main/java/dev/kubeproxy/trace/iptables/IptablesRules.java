package dev.kubeproxy.trace.iptables;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The tables and chains of one family as iptables-save prints them, built by applying iptables-restore inputs
 * with --noflush semantics (iptables-restore(8)): a ":CHAIN" line creates or flushes a user chain and sets a
 * built-in chain's policy, "-A"/"-I"/"-D" edit rules, "-N"/"-F"/"-X" create, flush and delete chains.
 * So the same reader takes the kernel's iptables-save output and the agent's restore input layered on the jump
 * rules in the built-in chains. Not thread-safe.
 */
public final class IptablesRules {
  private static final Map<String, List<String>> BUILTIN = Map.of(
      "filter", List.of("INPUT", "FORWARD", "OUTPUT"),
      "nat", List.of("PREROUTING", "INPUT", "OUTPUT", "POSTROUTING"),
      "mangle", List.of("PREROUTING", "INPUT", "FORWARD", "OUTPUT", "POSTROUTING"),
      "raw", List.of("PREROUTING", "OUTPUT"));

  private final Map<String, Map<String, List<Rule>>> tables = new HashMap<>();
  private final Map<String, String> policies = new HashMap<>();

  /** Rules read from iptables-save (or restore) text. */
  public static IptablesRules parse(String text) {
    IptablesRules rules = new IptablesRules();
    rules.apply(text);
    return rules;
  }

  /**
   * Applies an iptables-restore --noflush input (or a whole iptables-save output) on top of these rules.
   *
   * @throws IllegalArgumentException naming the line when the text is not in that format
   */
  public IptablesRules apply(String text) {
    String table = null;
    int lineNumber = 0;
    for (String raw : text.split("\n")) {
      lineNumber++;
      String line = raw.strip();
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      try {
        if (line.startsWith("*")) {
          table = line.substring(1);
          chains(table);
        } else if (line.equals("COMMIT")) {
          table = null;
        } else if (table == null) {
          throw new IllegalArgumentException("outside a *table ... COMMIT block");
        } else if (line.startsWith(":")) {
          declare(table, RuleParser.tokens(line.substring(1)));
        } else {
          command(table, line);
        }
      } catch (RuntimeException e) {
        throw new IllegalArgumentException("iptables rules, line " + lineNumber + " (" + line + "): "
            + e.getMessage() + "; give the text iptables-save prints or iptables-restore reads", e);
      }
    }
    return this;
  }

  /** The rules of a chain as written ("-A CHAIN ..."), or null when the table has no such chain. */
  public List<String> ruleTexts(String table, String chain) {
    List<Rule> rules = chain(table, chain);
    return rules == null ? null : rules.stream().map(Rule::text).toList();
  }

  /** The rules of a chain, or null when the table has no such chain. */
  List<Rule> chain(String table, String chain) {
    Map<String, List<Rule>> chains = tables.get(table);
    return chains == null ? null : chains.get(chain);
  }

  /** The policy of a built-in chain (ACCEPT unless set). */
  public String policy(String table, String chain) {
    return policies.getOrDefault(table + "/" + chain, "ACCEPT");
  }

  /** The tables present. */
  public Set<String> tables() {
    return Set.copyOf(tables.keySet());
  }

  /** Every rule the tracer cannot evaluate (it never matches), with the reason. */
  public List<String> unsupported() {
    List<String> out = new ArrayList<>();
    tables.values().forEach(chains -> chains.values().forEach(rules -> rules.stream()
        .filter(r -> !r.unsupported().isEmpty())
        .forEach(r -> out.add(r.text() + " (" + r.unsupported() + ")"))));
    return out;
  }

  private Map<String, List<Rule>> chains(String table) {
    return tables.computeIfAbsent(table, t -> {
      Map<String, List<Rule>> chains = new LinkedHashMap<>();
      for (String builtin : BUILTIN.getOrDefault(t, List.of())) {
        chains.put(builtin, new ArrayList<>());
      }
      return chains;
    });
  }

  private boolean builtin(String table, String chain) {
    return BUILTIN.getOrDefault(table, List.of()).contains(chain);
  }

  private void declare(String table, List<String> fields) {
    String chain = fields.get(0);
    if (builtin(table, chain)) {
      if (fields.size() > 1 && !fields.get(1).equals("-")) {
        policies.put(table + "/" + chain, fields.get(1));
      }
    } else {
      chains(table).put(chain, new ArrayList<>());
    }
  }

  private void command(String table, String line) {
    List<String> tokens = RuleParser.tokens(line);
    String verb = tokens.get(0);
    String chain = tokens.size() > 1 ? tokens.get(1) : null;
    Map<String, List<Rule>> chains = chains(table);
    switch (verb) {
      case "-N", "--new-chain" -> chains.putIfAbsent(chain, new ArrayList<>());
      case "-X", "--delete-chain" -> {
        if (chain == null) {
          chains.keySet().removeIf(c -> !builtin(table, c));
        } else {
          chains.remove(chain);
        }
      }
      case "-F", "--flush" -> {
        if (chain == null) {
          chains.values().forEach(List::clear);
        } else {
          existing(chains, table, chain).clear();
        }
      }
      case "-A", "--append" -> existing(chains, table, chain).add(rule(table, chain, tokens.subList(2, tokens.size())));
      case "-I", "--insert" -> {
        List<Rule> rules = existing(chains, table, chain);
        int at = 0;
        int from = 2;
        if (tokens.size() > 2 && tokens.get(2).matches("\\d+")) {
          at = Integer.parseInt(tokens.get(2)) - 1;
          from = 3;
        }
        rules.add(Math.min(at, rules.size()), rule(table, chain, tokens.subList(from, tokens.size())));
      }
      case "-D", "--delete" -> {
        String text = rule(table, chain, tokens.subList(2, tokens.size())).text();
        existing(chains, table, chain).removeIf(r -> r.text().equals(text));
      }
      default -> throw new IllegalArgumentException("unknown command " + verb);
    }
  }

  private static List<Rule> existing(Map<String, List<Rule>> chains, String table, String chain) {
    List<Rule> rules = chain == null ? null : chains.get(chain);
    if (rules == null) {
      throw new IllegalArgumentException("no chain " + chain + " in table " + table);
    }
    return rules;
  }

  /** A rule, its text normalized to the "-A CHAIN ..." form iptables-save prints. */
  private static Rule rule(String table, String chain, List<String> args) {
    StringBuilder text = new StringBuilder("-A ").append(chain);
    for (String arg : args) {
      text.append(' ').append(arg.isEmpty() || arg.matches(".*[\\s\"].*") ? quote(arg) : arg);
    }
    return RuleParser.parse(table, chain, text.toString(), args);
  }

  private static String quote(String arg) {
    return '"' + arg.replace("\\", "\\\\").replace("\"", "\\\"") + '"';
  }
}
