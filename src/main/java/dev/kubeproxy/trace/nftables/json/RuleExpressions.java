package dev.kubeproxy.trace.nftables.json;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kubeproxy.backend.nftables.objects.Match;
import dev.kubeproxy.backend.nftables.objects.Match.Field;
import dev.kubeproxy.backend.nftables.objects.Rule;
import dev.kubeproxy.backend.nftables.objects.Statement;
import dev.kubeproxy.backend.nftables.objects.Verdict;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * One rule's expressions, as nft -j prints them ("expr": matches, then statements), in the typed
 * form: each "match" becomes a {@link Match}, the last statement the rule's {@link Statement}.
 * Counters are left out (they count, and change no packet's path); an expression of any other kind
 * is refused with its text, since a trace that skipped it would answer for rules it did not read.
 */
final class RuleExpressions {
  private RuleExpressions() {}

  static Rule read(String chain, JsonNode rule) {
    JsonNode expr = rule.path("expr");
    List<Match> matches = new ArrayList<>();
    Statement statement = null;
    String namedCounter = null;
    for (JsonNode e : expr) {
      String kind = kind(e);
      JsonNode body = e.get(kind);
      if (kind.equals("counter")) {
        namedCounter = body.isTextual() ? body.asText() : namedCounter; // {"counter": "name"}: a named counter
        continue;
      }
      if (statement != null) {
        throw refused(chain, e, "a statement after the rule's final one (" + statement + ")");
      }
      if (kind.equals("match")) {
        matches.add(match(chain, e, body));
      } else {
        statement = statement(chain, e, kind, body);
      }
    }
    if (statement == null) {
      throw refused(chain, expr, "a rule without a verdict or a statement");
    }
    if (namedCounter != null && statement instanceof Statement.Reject) {
      statement = new Statement.CountedReject(namedCounter);
    }
    String impliedProtocol = statement instanceof Statement.DnatByDestination ? impliedProtocol(expr) : null;
    if (impliedProtocol != null && matches.isEmpty()) {
      matches.add(new Match.Protocol(impliedProtocol)); // nft prints "tcp dport" in the key instead of this match
    }
    String comment = rule.hasNonNull("comment") ? rule.get("comment").asText() : null;
    return new Rule(chain, matches, statement, comment);
  }

  private static Match match(String chain, JsonNode whole, JsonNode m) {
    String op = m.path("op").asText("==");
    boolean negated = op.equals("!=");
    if (!negated && !op.equals("==") && !op.equals("in")) {
      throw refused(chain, whole, "the comparison " + op);
    }
    JsonNode left = m.path("left");
    JsonNode right = m.path("right");
    String leftKind = left.isObject() ? kind(left) : "";
    switch (leftKind) {
      case "ct" -> {
        String key = left.get("ct").path("key").asText();
        String value = right.isArray() && right.size() == 1 ? right.get(0).asText() : right.asText();
        if (!negated && key.equals("state") && value.equals("new")) {
          return new Match.NewConnection();
        }
        if (!negated && key.equals("status") && value.equals("dnat")) {
          return new Match.DestinationNatted();
        }
      }
      case "payload" -> {
        JsonNode p = left.get("payload");
        String protocol = p.path("protocol").asText();
        String field = p.path("field").asText();
        if ((protocol.equals("ip") || protocol.equals("ip6")) && (field.equals("saddr") || field.equals("daddr"))) {
          return address(chain, whole, field.equals("saddr") ? Field.SOURCE : Field.DESTINATION, negated, right);
        }
        if (!negated && field.equals("dport") && List.of("tcp", "udp", "sctp").contains(protocol) && right.isInt()) {
          return new Match.DestinationPort(protocol, right.asInt());
        }
      }
      case "meta" -> {
        String key = left.get("meta").path("key").asText();
        if (!negated && key.equals("l4proto") && right.isTextual()) {
          return new Match.Protocol(right.asText());
        }
        if (key.equals("iifname") && right.isTextual()) {
          return new Match.InterfaceName(negated, right.asText());
        }
      }
      case "fib" -> {
        JsonNode fib = left.get("fib");
        JsonNode flags = fib.path("flags");
        String flag = flags.isArray() && flags.size() == 1 ? flags.get(0).asText() : flags.asText();
        if (!negated && fib.path("result").asText().equals("type") && right.asText().equals("local")
            && (flag.equals("saddr") || flag.equals("daddr"))) {
          return new Match.LocalAddress(flag.equals("saddr") ? Field.SOURCE : Field.DESTINATION);
        }
      }
      case "&" -> {
        JsonNode and = left.get("&");
        if (!negated && and.size() == 2 && isMetaMark(and.get(0)) && and.get(1).isIntegralNumber()
            && right.isIntegralNumber() && right.asLong() == 0) {
          return new Match.MarkUnset(hex(and.get(1).asLong()));
        }
      }
      case "concat" -> {
        if (!negated && isTuple(left.get("concat")) && isSetReference(right)) {
          return new Match.TupleInSet(right.asText().substring(1));
        }
        if (!negated && isDestination(left.get("concat")) && isSetReference(right)) {
          return new Match.DestinationInSet(right.asText().substring(1));
        }
      }
      default -> { }
    }
    throw refused(chain, whole, "a match the tracer does not read");
  }

  private static Match address(String chain, JsonNode whole, Field field, boolean negated, JsonNode right) {
    if (isSetReference(right)) {
      if (negated) {
        throw refused(chain, whole, "a negated lookup in a named set");
      }
      return new Match.AddressInSet(field, right.asText().substring(1));
    }
    if (right.isObject() && right.has("set")) {
      List<String> parts = new ArrayList<>();
      for (JsonNode item : right.get("set")) {
        parts.add(Elements.keyPart(item));
      }
      return new Match.AddressIn(field, negated, parts);
    }
    if (right.isTextual() || right.isObject() && right.has("prefix")) {
      String part = Elements.keyPart(right);
      if (part.indexOf('-') < 0) {
        return new Match.Address(field, negated, part);
      }
    }
    throw refused(chain, whole, "an address match the tracer does not read");
  }

  private static Statement statement(String chain, JsonNode whole, String kind, JsonNode s) {
    switch (kind) {
      case "accept", "drop", "return", "jump", "goto" -> {
        return Elements.verdict(whole);
      }
      case "reject" -> {
        return new Statement.Reject();
      }
      case "masquerade" -> {
        return new Statement.Masquerade();
      }
      case "dnat" -> {
        JsonNode addr = s.path("addr");
        if (addr.isTextual() && s.path("port").isInt()) {
          return new Statement.Dnat(addr.asText(), s.get("port").asInt());
        }
        JsonNode map = addr.path("map");
        JsonNode numgen = map.path("key").path("numgen");
        if (numgen.isObject() && numgen.path("mode").asText().equals("random") && isSetReference(map.path("data"))) {
          return new Statement.DnatFromMap(numgen.path("mod").asInt(), numgen.path("offset").asInt(0),
              map.get("data").asText().substring(1));
        }
        if (isDestination(map.path("key").path("concat")) && isSetReference(map.path("data"))) {
          return new Statement.DnatByDestination(map.get("data").asText().substring(1));
        }
      }
      case "vmap" -> {
        JsonNode key = s.path("key");
        JsonNode data = s.path("data");
        if (key.has("numgen") && key.get("numgen").path("mode").asText().equals("random") && data.has("set")) {
          return randomGoto(chain, whole, key.get("numgen"), data.get("set"));
        }
        if (key.has("concat") && isSetReference(data)) {
          JsonNode parts = key.get("concat");
          int n = parts.size();
          boolean ports = n >= 2 && isMeta(parts.get(n - 2), "l4proto") && isPayload(parts.get(n - 1), "th", "dport");
          if (ports && n == 2) {
            return new Statement.DestinationVmap(false, data.asText().substring(1));
          }
          if (ports && n == 3 && isAddress(parts.get(0), "daddr")) {
            return new Statement.DestinationVmap(true, data.asText().substring(1));
          }
        }
      }
      case "mangle" -> {
        JsonNode value = s.path("value");
        if (isMetaMark(s.path("key"))) {
          for (String op : List.of("|", "^")) {
            JsonNode args = value.path(op);
            if (args.size() == 2 && isMetaMark(args.get(0)) && args.get(1).isIntegralNumber()) {
              return new Statement.SetMark(op.equals("^"), hex(args.get(1).asLong()));
            }
          }
        }
      }
      case "set" -> {
        if (s.path("op").asText().equals("update") && isAddress(s.path("elem"), "saddr") && isSetReference(s.path("set"))) {
          return new Statement.RememberSource(s.get("set").asText().substring(1));
        }
      }
      default -> { }
    }
    throw refused(chain, whole, "a statement the tracer does not read");
  }

  /** "numgen random mod N vmap { 0 : goto a , ... }": every draw 0..N-1 must have its chain. */
  private static Statement randomGoto(String chain, JsonNode whole, JsonNode numgen, JsonNode set) {
    Map<Integer, String> targets = new TreeMap<>();
    for (JsonNode item : set) {
      Verdict v = item.size() == 2 && item.get(0).isInt() ? Elements.verdict(item.get(1)) : null;
      if (v == null || v.kind() != Verdict.Kind.GOTO) {
        throw refused(chain, whole, "a random verdict map entry other than \"N : goto chain\"");
      }
      targets.put(item.get(0).asInt(), v.chain());
    }
    int mod = numgen.path("mod").asInt();
    int offset = numgen.path("offset").asInt(0);
    List<String> ordered = new ArrayList<>();
    for (int i = offset; i < offset + mod; i++) {
      if (!targets.containsKey(i)) {
        throw refused(chain, whole, "a random draw (" + i + ") that no entry of the verdict map holds");
      }
      ordered.add(targets.get(i));
    }
    if (targets.size() != mod) {
      throw refused(chain, whole, "verdict map entries that the random draw never reaches");
    }
    return new Statement.RandomGoto(ordered);
  }

  static String kind(JsonNode object) {
    Iterator<String> names = object.fieldNames();
    if (!object.isObject() || !names.hasNext()) {
      throw new IllegalArgumentException("not an nft JSON object: " + object);
    }
    return names.next();
  }

  private static boolean isSetReference(JsonNode n) {
    return n.isTextual() && n.asText().startsWith("@") && n.asText().length() > 1;
  }

  private static boolean isMeta(JsonNode n, String key) {
    return n.path("meta").path("key").asText().equals(key);
  }

  private static boolean isMetaMark(JsonNode n) {
    return isMeta(n, "mark");
  }

  private static boolean isPayload(JsonNode n, String protocol, String field) {
    JsonNode p = n.path("payload");
    return p.path("protocol").asText().equals(protocol) && p.path("field").asText().equals(field);
  }

  private static boolean isAddress(JsonNode n, String field) {
    return isPayload(n, "ip", field) || isPayload(n, "ip6", field);
  }

  /** "ip saddr . ip daddr . meta l4proto . th dport". */
  private static boolean isTuple(JsonNode parts) {
    return parts.size() == 4 && isAddress(parts.get(0), "saddr") && isAddress(parts.get(1), "daddr")
        && isMeta(parts.get(2), "l4proto") && isPayload(parts.get(3), "th", "dport");
  }

  /**
   * "ip daddr . meta l4proto . th dport" (nft prints "tcp dport" where a protocol match before
   * the key implies it).
   */
  private static boolean isDestination(JsonNode parts) {
    if (parts.size() != 3 || !isAddress(parts.get(0), "daddr") || !isMeta(parts.get(1), "l4proto")) {
      return false;
    }
    JsonNode port = parts.get(2).path("payload");
    return port.path("field").asText().equals("dport")
        && List.of("th", "tcp", "udp", "sctp").contains(port.path("protocol").asText());
  }

  /** The protocol a DNAT key's "tcp dport" (not "th dport") names, or null. */
  private static String impliedProtocol(JsonNode expr) {
    JsonNode dnat = expr.get(expr.size() - 1).path("dnat").path("addr").path("map").path("key").path("concat");
    String protocol = dnat.path(2).path("payload").path("protocol").asText();
    return protocol.equals("th") || protocol.isEmpty() ? null : protocol;
  }

  private static String hex(long mark) {
    return String.format("0x%08x", mark);
  }

  private static IllegalArgumentException refused(String chain, JsonNode expression, String what) {
    return new IllegalArgumentException("chain " + chain + ": " + what + ": " + expression);
  }
}
