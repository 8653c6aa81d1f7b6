package dev.kubeproxy.trace.nftables.script;

import dev.kubeproxy.backend.nftables.objects.Chain;
import dev.kubeproxy.backend.nftables.objects.Element;
import dev.kubeproxy.backend.nftables.objects.ElementValue;
import dev.kubeproxy.backend.nftables.objects.NftCounter;
import dev.kubeproxy.backend.nftables.objects.NftMap;
import dev.kubeproxy.backend.nftables.objects.NftObject;
import dev.kubeproxy.backend.nftables.objects.NftSet;
import dev.kubeproxy.backend.nftables.objects.Table;
import dev.kubeproxy.backend.nftables.objects.Transaction.Operation;
import dev.kubeproxy.backend.nftables.objects.Transaction.Verb;
import dev.kubeproxy.backend.nftables.objects.Verdict;
import dev.kubeproxy.net.IpFamily;
import dev.kubeproxy.trace.nftables.NftRuleset;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Applies nft commands, one a line ("add chain ip kube-proxy …", "add rule …", "add element … { k :
 * v }", "flush …", "delete …"), to an empty table as the kernel would, into the {@link NftRuleset}
 * the nftables tracer walks: what a --dry-run's printed transactions leave programmed.
 */
public final class NftScriptReader {
  private static final String TABLE = "kube-proxy";

  private NftScriptReader() {}

  /**
   * @throws IllegalArgumentException when a line is not a command of the agent's, naming the line
   * @throws IllegalStateException    when a command names what the commands before it did not make
   */
  public static NftRuleset read(IpFamily family, String commands) {
    String familyWord = family == IpFamily.IPv6 ? "ip6" : "ip";
    NftRuleset.Builder table = new NftRuleset.Builder(family);
    int n = 0;
    for (String line : commands.split("\n")) {
      n++;
      if (line.isBlank()) {
        continue;
      }
      try {
        Tokens t = new Tokens(line);
        Verb verb = verb(t);
        String kind = t.next();
        t.expect(familyWord);
        t.expect(TABLE);
        table.apply(new Operation(verb, object(kind, verb, t)));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("line " + n + ": " + e.getMessage(), e);
      }
    }
    return table.build();
  }

  private static Verb verb(Tokens t) {
    String w = t.next();
    for (Verb v : Verb.values()) {
      if (v.name().toLowerCase(Locale.ROOT).equals(w)) {
        return v;
      }
    }
    throw t.bad("add, create, flush or delete, not " + w);
  }

  private static NftObject object(String kind, Verb verb, Tokens t) {
    switch (kind) {
      case "table" -> {
        return new Table(null);
      }
      case "chain" -> {
        return chain(t);
      }
      case "rule" -> {
        return RuleText.read(t.next(), t);
      }
      case "set", "map" -> {
        return container(kind, t);
      }
      case "element" -> {
        return element(t.next(), verb, t);
      }
      case "counter" -> {
        return new NftCounter(t.next());
      }
      default -> throw t.bad("table, chain, rule, set, map, element or counter, not " + kind);
    }
  }

  private static Chain chain(Tokens t) {
    String name = t.next();
    String type = null;
    String hook = null;
    Integer priority = null;
    String comment = null;
    if (t.accept("{")) {
      while (!t.accept("}")) {
        String key = t.next();
        switch (key) {
          case "type" -> {
            type = t.next();
            t.expect("hook");
            hook = t.next();
            t.expect("priority");
            String p = t.next();
            try {
              priority = Integer.parseInt(p);
            } catch (NumberFormatException e) {
              throw t.bad("a numeric priority, not " + p);
            }
          }
          case "comment" -> comment = t.quoted();
          default -> throw t.bad("type or comment, not " + key);
        }
        t.expect(";");
      }
    }
    return new Chain(name, type, hook, priority, comment);
  }

  private static NftObject container(String kind, Tokens t) {
    String name = t.next();
    StringBuilder type = new StringBuilder();
    List<String> flags = new ArrayList<>();
    int timeout = 0;
    String comment = null;
    if (t.accept("{")) {
      while (!t.accept("}")) {
        String key = t.next();
        switch (key) {
          case "type", "typeof" -> {
            type.append(key.equals("typeof") ? "typeof " : "");
            while (!t.peek().equals(";")) {
              type.append(type.length() == 0 || type.toString().endsWith(" ") ? "" : " ").append(t.next());
            }
          }
          case "flags" -> flags.addAll(List.of(t.next().split(",")));
          case "timeout" -> timeout = seconds(t);
          case "comment" -> comment = t.quoted();
          default -> throw t.bad("type, typeof, flags, timeout or comment, not " + key);
        }
        t.expect(";");
      }
    }
    return kind.equals("map") ? new NftMap(name, type.toString(), flags, comment)
        : new NftSet(name, type.toString(), flags, timeout, comment);
  }

  private static int seconds(Tokens t) {
    String w = t.next();
    try {
      return Integer.parseInt(w.endsWith("s") ? w.substring(0, w.length() - 1) : w);
    } catch (NumberFormatException e) {
      throw t.bad("a timeout in seconds, not " + w);
    }
  }

  /** "{ key [comment "c"] [: value] }", the key's parts joined by " . ". */
  private static Element element(String container, Verb verb, Tokens t) {
    t.expect("{");
    List<String> key = new ArrayList<>();
    key.add(t.next());
    while (t.accept(".")) {
      key.add(t.next());
    }
    String comment = t.accept("comment") ? t.quoted() : null;
    ElementValue value = null;
    if (t.accept(":")) {
      value = value(t);
    }
    t.expect("}");
    if (!t.done()) {
      throw t.bad("one element a command");
    }
    return new Element(container, value != null, key, value, comment);
  }

  private static ElementValue value(Tokens t) {
    String w = t.next();
    Verdict verdict = RuleText.verdict(w, t);
    if (verdict != null) {
      return verdict;
    }
    t.expect(".");
    String port = t.next();
    try {
      return new ElementValue.Target(w, Integer.parseInt(port));
    } catch (NumberFormatException e) {
      throw t.bad("an endpoint's port, not " + port);
    }
  }
}
